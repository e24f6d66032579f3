package io.camelkubeflow.trainer;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.camelkubeflow.trainer.api.TrainJob;
import io.camelkubeflow.trainer.api.TrainJobStatus;
import io.camelkubeflow.trainer.sandbox.TrainJobControllerEmulation;
import io.fabric8.kubernetes.api.model.ConditionBuilder;
import org.apache.camel.Exchange;
import org.junit.jupiter.api.Test;

import static io.camelkubeflow.trainer.KubeflowTrainerConstants.*;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Waits outlive watch faults: an expired watch (410 ERROR event), a dropped connection whose resumption is refused
 * with 410, and a plain drop, each while jobs complete. Every wait still ends with the right status and the watch is
 * re-established each time. (The sandbox's mock server sends the current objects on every new watch, so it cannot
 * tell a re-list from a resumed watch; fabric8's informer does the re-listing against a real API server.)
 */
class WatchFaultTest extends TrainerRouteTestSupport {
    static final String NAMESPACE = "faults";

    @Test
    void waitsEndCorrectlyThroughExpiredAndDroppedWatches() throws Exception {
        int waits = 30;
        List<String> names = new ArrayList<>();
        for (int i = 0; i < waits; i++) {
            // the emulated controller would take a minute: the test completes the jobs itself, at chosen moments
            Exchange trained = send("kubeflow-trainer:train?runtime=torch-distributed&namespace=" + NAMESPACE
                    + "&pythonFile=/app/t.py", null, Map.of(ANNOTATIONS, Map.of(
                            TrainJobControllerEmulation.RUN_MILLIS_ANNOTATION, "60000")));
            assertNull(trained.getException());
            names.add(trained.getMessage().getHeader(JOB_NAME, String.class));
        }
        api.mark();
        List<CompletableFuture<Exchange>> pending = new ArrayList<>();
        for (String name : names) {
            pending.add(template.asyncSend("kubeflow-trainer:wait?namespace=" + NAMESPACE + "&waitTimeout=60s",
                    e -> e.getMessage().setHeader(JOB_NAME, name)));
        }
        Thread.sleep(500);
        int rounds = 3;
        int[] faults = new int[rounds];
        for (int round = 0; round < rounds; round++) {
            faults[round] = switch (round) {
                // the watch expires: a 410 ERROR event, which must make the informer re-list
                case 0 -> api.sandbox().expireWatches();
                // the connection drops, and resuming it is refused with 410 once: re-list again
                case 1 -> {
                    api.sandbox().answerNextWatchesWithGone("/namespaces/" + NAMESPACE + "/trainjobs", 1);
                    yield api.sandbox().dropWatches();
                }
                // a plain drop: resume the watch
                default -> api.sandbox().dropWatches();
            };
            // jobs complete while the watch is down or being re-established
            for (int i = round; i < waits; i += rounds) {
                complete(names.get(i));
            }
            Thread.sleep(2000);
        }
        assertTrue(faults[0] >= 1 && faults[1] >= 1 && faults[2] >= 1, "faults injected: " + java.util.Arrays.toString(faults));
        for (CompletableFuture<Exchange> future : pending) {
            Exchange exchange = future.get(60, TimeUnit.SECONDS);
            assertNull(exchange.getException());
            assertEquals("Complete", exchange.getMessage().getHeader(STATUS));
        }
        long watches = api.requestsSinceMark().stream().map(r -> r.getPath())
                .filter(p -> p.contains("/namespaces/" + NAMESPACE + "/trainjobs?") && p.contains("watch=true")).count();
        assertTrue(watches > rounds, "the watch was not re-established after each fault: " + watches + " watches");
    }

    private static void complete(String name) {
        api.client().resources(TrainJob.class).inNamespace(NAMESPACE).withName(name).editStatus(job -> {
            job.setStatus(new TrainJobStatus(List.of(new ConditionBuilder().withType("Complete").withStatus("True")
                    .withReason("AllJobsCompleted").withMessage("jobset completed successfully")
                    .withLastTransitionTime("2026-12-02T00:00:00Z").build()), null));
            return job;
        });
    }
}
