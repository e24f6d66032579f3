package io.camelkubeflow.trainer.routes;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

import io.camelkubeflow.trainer.api.TrainJob;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The app as users run it, on the local sandbox: a script dropped in the inbox becomes a TrainJob. */
@QuarkusTest
class InboxRouteTest {
    static final Path INBOX = Path.of("target/test-inbox");
    static final Path OUTBOX = Path.of("target/test-outbox");

    @Inject
    KubernetesClient client;

    @Test
    void aDroppedScriptBecomesATorchrunTrainJobThatIsWaitedFor() throws Exception {
        String script = "import sys\nprint('epoch 1 loss=0.5', sys.argv)\n";
        Files.createDirectories(INBOX);
        Files.writeString(INBOX.resolve("tmp-mnist.part"), script);
        // renamed into place so the consumer never reads a half-written file
        Files.move(INBOX.resolve("tmp-mnist.part"), INBOX.resolve("mnist.py"));

        TrainJob job = awaitOneTrainJob("default");
        assertEquals("torch-distributed", job.getSpec().runtimeRef().name());
        assertEquals(List.of("torchrun", "/opt/camel-kubeflow-trainer/train.py"), job.getSpec().trainer().command());
        assertTrue(job.getMetadata().getName().startsWith("inbox-"), job.getMetadata().getName());
        ConfigMap staged = client.configMaps().inNamespace("default")
                .withName(job.getMetadata().getName() + "-script").get();
        assertEquals(script, staged.getData().get("train.py"));

        Path yaml = OUTBOX.resolve(job.getMetadata().getName() + ".yaml");
        awaitFile(yaml);
        // written after the wait: the emulated controller has completed the job
        assertTrue(Files.readString(yaml).contains("kind: \"TrainJob\""), Files.readString(yaml));
        assertTrue(Files.readString(yaml).contains("reason: \"AllJobsCompleted\""), Files.readString(yaml));
    }

    private TrainJob awaitOneTrainJob(String namespace) throws InterruptedException {
        Instant deadline = Instant.now().plus(Duration.ofSeconds(30));
        while (Instant.now().isBefore(deadline)) {
            List<TrainJob> jobs = client.resources(TrainJob.class).inNamespace(namespace).list().getItems();
            if (!jobs.isEmpty()) {
                assertEquals(1, jobs.size());
                return jobs.get(0);
            }
            Thread.sleep(100);
        }
        throw new AssertionError("no TrainJob was created within 30 s");
    }

    private static void awaitFile(Path file) throws InterruptedException {
        Instant deadline = Instant.now().plus(Duration.ofSeconds(30));
        while (!Files.exists(file) && Instant.now().isBefore(deadline)) {
            Thread.sleep(100);
        }
        assertTrue(Files.exists(file), file + " was not written");
    }
}
