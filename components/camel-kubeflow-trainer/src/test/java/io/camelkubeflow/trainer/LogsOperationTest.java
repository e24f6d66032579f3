package io.camelkubeflow.trainer;

import static io.camelkubeflow.trainer.KubeflowTrainerConstants.*;
import static io.camelkubeflow.trainer.sandbox.cluster.TrainJobControllerEmulation.JOBSET_NAME_LABEL;
import static io.camelkubeflow.trainer.sandbox.cluster.TrainJobControllerEmulation.LOG_LINES_ANNOTATION;
import static io.camelkubeflow.trainer.sandbox.cluster.TrainJobControllerEmulation.RUN_MILLIS_ANNOTATION;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.camelkubeflow.trainer.api.TrainJob;
import io.camelkubeflow.trainer.logs.LogNotStartedException;
import io.camelkubeflow.trainer.logs.LogStartTimeoutException;
import io.camelkubeflow.trainer.sandbox.cluster.TrainJobControllerEmulation;
import io.camelkubeflow.trainer.testing.Eventually;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.camel.Exchange;
import org.apache.camel.builder.RouteBuilder;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * kubeflow-trainer:logs against the sandbox, whose pods log a start line, "step=i of n" lines and an exit line. The
 * sandbox ends every follow stream at the current end of the log, so following proves resumption without repeats.
 */
class LogsOperationTest extends TrainerRouteTestSupport {
    static final List<Exchange> LINES = new CopyOnWriteArrayList<>();

    @BeforeAll
    static void lineRoute() throws Exception {
        camel.addRoutes(new RouteBuilder() {
            @Override
            public void configure() {
                from("direct:lines").process(LINES::add);
                // its failure is the test's point: the logs operation reports it, Camel need not log it as an ERROR
                from("direct:refuseThirdLine").errorHandler(noErrorHandler()).process(e -> {
                    LINES.add(e);
                    if (LINES.size() == 3) {
                        throw new IllegalStateException("disk full");
                    }
                });
            }
        });
    }

    static Exchange train(String runtime, String extra, int logLines, long runMillis) {
        Exchange trained = send(
                "kubeflow-trainer:train?runtime=" + runtime + "&namespace=logs" + extra,
                null,
                Map.of(
                        ANNOTATIONS,
                        Map.of(
                                LOG_LINES_ANNOTATION,
                                Integer.toString(logLines),
                                RUN_MILLIS_ANNOTATION,
                                Long.toString(runMillis))));
        assertNull(trained.getException());
        return trained;
    }

    static List<String> expectedLines(int logLines, int exitCode) {
        List<String> lines = new ArrayList<>();
        for (int i = 1; i <= logLines; i++) {
            lines.add("step=" + i + " of " + logLines);
        }
        lines.add("sandbox: exited with code " + exitCode);
        return lines;
    }

    /** Follows the job's log while a proxy breaks every stream after {@code lines} lines. */
    static Exchange followWithStreamsCutAfter(int lines, Exchange trained) {
        api.sandbox().podLogs().cutFollowsAfter(lines);
        try {
            return template.send("kubeflow-trainer:logs?follow=true", trained);
        } finally {
            api.sandbox().podLogs().cutFollowsAfter(0);
        }
    }

    static List<String> bodyLines(Exchange exchange) {
        assertNull(exchange.getException());
        String body = exchange.getMessage().getBody(String.class);
        return List.of(body.split("\n"));
    }

    @Test
    void readsAFinishedStepsLog() {
        Exchange exchange = template.send(
                "kubeflow-trainer:logs",
                template.send("kubeflow-trainer:wait", train("torch-distributed", "&pythonFile=/a.py", 5, 300)));
        List<String> lines = bodyLines(exchange);
        assertTrue(lines.get(0).startsWith("sandbox: ") && lines.get(0).contains("-node-0-0-"), lines.get(0));
        assertEquals(expectedLines(5, 0), lines.subList(1, lines.size()));
        assertEquals(7L, exchange.getMessage().getHeader(LOG_LINES));
        assertEquals(false, exchange.getMessage().getHeader(LOG_TRUNCATED));
    }

    @Test
    void followingWaitsForThePodAndResumesBrokenStreamsWithoutRepeatsOrGaps() {
        Exchange trained = train("torch-distributed", "&pythonFile=/a.py", 25, 2500);
        // a proxy that breaks every stream after 7 lines
        api.mark();
        List<String> lines = bodyLines(followWithStreamsCutAfter(7, trained));
        assertEquals(expectedLines(25, 0), lines.subList(1, lines.size()));
        long reads = api.requestsSinceMark().stream()
                .filter(r -> r.getPath().contains("/log?"))
                .count();
        assertTrue(reads > 2, "the follow should have resumed several times, read " + reads + " times");
    }

