package io.camelkubeflow.trainer;

import static io.camelkubeflow.trainer.KubeflowTrainerConstants.*;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.camelkubeflow.trainer.api.TrainJob;
import io.camelkubeflow.trainer.api.TrainJobStatus;
import io.camelkubeflow.trainer.sandbox.cluster.TrainJobControllerEmulation;
import io.camelkubeflow.trainer.support.ApiRetry;
import io.camelkubeflow.trainer.testing.Eventually;
import io.camelkubeflow.trainer.testing.ReliabilityFigures;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.ConditionBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.micrometer.core.instrument.Counter;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.camel.Exchange;
import org.junit.jupiter.api.Test;

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
            Exchange trained = send(
                    "kubeflow-trainer:train?runtime=torch-distributed&namespace=" + NAMESPACE + "&pythonFile=/app/t.py",
                    null,
                    Map.of(ANNOTATIONS, Map.of(TrainJobControllerEmulation.RUN_MILLIS_ANNOTATION, "60000")));
            assertNull(trained.getException());
            names.add(trained.getMessage().getHeader(JOB_NAME, String.class));
        }
        api.mark();
        List<CompletableFuture<Exchange>> pending = new ArrayList<>();
        for (String name : names) {
            pending.add(template.asyncSend(
                    "kubeflow-trainer:wait?namespace=" + NAMESPACE + "&waitTimeout=60s",
                    e -> e.getMessage().setHeader(JOB_NAME, name)));
        }
        // every wait registered on the informer before the first fault
        Eventually.await(
                Duration.ofSeconds(30),
                () -> component().pendingWaits() >= names.size(),
                () -> component().pendingWaits() + " of " + names.size() + " waits registered");
        int rounds = 3;
        int[] faults = new int[rounds];
        for (int round = 0; round < rounds; round++) {
            long watchesBefore = watchRequests();
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
            // the next fault only once this one's outage is over (the watch opened again, at the API server, and
            // seen open by the component), so that no two faults fall into one outage however slow the machine is;
            // the 410 on resuming is a watch request too
            long reopened = watchesBefore + (round == 1 ? 2 : 1);
            Eventually.await(
                    Duration.ofSeconds(60),
                    () -> watchRequests() >= reopened
                            && meters.get("kubeflow.trainer.watch.disconnected")
                                            .gauge()
                                            .value()
                                    == 0,
                    () -> "the watch was not opened again after fault " + faults[0] + "/" + faults[1] + "/" + faults[2]
                            + ": " + watchRequests() + " watch requests");
        }
        assertTrue(faults[0] >= 1 && faults[1] >= 1 && faults[2] >= 1, "faults injected: " + Arrays.toString(faults));
        for (CompletableFuture<Exchange> future : pending) {
            Exchange exchange = future.get(60, TimeUnit.SECONDS);
            assertNull(exchange.getException());
            assertEquals("Complete", exchange.getMessage().getHeader(STATUS));
        }
        long watches = watchRequests();
        assertTrue(watches > rounds, "the watch was not re-established after each fault: " + watches + " watches");
        // each fault is its own outage; one the sampler did not see (a re-watch within its 200 ms) is not counted
        double reconnects = meters.get("kubeflow.trainer.watch.reconnects")
                .tag("watch", "trainjobs/" + NAMESPACE)
                .counter()
                .count();
        assertTrue(reconnects >= 2 && reconnects <= rounds, "watch reconnects counted: " + reconnects);
        assertEquals(
                0, meters.get("kubeflow.trainer.watch.disconnected").gauge().value());
    }

    private static KubeflowTrainerComponent component() {
        return camel.getComponent("kubeflow-trainer", KubeflowTrainerComponent.class);
    }

    /** The requests to watch the namespace's TrainJobs since the mark. */
    private long watchRequests() {
        return api.requestsSinceMark().stream()
                .map(r -> r.getPath())
                .filter(p -> p.contains("/namespaces/" + NAMESPACE + "/trainjobs?") && p.contains("watch=true"))
                .count();
    }

    @Test
    void twoHundredWaitsOutliveRepeatedDropsExpiriesAndApiServerRestarts() throws Exception {
        String namespace = "chaos";
        int waits = 200;
        List<String> names = new ArrayList<>();
        for (int i = 0; i < waits; i++) {
            Exchange trained = send(
                    "kubeflow-trainer:train?runtime=torch-distributed&namespace=" + namespace + "&pythonFile=/app/t.py",
                    null,
                    Map.of(ANNOTATIONS, Map.of(TrainJobControllerEmulation.RUN_MILLIS_ANNOTATION, "600000")));
            assertNull(trained.getException());
            names.add(trained.getMessage().getHeader(JOB_NAME, String.class));
        }
        List<CompletableFuture<Exchange>> pending = new ArrayList<>();
        for (String name : names) {
            pending.add(template.asyncSend(
                    "kubeflow-trainer:wait?namespace=" + namespace + "&waitTimeout=60s&throwOnFailure=false",
                    e -> e.getMessage().setHeader(JOB_NAME, name)));
        }
        // every wait registered on the informer before the first fault
        Eventually.await(
                Duration.ofSeconds(30),
                () -> component().pendingWaits() >= names.size(),
                () -> component().pendingWaits() + " of " + names.size() + " waits registered");
        // eight rounds, each a fault then a batch of jobs ending (every third one failing) while clients recover
        int rounds = 8;
        int faults = 0;
        int restarts = 0;
        for (int round = 0; round < rounds; round++) {
            long before = api.sandbox().requestCount();
            switch (round % 4) {
                case 0 -> faults += api.sandbox().expireWatches();
                case 1 -> {
                    api.sandbox().answerNextWatchesWithGone("/namespaces/" + namespace + "/trainjobs", 1);
                    faults += api.sandbox().dropWatches();
                }
                case 2 -> faults += api.sandbox().dropWatches();
                default -> {
                    api.sandbox().restartApiServer(Duration.ofMillis(300));
                    restarts++;
                    faults++;
                }
            }
            for (int i = round; i < waits; i += rounds) {
                end(namespace, names.get(i), i % 3 == 0 ? "Failed" : "Complete");
            }
            // the next round once this one's fault is over: the watch opened again at the API server, and every watch
            // seen connected by the component (connected alone may still be the state before the fault)
            Eventually.await(
                    Duration.ofSeconds(60),
                    () -> api.sandbox().requestsSince(before).stream()
                                    .map(r -> r.getPath())
                                    .anyMatch(p -> p.contains("/namespaces/" + namespace + "/trainjobs?")
                                            && p.contains("watch=true"))
                            && component().watches().stream().allMatch(watch -> watch.connected()),
                    () -> "the watches are not back: " + component().watches());
        }
        int right = 0;
        int wrong = 0;
        int missed = 0;
        List<String> problems = new ArrayList<>();
        for (int i = 0; i < waits; i++) {
            String expected = i % 3 == 0 ? "Failed" : "Complete";
            Exchange exchange;
            try {
                exchange = pending.get(i).get(70, TimeUnit.SECONDS);
            } catch (TimeoutException e) {
                missed++;
                problems.add(names.get(i) + " hung past its timeout");
                continue;
            }
            if (exchange.getException() != null) {
                missed++;
                problems.add(names.get(i) + ": " + exchange.getException());
            } else if (expected.equals(exchange.getMessage().getHeader(STATUS))) {
                right++;
            } else {
                wrong++;
                problems.add(names.get(i) + " ended " + exchange.getMessage().getHeader(STATUS) + ", not " + expected);
            }
        }
        // a figure, not a check: the meter exists only once an outage was long enough for the monitor to see it
        Counter outages = meters.find("kubeflow.trainer.watch.reconnects")
                .tag("watch", "trainjobs/" + namespace)
                .counter();
        double reconnects = outages == null ? 0 : outages.count();
        ReliabilityFigures.record(
                "watch faults",
                waits + " in-flight waits; " + faults + " faults injected (expired,"
                        + " 410 on resume, dropped, " + restarts + " API server restarts); " + right
                        + " ended with the right"
                        + " status, " + wrong + " wrong, " + missed + " missed or hung; " + (long) reconnects
                        + " watch outages metered (faults during an outage extend it)",
                right == waits);
        assertEquals(List.of(), problems);
    }

    private static void complete(String name) {
        end(NAMESPACE, name, "Complete");
    }

    private static void end(String namespace, String name, String outcome) {
        Condition condition = "Complete".equals(outcome)
                ? new ConditionBuilder()
                        .withType("Complete")
                        .withStatus("True")
                        .withReason("AllJobsCompleted")
                        .withMessage("jobset completed successfully")
                        .withLastTransitionTime(Instant.now().toString())
                        .build()
                : new ConditionBuilder()
                        .withType("Failed")
                        .withStatus("True")
                        .withReason("FailedJobs")
                        .withMessage("jobset failed")
                        .withLastTransitionTime(Instant.now().toString())
                        .build();
        // the API server may be restarting: the test's own writes retry too; and the emulated controller may write the
        // job's status between the test's read and its write (409): the edit is then made again on the new version
        for (int attempt = 1; ; attempt++) {
            try {
                ApiRetry.DEFAULT.call(
                        "end " + name,
                        () -> api.client()
                                .resources(TrainJob.class)
                                .inNamespace(namespace)
                                .withName(name)
                                .editStatus(job -> {
                                    job.setStatus(new TrainJobStatus(List.of(condition), null, null));
                                    return job;
                                }));
                return;
            } catch (KubernetesClientException e) {
                if (e.getCode() != 409 || attempt == 10) {
                    throw e;
                }
            }
        }
    }
}
