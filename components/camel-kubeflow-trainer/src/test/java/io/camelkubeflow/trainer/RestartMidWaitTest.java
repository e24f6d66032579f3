package io.camelkubeflow.trainer;

import static io.camelkubeflow.trainer.KubeflowTrainerConstants.*;
import static io.camelkubeflow.trainer.sandbox.cluster.TrainJobControllerEmulation.RUN_MILLIS_ANNOTATION;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.camelkubeflow.trainer.api.TrainJob;
import io.camelkubeflow.trainer.api.TrainJobPhase;
import io.camelkubeflow.trainer.testing.ReliabilityFigures;
import io.camelkubeflow.trainer.testing.TrainerApiServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.apache.camel.CamelContext;
import org.apache.camel.builder.RouteBuilder;
import org.apache.camel.impl.DefaultCamelContext;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An app stopped while it waits for a TrainJob (a file route: file -> train -> wait), then started again as a new
 * CamelContext on the same cluster and folder: the file is still there, its TrainJob is found again by the file's
 * idempotency key and waited for, and the outcome is handled once. Nothing is lost, nothing trains twice.
 */
class RestartMidWaitTest {
    @TempDir
    Path inbox;

    @Test
    void aWaitCutByShutdownResumesFromTheClusterAfterRestart() throws Exception {
        try (TrainerApiServer api = TrainerApiServer.start()) {
            Files.writeString(inbox.resolve("train.py"), "print('training')\n");
            List<String> outcomes = new CopyOnWriteArrayList<>();

            CamelContext first = app(api, outcomes);
            first.getShutdownStrategy().setTimeout(1);
            first.start();
            await(
                    () -> jobs(api).stream().anyMatch(j -> TrainJobPhase.of(j) == TrainJobPhase.RUNNING),
                    () -> "no running job");
            first.stop();
            String name = jobs(api).get(0).getMetadata().getName();
            boolean fileKept = Files.exists(inbox.resolve("train.py"));
            boolean stillRunning = !TrainJobPhase.of(jobs(api).get(0)).isTerminal();

            CamelContext second = app(api, outcomes);
            second.start();
            await(
                    () -> !outcomes.isEmpty() && Files.exists(inbox.resolve(".done/train.py")),
                    () -> "outcomes " + outcomes + ", files " + files() + ", file kept at stop: " + fileKept);
            second.stop();

            ReliabilityFigures.record(
                    "shutdown and restart (wait)",
                    "an app stopped mid-wait (1 s shutdown timeout)"
                            + " and started again: file kept " + fileKept + ", "
                            + jobs(api).size() + " TrainJob(s), outcome"
                            + " handled " + outcomes.size() + " time(s) after the restart: " + outcomes,
                    fileKept && jobs(api).size() == 1 && outcomes.equals(List.of(name + ":Complete:adopted")));
            assertTrue(fileKept, "the file of the cut wait must stay in the inbox to be read again");
            assertTrue(stillRunning, "the job should still have been running at the stop");
            assertEquals(1, jobs(api).size(), "the restarted app trained again");
            assertEquals(List.of(name + ":Complete:adopted"), outcomes);
        }
    }

    private CamelContext app(TrainerApiServer api, List<String> outcomes) throws Exception {
        CamelContext camel = new DefaultCamelContext();
        camel.getComponent("kubeflow-trainer", KubeflowTrainerComponent.class).setKubernetesClient(api.client());
        camel.addRoutes(new RouteBuilder() {
            @Override
            public void configure() {
                // no moveFailed: an exchange that failed for a passing reason (here the shutdown cutting its wait)
                // leaves its file to be read again; bad input would be handled in the route, as the inbox route does
                from("file:" + inbox + "?include=.*\\.py&move=.done/${file:name}&initialDelay=0&delay=100")
                        .setHeader(ANNOTATIONS, constant(Map.of(RUN_MILLIS_ANNOTATION, "3000")))
                        .to("kubeflow-trainer:train?runtime=torch-distributed&namespace=restart&bodyType=script")
                        .setProperty("adopted", header(ADOPTED))
                        .to("kubeflow-trainer:wait?waitTimeout=60s")
                        .process(e -> outcomes.add(e.getMessage().getHeader(JOB_NAME) + ":"
                                + e.getMessage().getHeader(STATUS) + ":"
                                + (Boolean.TRUE.equals(e.getProperty("adopted")) ? "adopted" : "created")));
            }
        });
        return camel;
    }

    private static List<TrainJob> jobs(TrainerApiServer api) {
        return api.client()
                .resources(TrainJob.class)
                .inNamespace("restart")
                .list()
                .getItems();
    }

    private List<String> files() {
        try (var walk = Files.walk(inbox)) {
            return walk.map(p -> inbox.relativize(p).toString()).toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void await(BooleanSupplier condition, Supplier<String> state) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (!condition.getAsBoolean() && System.nanoTime() < deadline) {
            Thread.sleep(50);
        }
        assertTrue(condition.getAsBoolean(), state);
    }
}
