package io.camelkubeflow.trainer;

import static io.camelkubeflow.trainer.KubeflowTrainerConstants.*;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.camelkubeflow.trainer.api.TrainJob;
import io.camelkubeflow.trainer.api.TrainJobNotFoundException;
import io.camelkubeflow.trainer.sandbox.cluster.TrainJobControllerEmulation;
import io.camelkubeflow.trainer.watch.TrainJobFailedException;
import io.camelkubeflow.trainer.watch.TrainJobWaitTimeoutException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.camel.Exchange;
import org.junit.jupiter.api.Test;

/** kubeflow-trainer:wait against the sandbox, whose emulated controller runs TrainJobs in about 250 ms. */
class WaitOperationTest extends TrainerRouteTestSupport {
    static final String TRAIN = "kubeflow-trainer:train?runtime=torch-distributed&namespace=waits&pythonFile=/app/t.py";
    static final String WAIT = "kubeflow-trainer:wait";

    /** Trains, then waits in the same exchange, as a route would: train leaves the job's name in the headers. */
    static Exchange trainThenWait(String waitUri, Map<String, Object> headers) {
        Exchange trained = send(TRAIN, null, headers);
        assertNull(trained.getException());
        return template.send(waitUri, trained);
    }

    static Map<String, Object> outcome(String outcome, long runMillis) {
        return Map.of(
                ANNOTATIONS,
                Map.of(
                        TrainJobControllerEmulation.OUTCOME_ANNOTATION,
                        outcome,
                        TrainJobControllerEmulation.RUN_MILLIS_ANNOTATION,
                        Long.toString(runMillis)));
    }

    @Test
    void waitsUntilComplete() {
        Exchange exchange = trainThenWait(WAIT, Map.of());
        assertNull(exchange.getException());
        assertEquals("Complete", exchange.getMessage().getHeader(STATUS));
        assertEquals("AllJobsCompleted", exchange.getMessage().getHeader(REASON));
        assertNotNull(exchange.getMessage().getHeader(DURATION));
        TrainJob job = exchange.getMessage().getBody(TrainJob.class);
        assertEquals("Complete", job.getStatus().conditions().get(0).getType());
    }

    @Test
    void aFailureCarriesTheReasonAndThePodsExitCode() {
        Exchange exchange = trainThenWait(
                WAIT,
                Map.of(
                        ANNOTATIONS,
                        Map.of(
                                TrainJobControllerEmulation.OUTCOME_ANNOTATION, "Failed",
                                TrainJobControllerEmulation.EXIT_CODE_ANNOTATION, "137")));
        TrainJobFailedException failure = assertInstanceOf(TrainJobFailedException.class, exchange.getException());
        String name = exchange.getMessage().getHeader(JOB_NAME, String.class);
        assertTrue(
                failure.getMessage()
                        .contains("is Failed, not Complete: FailedJobs: jobset failed due to one or more job"
                                + " failures (first failed job: "
                                + name + "-node-0)"),
                failure.getMessage());
        assertTrue(failure.getMessage().contains("container node exited with code 137 (Error)"), failure.getMessage());
        assertEquals("Failed", exchange.getMessage().getHeader(STATUS));
        assertEquals("FailedJobs", exchange.getMessage().getHeader(REASON));
        assertTrue(exchange.getMessage().getHeader(POD_FAILURE, String.class).startsWith("pod " + name + "-node-0-0-"));
    }

    @Test
    void withoutThrowingTheOutcomeIsInTheHeaders() {
        Exchange exchange = trainThenWait(WAIT + "?throwOnFailure=false", outcome("Failed", 100));
        assertNull(exchange.getException());
        assertEquals("Failed", exchange.getMessage().getHeader(STATUS));
        assertEquals("FailedJobs", exchange.getMessage().getHeader(REASON));
    }

    @Test
    void waitingForFailedSucceedsOnAFailure() {
        Exchange exchange = trainThenWait(WAIT + "?waitFor=Failed", outcome("Failed", 100));
        assertNull(exchange.getException());
        assertEquals("Failed", exchange.getMessage().getHeader(STATUS));
    }

    @Test
    void runningIsSeenBeforeTheEnd() {
        Exchange exchange = trainThenWait(WAIT + "?waitFor=Running", outcome("Complete", 60_000));
        assertNull(exchange.getException());
        assertEquals("Running", exchange.getMessage().getHeader(STATUS));
    }

