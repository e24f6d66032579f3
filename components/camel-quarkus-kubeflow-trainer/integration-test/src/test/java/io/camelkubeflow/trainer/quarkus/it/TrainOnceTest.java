package io.camelkubeflow.trainer.quarkus.it;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.camelkubeflow.trainer.api.TrainJob;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.quarkus.test.junit.QuarkusTest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The app, with no cluster configured, trains on the sandbox the extension's Dev Service started: the TrainJob it
 * creates at start is in the API server the Dev Service's kubeconfig names. Run in the test's JVM here, on the
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
                    .withLabel(TrainOnceAtStart.LABEL, "train-once");
            // Camel starts the job once it is up, which the test may come before: it waits for the job to be seen
            List<TrainJob> started =
                    jobs.informOnCondition(seen -> !seen.isEmpty()).get(30, TimeUnit.SECONDS);
            assertEquals(
                    List.of("torch-distributed"),
                    started.stream()
                            .map(job -> job.getSpec().runtimeRef().name())
                            .toList(),
                    "the one job the app started");
        }
    }
}
