package io.camelkubeflow.trainer.quarkus.it;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.camelkubeflow.trainer.api.TrainJob;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.quarkus.test.junit.QuarkusTest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The app, with no cluster configured, trains on the sandbox the extension's Dev Service started: the TrainJob its
 * route creates at start is in the API server the Dev Service's kubeconfig names. Run in the test's JVM here, on the
 * packaged app (JVM, or native with -Dnative) by TrainOnceIT.
 */
@QuarkusTest
class TrainOnceTest {
    static final Path KUBECONFIG = Path.of("target/dev-service.kubeconfig");

    @Test
    void theAppTrainsOnTheDevServicesSandbox() throws Exception {
        try (KubernetesClient sandbox = new KubernetesClientBuilder()
                .withConfig(Config.fromKubeconfig(Files.readString(KUBECONFIG)))
                .build()) {
            var jobs = sandbox.resources(TrainJob.class)
                    .inNamespace("default")
                    .withLabel(TrainOnceRoute.LABEL, "train-once");
            // the route runs once the app is up; the test may start before it did
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (jobs.list().getItems().isEmpty() && System.nanoTime() < deadline) {
                Thread.sleep(200);
            }
            assertEquals(
                    List.of("torch-distributed"),
                    jobs.list().getItems().stream()
                            .map(job -> job.getSpec().runtimeRef().name())
                            .toList(),
                    "the one job the route started");
        }
    }
}