    @Test
    void suspendedJobsAreSeenAsSuspended() {
        Exchange trained = send(TRAIN + "&suspend=true", null, Map.of());
        Exchange exchange = template.send(WAIT + "?waitFor=Suspended", trained);
        assertNull(exchange.getException());
        assertEquals("Suspended", exchange.getMessage().getHeader(STATUS));
        assertEquals("Suspended", exchange.getMessage().getHeader(REASON));
    }

    @Test
    void aTimeoutIsItsOwnExceptionAndLeavesTheJobAlone() {
        Exchange exchange = trainThenWait(WAIT + "?waitTimeout=300ms", outcome("Complete", 60_000));
        TrainJobWaitTimeoutException timeout =
                assertInstanceOf(TrainJobWaitTimeoutException.class, exchange.getException());
        assertTrue(timeout.getMessage().contains("did not become Complete within PT0.3S"), timeout.getMessage());
        assertNotNull(stored("waits", exchange.getMessage().getHeader(JOB_NAME, String.class)));
    }

    @Test
    void deleteOnTimeoutRemovesTheJobOfAnAbandonedWait() {
        Exchange exchange =
                trainThenWait(WAIT + "?waitTimeout=300ms&deleteOnTimeout=true", outcome("Complete", 60_000));
        TrainJobWaitTimeoutException timeout =
                assertInstanceOf(TrainJobWaitTimeoutException.class, exchange.getException());
        assertTrue(
                timeout.getSuppressed().length == 1
                        && timeout.getSuppressed()[0].getMessage().endsWith("was deleted"),
                Arrays.toString(timeout.getSuppressed()));
        assertNull(stored("waits", exchange.getMessage().getHeader(JOB_NAME, String.class)));
    }

    @Test
    void aJobThatEndedBeforeTheWaitIsSeenAtOnce() throws Exception {
        Exchange trained = send(TRAIN, null, Map.of());
        String name = trained.getMessage().getHeader(JOB_NAME, String.class);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (stored("waits", name).getStatus() == null
                || stored("waits", name).getStatus().conditions() == null) {
            assertTrue(System.nanoTime() < deadline, "the sandbox never finished the job");
            Thread.sleep(20);
        }
        // no event of the job comes any more: a wait that did not look at where it stands now would time out
        Exchange exchange = template.send(
                WAIT + "?namespace=waits&waitTimeout=5s", e -> e.getMessage().setHeader(JOB_NAME, name));
        assertNull(exchange.getException());
        assertEquals("Complete", exchange.getMessage().getHeader(STATUS));
    }

    @Test
    void aMissingJobFailsClearly() {
        Exchange exchange =
                template.send(WAIT + "?namespace=waits", e -> e.getMessage().setHeader(JOB_NAME, "nope"));
        assertInstanceOf(TrainJobNotFoundException.class, exchange.getException());
        assertTrue(exchange.getException().getMessage().contains("waits/nope does not exist"));
    }

    @Test
    void manyConcurrentWaitsShareOneWatchConnection() throws Exception {
        int waits = 200;
        List<String> names = new ArrayList<>();
        for (int i = 0; i < waits; i++) {
            Exchange trained = send(
                    TRAIN.replace("namespace=waits", "namespace=crowd"),
                    null,
                    Map.of(ANNOTATIONS, Map.of(TrainJobControllerEmulation.RUN_MILLIS_ANNOTATION, "1500")));
            assertNull(trained.getException());
            names.add(trained.getMessage().getHeader(JOB_NAME, String.class));
        }
        api.mark();
        List<CompletableFuture<Exchange>> pending = new ArrayList<>();
        for (String name : names) {
            pending.add(template.asyncSend(
                    WAIT + "?namespace=crowd", e -> e.getMessage().setHeader(JOB_NAME, name)));
        }
        for (CompletableFuture<Exchange> future : pending) {
            Exchange exchange = future.get(60, TimeUnit.SECONDS);
            assertNull(exchange.getException());
            assertEquals("Complete", exchange.getMessage().getHeader(STATUS));
        }
        long watchConnections = api.requestsSinceMark().stream()
                .filter(r -> r.getPath().contains("/namespaces/crowd/trainjobs")
                        && r.getPath().contains("watch=true"))
                .count();
        assertEquals(1, watchConnections, "every wait in a namespace must share one watch");
    }
}
