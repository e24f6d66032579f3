package io.camelkubeflow.trainer.quarkus.deployment;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.camelkubeflow.trainer.api.TrainJob;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.quarkus.test.QuarkusUnitTest;
import jakarta.inject.Inject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.logging.Level;
import org.apache.camel.ProducerTemplate;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * With no cluster configured, the Dev Service starts the sandbox and Quarkus's client talks to it: a
 * kubeflow-trainer:train endpoint creates its TrainJob there, and the kubeconfig the start line names reaches the same sandbox.
 */
class KubeflowTrainerDevServiceTest {
    static final Path KUBECONFIG =
            Path.of("target", "dev-service-test", "sandbox.kubeconfig").toAbsolutePath();
    /** The level of the Quarkus build step that logs it cannot apply its own Dev Service's manifests. */
    static final String QUARKUS_MANIFESTS_LOG =
            "quarkus.log.category.\"io.quarkus.kubernetes.client.deployment.DevServicesKubernetesProcessor\".level";

    @RegisterExtension
    static final QuarkusUnitTest QUARKUS = new QuarkusUnitTest()
            .withEmptyApplication()
            .overrideConfigKey("quarkus.kubeflow-trainer.devservices.kubeconfig", KUBECONFIG.toString())
            .overrideConfigKey("quarkus.kubeflow-trainer.devservices.namespaces", "team-a")
            // no container engine here: the Kubernetes client's own Dev Service (k3s) is off, as it must be to get
            // the sandbox on a machine that has one
            .overrideConfigKey("quarkus.kubernetes-client.devservices.enabled", "false")
            // Quarkus (3.31, 3.33) logs an ERROR ("Cannot apply manifests ...") whenever its own Dev Service does not
            // run
            .overrideConfigKey(QUARKUS_MANIFESTS_LOG, "OFF")
            .setLogRecordPredicate(
                    record -> record.getLoggerName().equals(KubeflowTrainerDevServicesProcessor.class.getName())
                            && record.getLevel().intValue() >= Level.INFO.intValue())
            .assertLogRecords(records -> {
                List<String> lines = records.stream()
                        .map(r -> String.valueOf(r.getParameters()[1]))
                        .toList();
                assertEquals(List.of(KUBECONFIG.toString()), lines, "one start line, naming the kubeconfig");
            });

    @Inject
    KubernetesClient client;

    @Inject
    ProducerTemplate producer;

    @Test
    void aRouteTrainsOnTheSandboxTheDevServiceStarted() throws Exception {
        TrainJob sent = producer.requestBody(
                "kubeflow-trainer:train?runtime=torch-distributed&namespace=team-a" + "&pythonFile=/app/train.py",
                null,
                TrainJob.class);
        Config kubeconfig = Config.fromKubeconfig(Files.readString(KUBECONFIG));
        assertEquals(
                kubeconfig.getMasterUrl(),
                client.getMasterUrl().toString(),
                "Quarkus's client is pointed at the sandbox the kubeconfig names");
        assertEquals(kubeconfig.getAutoOAuthToken(), client.getConfiguration().getOauthToken(), "with its token");
        assertTrue(kubeconfig.getMasterUrl().startsWith("https://"), "over TLS: " + kubeconfig.getMasterUrl());
        try (KubernetesClient fromKubeconfig =
                new KubernetesClientBuilder().withConfig(kubeconfig).build()) {
            assertEquals(
                    List.of(sent.getMetadata().getName()),
                    fromKubeconfig.resources(TrainJob.class).inNamespace("team-a").list().getItems().stream()
                            .map(job -> job.getMetadata().getName())
                            .toList(),
                    "the job is in the sandbox the kubeconfig reaches");
        }
        assertEquals(
                "rw-------",
                PosixFilePermissions.toString(Files.getPosixFilePermissions(KUBECONFIG)),
                "the kubeconfig holds the admin token: its owner's only");
    }
}