    @Test
    void followingAFinishedJobReadsItsFinalLogWithoutTimestampsAndResumesABreakWithoutRepeatsOrGaps() {
        Exchange finished =
                template.send("kubeflow-trainer:wait", train("torch-distributed", "&pythonFile=/a.py", 30, 300));
        api.mark();
        api.sandbox().podLogs().breakNextAnswerAfter(10);
        Exchange followed;
        try {
            followed = template.send("kubeflow-trainer:logs?follow=true", finished);
        } finally {
            api.sandbox().podLogs().breakNextAnswerAfter(0);
        }
        List<String> lines = bodyLines(followed);
        assertEquals(expectedLines(30, 0), lines.subList(1, lines.size()));
        List<String> reads = api.requestsSinceMark().stream()
                .map(r -> r.getPath())
                .filter(p -> p.contains("/log?"))
                .toList();
        assertEquals(2, reads.size(), "one read broken after 10 lines, one read again: " + reads);
        assertTrue(reads.stream().noneMatch(p -> p.contains("timestamps=") || p.contains("follow=")), reads.toString());
    }

    @Test
    void aStreamBrokenAmongLinesOfOneTimestampResumesWithoutRepeatsOrGaps() {
        Exchange trained = train("torch-distributed", "&pythonFile=/a.py", 2, 4000);
        Exchange running = template.send("kubeflow-trainer:wait?waitFor=Running", trained);
        assertNull(running.getException());
        String pod = api
                .client()
                .pods()
                .inNamespace("logs")
                .withLabel(JOBSET_NAME_LABEL, trained.getMessage().getHeader(JOB_NAME, String.class))
                .list()
                .getItems()
                .stream()
                .filter(p -> p.getMetadata().getName().contains("-node-0-0-"))
                .findFirst()
                .orElseThrow()
                .getMetadata()
                .getName();
        List<String> burst = new ArrayList<>();
        for (int i = 1; i <= 20; i++) {
            burst.add("burst line " + i);
        }
        // 20 lines of one timestamp; every stream breaks after 3 lines, so each resume starts inside the burst
        api.sandbox().podLogs().appendBurst("logs", pod, burst);
        List<String> lines = bodyLines(followWithStreamsCutAfter(3, trained));
        assertEquals(
                burst, lines.stream().filter(l -> l.startsWith("burst line ")).toList());
        assertEquals(
                expectedLines(2, 0),
                lines.stream().filter(l -> !l.startsWith("burst line ")).skip(1).toList());
    }

    @Test
    void followingRidesOutAnApiServerOutageWithoutRepeatsOrGaps() throws Exception {
        Exchange trained = train("torch-distributed", "&pythonFile=/a.py", 30, 6000);
        // as the app's client: fabric8's own retries off, the component's bounded ones only
        camel.getRegistry()
                .bind(
                        "clientWithoutRetries",
                        new KubernetesClientBuilder()
                                .withConfig(new ConfigBuilder(api.client().getConfiguration())
                                        .withRequestRetryBackoffLimit(0)
                                        .build())
                                .build());
        api.mark();
        CompletableFuture<Exchange> follow = CompletableFuture.supplyAsync(() ->
                template.send("kubeflow-trainer:logs?follow=true&kubernetesClient=#clientWithoutRetries", trained));
        Eventually.await(
                Duration.ofSeconds(30),
                () -> api.requestsSinceMark().stream().anyMatch(r -> r.getPath().contains("/log?")),
                () -> "the follow never read the log");
        // longer than the follow's old give-up point (5 broken streams 200 ms apart)
        api.sandbox().restartApiServer(Duration.ofSeconds(3));
        List<String> lines = bodyLines(follow.get(60, TimeUnit.SECONDS));
        assertEquals(expectedLines(30, 0), lines.subList(1, lines.size()));
    }

