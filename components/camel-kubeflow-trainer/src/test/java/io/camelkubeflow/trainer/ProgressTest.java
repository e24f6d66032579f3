package io.camelkubeflow.trainer;

import static io.camelkubeflow.trainer.KubeflowTrainerConstants.*;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.camelkubeflow.trainer.api.TrainJob;
import io.camelkubeflow.trainer.sandbox.cluster.TrainJobControllerEmulation;
import io.camelkubeflow.trainer.testing.Eventually;
import io.camelkubeflow.trainer.watch.TrainJobWaitTimeoutException;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodConditionBuilder;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BooleanSupplier;
import java.util.regex.Pattern;
import org.apache.camel.Exchange;
import org.apache.camel.Message;
import org.apache.camel.builder.RouteBuilder;
import org.junit.jupiter.api.Test;

/**
 * A running job's progress reaches routes: the trainerStatus its training code reports (on wait's result, in a timed
 * out wait's error, on Progress events), else its ready/total trainer pods on Progress events.
 */
class ProgressTest extends TrainerRouteTestSupport {
    static final Map<String, String> REPORTING = Map.of(
            TrainJobControllerEmulation.REPORT_PROGRESS_ANNOTATION,
            "true",
            TrainJobControllerEmulation.RUN_MILLIS_ANNOTATION,
            "2000",
            TrainJobControllerEmulation.LOG_LINES_ANNOTATION,
            "4");

    @Test
    void waitEndsWithTheFinalTrainerStatus() {
        String job = EventsConsumerTest.train("progress1", REPORTING, "");
        Exchange done = template.send(
                "kubeflow-trainer:wait?namespace=progress1", e -> e.getMessage().setHeader(JOB_NAME, job));
        assertNull(done.getException());
        Message out = done.getMessage();
        assertEquals("trainerStatus", out.getHeader(PROGRESS_SOURCE));
        assertEquals(100, out.getHeader(PROGRESS_PERCENT));
        assertEquals(0, out.getHeader(ESTIMATED_REMAINING_SECONDS));
        assertEquals(Map.of("loss", "0.0500"), out.getHeader(TRAINER_METRICS));
        assertNull(out.getHeader(PODS_READY));
    }

    @Test
    void aWaitThatTimesOutSaysHowFarTheJobGot() throws Exception {
        Map<String, String> slow = new HashMap<>(REPORTING);
        slow.put(TrainJobControllerEmulation.RUN_MILLIS_ANNOTATION, "20000");
        String job = EventsConsumerTest.train("progress2", slow, "");
        // once the code has reported (whenever that is on this machine), a short wait times out mid-run
        Eventually.await(
                Duration.ofSeconds(30),
                () -> {
                    TrainJob seen = api.client()
                            .resources(TrainJob.class)
                            .inNamespace("progress2")
                            .withName(job)
                            .get();
                    return seen.getStatus() != null && seen.getStatus().trainerStatus() != null;
                },
                () -> "the job never reported progress");
        Exchange timedOut = template.send(
                "kubeflow-trainer:wait?namespace=progress2&waitTimeout=300ms",
                e -> e.getMessage().setHeader(JOB_NAME, job));
        TrainJobWaitTimeoutException error =
                assertInstanceOf(TrainJobWaitTimeoutException.class, timedOut.getException());
        assertTrue(
                error.getMessage().matches(".*last seen Running, \\d+%, about \\d+ s left, loss=\\d\\.\\d+\\)"),
                error.getMessage());
    }

    @Test
    void progressEventsFollowTheReportedTrainerStatus() throws Exception {
        List<Map<String, Object>> events =
                record("progress-reported", "kubeflow-trainer:events?namespace=progress3&progressInterval=100ms");
        String job = EventsConsumerTest.train("progress3", REPORTING, "");
        awaitEvent(events, job, "Complete");
        List<Map<String, Object>> progress = events.stream()
                .filter(e -> "Progress".equals(e.get(EVENT)) && "trainerStatus".equals(e.get(PROGRESS_SOURCE)))
                .toList();
        // until the code reports, the pods are all there is to go by
        events.stream()
                .filter(e -> "Progress".equals(e.get(EVENT)))
                .takeWhile(e -> !progress.contains(e))
                .forEach(e -> assertEquals("pods", e.get(PROGRESS_SOURCE)));
        // reports spread over the run (the last at its end), looked at every 100 ms: each one seen is seen once,
        // in order (a loaded machine may look too late for one, never twice)
        List<Object> percents =
                progress.stream().map(e -> e.get(PROGRESS_PERCENT)).toList();
        assertTrue(
                !percents.isEmpty()
                        && List.of(20, 40, 60, 80, 100).containsAll(percents)
                        && percents.stream().distinct().sorted().toList().equals(percents),
                events.toString());
        progress.forEach(e -> {
            assertEquals("Running", e.get(STATUS));
            assertTrue(
                    e.get(TRAINER_METRICS) instanceof Map<?, ?> metrics && metrics.containsKey("loss"), e.toString());
        });
        progress.forEach(e -> assertTrue(
                String.valueOf(e.get("published")).matches(Pattern.quote(job) + ": \\d+%, loss \\d\\.\\d{4}"),
                e.toString()));
        Map<String, Object> complete = events.get(events.size() - 1);
        assertEquals(100, complete.get(PROGRESS_PERCENT), "the end carries the final metrics");
        assertEquals(Map.of("loss", "0.0500"), complete.get(TRAINER_METRICS));
        camel.getRouteController().stopRoute("progress-reported");
    }

