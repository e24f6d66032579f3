package io.camelkubeflow.trainer.routes;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.camelkubeflow.trainer.quarkus.KubeflowTrainerConfig;
import io.camelkubeflow.trainer.quarkus.LocalTrainerSandbox;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * The app's trainer.cluster and trainer.sandbox.* settings are what the extension reads (quarkus.kubeflow-trainer.*),
 * and the app acts on the one client the extension sets up; the image never runs the sandbox.
 */
@QuarkusTest
class ClusterSettingsTest {
    @Inject
    KubeflowTrainerConfig extension;

    @Inject
    LocalTrainerSandbox localSandbox;

    @Inject
    KubernetesClient client;

    @Test
    void theTrainerSettingsReachTheExtension() {
        // %test.trainer.cluster=sandbox, %test.trainer.sandbox.start-millis=50, run-millis=200
        assertEquals(KubeflowTrainerConfig.Cluster.SANDBOX, extension.cluster());
        assertEquals(Duration.ofMillis(50), extension.sandbox().startDelay());
        assertEquals(Duration.ofMillis(200), extension.sandbox().runTime());
        assertTrue(extension.sandbox().runScripts());
        assertEquals(0, client.getConfiguration().getRequestRetryBackoffLimit(), "the component retries, not fabric8");
    }

    @Test
    void theAppActsOnQuarkusClientPointedAtTheSandbox() {
        assertEquals(localSandbox.sandbox().masterUrl(), client.getMasterUrl().toString());
        assertEquals(
                localSandbox.sandbox().client().getConfiguration().getOauthToken(),
                client.getConfiguration().getOauthToken());
    }

    @Test
    void theAppsImagePinsTheClusterSoAContainerNeverRunsTheSandbox() throws Exception {
        assertTrue(
                Files.readAllLines(Path.of("src/main/docker/Dockerfile.jvm")).contains("ENV TRAINER_CLUSTER=cluster"));
        assertTrue(Files.readString(Path.of("../deploy/configmap.yaml")).contains("trainer.cluster=cluster"));
    }
}