    @Test
    void everyStepCanBeRead() {
        Exchange torchtune = train("torchtune-llama3.2-1b", "&args=epochs=1", 2, 200);
        template.send("kubeflow-trainer:wait", torchtune);
        for (String step : List.of("dataset-initializer", "model-initializer", "node-0")) {
            Exchange exchange = template.send("kubeflow-trainer:logs", e -> {
                e.getMessage().setHeaders(new HashMap<>(torchtune.getMessage().getHeaders()));
                e.getMessage().setHeader(LOG_STEP, step);
            });
            List<String> lines = bodyLines(exchange);
            assertTrue(lines.get(0).contains("-" + step.replace("node-0", "node-0-0") + "-"), lines.get(0));
        }

        Exchange deepspeed = train("deepspeed-distributed", "&pythonFile=/ds.py&numNodes=3", 3, 200);
        template.send("kubeflow-trainer:wait", deepspeed);
        Exchange trainer = template.send("kubeflow-trainer:logs", deepspeed);
        assertTrue(bodyLines(trainer).get(0).contains("-launcher-0-0-"), "MPI logs come from the launcher by default");
        Exchange node1 = template.send("kubeflow-trainer:logs?logStep=node-1", deepspeed);
        assertTrue(
                bodyLines(node1).get(0).contains("-node-0-1-"), bodyLines(node1).get(0));
    }

    @Test
    void allRanksAreMergedWithTheirStepAsPrefix() {
        Exchange exchange = template.send(
                "kubeflow-trainer:logs?logStep=all&follow=true",
                train("deepspeed-distributed", "&pythonFile=/ds.py&numNodes=3", 4, 800));
        List<String> lines = bodyLines(exchange);
        for (String step : List.of("launcher", "node-0", "node-1")) {
            List<String> ofStep = lines.stream()
                    .filter(l -> l.startsWith("[" + step + "] "))
                    .map(l -> l.substring(step.length() + 3))
                    .toList();
            assertEquals(expectedLines(4, 0), ofStep.subList(1, ofStep.size()), step + " in " + lines);
        }
        assertEquals(3 * 6, lines.size());
    }

    @Test
    void linesGoToADestinationAsTheyAreReadAndTheBodyKeepsTheTail() {
        LINES.clear();
        Exchange exchange = template.send(
                "kubeflow-trainer:logs?follow=true&logDestination=direct:lines" + "&maxLogBytes=40",
                train("torch-distributed", "&pythonFile=/a.py", 8, 600));
        assertEquals(10, LINES.size());
        assertEquals("step=1 of 8", LINES.get(1).getMessage().getBody(String.class));
        assertEquals("node-0", LINES.get(1).getMessage().getHeader(LOG_STEP));
        assertEquals(true, exchange.getMessage().getHeader(LOG_TRUNCATED));
        assertEquals(10L, exchange.getMessage().getHeader(LOG_LINES));
        assertEquals(List.of("step=8 of 8", "sandbox: exited with code 0"), bodyLines(exchange));
    }

    @Test
    void aFailingDestinationFailsTheReadAtOnceInsteadOfResumingPastTheLine() {
        LINES.clear();
        Exchange trained = train("torch-distributed", "&pythonFile=/a.py", 8, 600);
        Exchange exchange =
                template.send("kubeflow-trainer:logs?follow=true&logDestination=direct:refuseThirdLine", trained);
        assertTrue(
                exchange.getException().getMessage().contains("logDestination direct:refuseThirdLine failed")
                        && exchange.getException().getMessage().contains("disk full"),
                exchange.getException().getMessage());
        assertEquals(3, LINES.size(), "no line after the refused one is sent");
    }

    @Test
    void tailLinesKeepsTheEnd() {
        Exchange trained =
                template.send("kubeflow-trainer:wait", train("torch-distributed", "&pythonFile=/a.py", 6, 200));
        assertEquals(
                List.of("step=6 of 6", "sandbox: exited with code 0"),
                bodyLines(template.send("kubeflow-trainer:logs?tailLines=2", trained)));
    }

    @Test
    void aPodThatNeverStartsTimesOut() {
        Exchange suspended = send(
                "kubeflow-trainer:train?runtime=torch-distributed&namespace=logs&pythonFile=/a.py" + "&suspend=true",
                null,
                Map.of());
        Exchange exchange = template.send("kubeflow-trainer:logs?logStartTimeout=300ms", suspended);
        assertInstanceOf(LogStartTimeoutException.class, exchange.getException());
    }