    @Test
    void withoutTrainerStatusProgressIsTheReadyTrainerPods() throws Exception {
        List<Map<String, Object>> events =
                record("progress-pods", "kubeflow-trainer:events?namespace=progress4&progressInterval=100ms");
        String job = EventsConsumerTest.train(
                "progress4", Map.of(TrainJobControllerEmulation.RUN_MILLIS_ANNOTATION, "60000"), "&numNodes=3");
        awaitProgress(events, job, "3/3");
        // a node's container crashes: it is not ready until the kubelet restarts it
        Pod node = api.client()
                .pods()
                .inNamespace("progress4")
                .withLabel("jobset.sigs.k8s.io/jobset-name", job)
                .list()
                .getItems()
                .get(1);
        setReady(node, "False");
        awaitProgress(events, job, "2/3");
        setReady(node, "True");
        awaitProgress(events, job, "3/3");
        List<String> pods = events.stream()
                .filter(e -> "Progress".equals(e.get(EVENT)))
                .map(e -> e.get(PODS_READY) + "/" + e.get(PODS_TOTAL))
                .toList();
        assertEquals(List.of("3/3", "2/3", "3/3"), pods, "one event per change, none while nothing changed");
        events.stream().filter(e -> "Progress".equals(e.get(EVENT))).forEach(e -> {
            assertEquals("pods", e.get(PROGRESS_SOURCE));
            assertNull(e.get(PROGRESS_PERCENT));
        });
        camel.getRouteController().stopRoute("progress-pods");
    }

    private static List<Map<String, Object>> record(String routeId, String uri) throws Exception {
        List<Map<String, Object>> events = new CopyOnWriteArrayList<>();
        camel.addRoutes(new RouteBuilder() {
            @Override
            public void configure() {
                // the expression the docs show, to publish progress as text
                from(uri)
                        .routeId(routeId)
                        .setHeader(
                                "published",
                                simple("${header.CamelKubeflowTrainerJobName}:"
                                        + " ${header.CamelKubeflowTrainerProgressPercent}%,"
                                        + " loss ${header.CamelKubeflowTrainerTrainerMetrics[loss]}"))
                        .process(e -> events.add(new HashMap<>(e.getMessage().getHeaders())));
            }
        });
        return events;
    }

    private static void awaitEvent(List<Map<String, Object>> events, String job, String type)
            throws InterruptedException {
        await(
                events,
                () -> events.stream().anyMatch(e -> job.equals(e.get(JOB_NAME)) && type.equals(e.get(EVENT))),
                type);
    }

    private static void awaitProgress(List<Map<String, Object>> events, String job, String readyOfTotal)
            throws InterruptedException {
        int before = (int)
                events.stream().filter(e -> "Progress".equals(e.get(EVENT))).count();
        await(
                events,
                () -> {
                    List<Map<String, Object>> progress = events.stream()
                            .filter(e -> "Progress".equals(e.get(EVENT)))
                            .toList();
                    return progress.size() > before
                            && job.equals(progress.get(progress.size() - 1).get(JOB_NAME))
                            && readyOfTotal.equals(
                                    progress.get(progress.size() - 1).get(PODS_READY) + "/"
                                            + progress.get(progress.size() - 1).get(PODS_TOTAL));
                },
                readyOfTotal);
    }

    private static void await(List<Map<String, Object>> events, BooleanSupplier condition, String what)
            throws InterruptedException {
        Eventually.await(Duration.ofSeconds(20), condition, () -> "no " + what + " event; got " + events);
    }

    private static void setReady(Pod pod, String ready) {
        api.client()
                .pods()
                .inNamespace(pod.getMetadata().getNamespace())
                .withName(pod.getMetadata().getName())
                .editStatus(p -> new PodBuilder(p)
                        .editStatus()
                        .withConditions(new PodConditionBuilder()
                                .withType("Ready")
                                .withStatus(ready)
                                .build())
                        .endStatus()
                        .build());
    }
}