    /**
     * kubectl logs of a container waiting to start answers at once: so does a read told not to wait, and it reads a
     * started pod's log as any read does. (Before, a zero timeout timed out: LogStartTimeoutException.)
     */
    @Test
    void withNoStartTimeoutAReadOfPodsNotStartedFailsAtOnceAndOfStartedOnesReadsTheirLog() {
        Exchange suspended = send(
                "kubeflow-trainer:train?runtime=torch-distributed&namespace=logs&pythonFile=/a.py" + "&suspend=true",
                null,
                Map.of());
        Exchange refused = template.send("kubeflow-trainer:logs?logStartTimeout=0", suspended);
        assertInstanceOf(LogNotStartedException.class, refused.getException());
        assertTrue(
                refused.getException()
                        .getMessage()
                        .contains("TrainJob logs/" + suspended.getMessage().getHeader(JOB_NAME) + " matching"),
                refused.getException().getMessage());

        Exchange ended =
                template.send("kubeflow-trainer:wait", train("torch-distributed", "&pythonFile=/a.py", 3, 200));
        List<String> lines = bodyLines(template.send("kubeflow-trainer:logs?logStartTimeout=0", ended));
        assertEquals(expectedLines(3, 0), lines.subList(1, lines.size()));
    }

    /**
     * all reads the nodes and the launcher, never the initializers: told not to wait, a read of a job whose initializers
     * have ended while its node pod waits (for a ConfigMap never made) fails at once as not started, as for one step.
     * (Before, the ended initializer counted as started, and the read answered with no line, as if the log were empty.)
     */
    @Test
    void withNoStartTimeoutAllStepsOfAJobWhoseNodesHaveNotStartedFailAtOnceThoughItsInitializersRan() throws Exception {
        Exchange trained = send(
                "kubeflow-trainer:train?runtime=torchtune-llama3.2-1b&namespace=logs&args=epochs=1"
                        + "&volumes=configMap:never-made:/settings",
                null,
                Map.of());
        assertNull(trained.getException());
        String name = trained.getMessage().getHeader(JOB_NAME, String.class);
        try {
            Eventually.await(
                    Duration.ofMinutes(2),
                    () -> initializersEndedAndNodesPending(name),
                    () -> "the initializers never ended before the node");
            Exchange read = template.send("kubeflow-trainer:logs?logStartTimeout=0&logStep=all", trained);
            assertInstanceOf(
                    LogNotStartedException.class,
                    read.getException(),
                    () -> "answered: " + read.getMessage().getBody(String.class));
        } finally {
            api.client()
                    .resources(TrainJob.class)
                    .inNamespace("logs")
                    .withName(name)
                    .delete();
        }
    }

    private static boolean initializersEndedAndNodesPending(String name) {
        Map<Boolean, List<String>> phases =
                api.client().pods().inNamespace("logs").withLabel(JOBSET_NAME_LABEL, name).list().getItems().stream()
                        .collect(Collectors.partitioningBy(
                                pod -> pod.getMetadata()
                                        .getLabels()
                                        .get(TrainJobControllerEmulation.REPLICATED_JOB_LABEL)
                                        .endsWith("-initializer"),
                                Collectors.mapping(pod -> pod.getStatus().getPhase(), Collectors.toList())));
        return !phases.get(true).isEmpty()
                && phases.get(true).stream().allMatch("Succeeded"::equals)
                && !phases.get(false).isEmpty()
                && phases.get(false).stream().allMatch("Pending"::equals);
    }

    @Test
    void followingARestartedContainerKeepsTheEndOfTheCrashedAttempt() {
        followARestartedContainer(0);
    }

    /** As a kubelet may: the new container logs for a while before the pod's status reports the restart. */
    @Test
    void followingKeepsTheEndOfTheCrashedAttemptWhenTheRestartIsReportedLate() {
        followARestartedContainer(1000);
    }

    private static void followARestartedContainer(long statusDelayMillis) {
        Exchange trained = send(
                "kubeflow-trainer:train?runtime=torch-distributed&namespace=logs&pythonFile=/a.py",
                null,
                Map.of(
                        ANNOTATIONS,
                        Map.of(
                                LOG_LINES_ANNOTATION,
                                "20",
                                RUN_MILLIS_ANNOTATION,
                                "3000",
                                TrainJobControllerEmulation.RESTARTS_ANNOTATION,
                                "1",
                                TrainJobControllerEmulation.RESTART_STATUS_DELAY_ANNOTATION,
                                Long.toString(statusDelayMillis))));
        List<String> lines = bodyLines(template.send("kubeflow-trainer:logs?follow=true", trained));
        List<String> steps = lines.stream().filter(l -> l.startsWith("step=")).toList();
        assertEquals(expectedLines(20, 0).subList(0, 20), steps, "every step once, in order: " + lines);
        int crash = lines.indexOf("sandbox: crashed (attempt 1)");
        assertTrue(crash > 0 && lines.get(crash + 1).equals("sandbox: restarted (attempt 2)"), lines.toString());
        assertEquals("sandbox: exited with code 0", lines.get(lines.size() - 1));
    }
}
