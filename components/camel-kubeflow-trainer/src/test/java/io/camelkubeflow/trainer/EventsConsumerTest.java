package io.camelkubeflow.trainer;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import io.camelkubeflow.trainer.api.TrainJob;
import io.camelkubeflow.trainer.sandbox.TrainJobControllerEmulation;
import io.camelkubeflow.trainer.testing.Eventually;
import org.apache.camel.Exchange;
import org.apache.camel.builder.RouteBuilder;
import org.junit.jupiter.api.Test;

import static io.camelkubeflow.trainer.KubeflowTrainerConstants.*;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** from("kubeflow-trainer:events"): each status change once, in order, whatever the watch goes through. */
class EventsConsumerTest extends TrainerRouteTestSupport {

    /** Starts a route that records every event of the URI, and returns the record. */
    static List<String> record(String routeId, String uri) throws Exception {
        List<String> events = new CopyOnWriteArrayList<>();
        camel.addRoutes(new RouteBuilder() {
            @Override
            public void configure() {
                from(uri).routeId(routeId).process(e -> events.add(
                        e.getMessage().getHeader(JOB_NAME) + ":" + e.getMessage().getHeader(EVENT)
                                + (e.getMessage().getHeader(REASON) == null ? "" : ":" + e.getMessage().getHeader(REASON))));
            }
        });
        return events;
    }

    static String train(String namespace, Map<String, String> annotations, String extra) {
        Exchange trained = send("kubeflow-trainer:train?runtime=torch-distributed&namespace=" + namespace
                + "&pythonFile=/a.py" + extra, null, Map.of(ANNOTATIONS, annotations));
        assertNull(trained.getException());
        return trained.getMessage().getHeader(JOB_NAME, String.class);
    }

    /** Fails when fewer than {@code size} events came within 20 s, naming those that came. */
    static void await(List<String> events, int size) throws InterruptedException {
        Eventually.await(Duration.ofSeconds(20), () -> events.size() >= size,
                () -> "expected " + size + " events, got " + events);
    }

    @Test
    void eachStatusChangeIsEmittedOnceEvenThroughWatchFaults() throws Exception {
        List<String> events = record("events-lifecycle", "kubeflow-trainer:events?namespace=ev1");
        String job = train("ev1", Map.of(TrainJobControllerEmulation.RUN_MILLIS_ANNOTATION, "1500"), "");
        await(events, 2);
        // the watch breaks and expires mid-run: the re-list must not repeat Created or Running
        api.sandbox().expireWatches();
        Thread.sleep(300);
        api.sandbox().dropWatches();
        await(events, 3);
        Thread.sleep(1500);
        api.client().resources(TrainJob.class).inNamespace("ev1").withName(job).delete();
        await(events, 4);
        Thread.sleep(300);
        assertEquals(List.of(job + ":Created", job + ":Running", job + ":Complete:AllJobsCompleted", job + ":Deleted"),
                events);
        camel.getRouteController().stopRoute("events-lifecycle");
    }

    @Test
    void failuresCarryTheirReason() throws Exception {
        List<String> events = record("events-failure", "kubeflow-trainer:events?namespace=ev2");
        String job = train("ev2", Map.of(TrainJobControllerEmulation.OUTCOME_ANNOTATION, "Failed"), "");
        await(events, 3);
        assertEquals(job + ":Failed:FailedJobs", events.get(events.size() - 1), events.toString());
        camel.getRouteController().stopRoute("events-failure");
    }

    @Test
    void existingJobsAreReportedOnlyWhenAskedAndSelectorsFilter() throws Exception {
        String done = train("ev3", Map.of(), "&labels.team=a");
        template.send("kubeflow-trainer:wait?namespace=ev3", e -> e.getMessage().setHeader(JOB_NAME, done));

        List<String> quiet = record("events-quiet", "kubeflow-trainer:events?namespace=ev3");
        List<String> replay = record("events-replay", "kubeflow-trainer:events?namespace=ev3&emitExisting=true"
                + "&labelSelector=team=a");
        String other = train("ev3", Map.of(), "&labels.team=b");
        await(quiet, 3);
        await(replay, 1);
        Thread.sleep(500);
        assertEquals(List.of(done + ":Complete:AllJobsCompleted"), replay, "team=b is filtered out");
        assertTrue(quiet.stream().allMatch(e -> e.startsWith(other + ":")), "only changes after the start: " + quiet);
        camel.getRouteController().stopRoute("events-quiet");
        camel.getRouteController().stopRoute("events-replay");
    }

    @Test
    void endsThatHappenWhileTheRouteIsStoppedAreHandledOnceItStartsAgain() throws Exception {
        List<String> handled = new CopyOnWriteArrayList<>();
        List<String> refuseOnce = new CopyOnWriteArrayList<>();
        camel.addRoutes(new RouteBuilder() {
            @Override
            public void configure() {
                from("kubeflow-trainer:events?namespace=ev4&handledMark=results").routeId("events-handled")
                        .filter(header(EVENT).in("Complete", "Failed"))
                        .process(e -> {
                            String job = e.getMessage().getHeader(JOB_NAME, String.class);
                            if (job.equals(refuseOnce.isEmpty() ? null : refuseOnce.get(0))) {
                                refuseOnce.clear();
                                throw new IllegalStateException("result topic unavailable");
                            }
                            handled.add(job + ":" + e.getMessage().getHeader(EVENT));
                        });
            }
        });
        String first = train("ev4", Map.of(), "");
        await(handled, 1);
        assertEquals(List.of(first + ":Complete"), handled);

        camel.getRouteController().stopRoute("events-handled");
        String whileDown = train("ev4", Map.of(), "");
        String failedWhileDown = train("ev4", Map.of(TrainJobControllerEmulation.OUTCOME_ANNOTATION, "Failed"), "");
        String stillRunning = train("ev4", Map.of(TrainJobControllerEmulation.RUN_MILLIS_ANNOTATION, "2500"), "");
        for (String job : List.of(whileDown, failedWhileDown)) {
            template.send("kubeflow-trainer:wait?namespace=ev4&throwOnFailure=false",
                    e -> e.getMessage().setHeader(JOB_NAME, job));
        }
        // the route fails on one of the ends it catches up on: that one is not marked, so it comes again
        refuseOnce.add(whileDown);
        camel.getRouteController().startRoute("events-handled");
        await(handled, 3);
        Thread.sleep(300);
        assertEquals(java.util.Set.of(failedWhileDown + ":Failed", stillRunning + ":Complete"),
                java.util.Set.copyOf(handled.subList(1, handled.size())),
                "caught up on the unhandled end, then the live one: " + handled);

        camel.getRouteController().stopRoute("events-handled");
        camel.getRouteController().startRoute("events-handled");
        await(handled, 4);
        Thread.sleep(500);
        assertEquals(whileDown + ":Complete", handled.get(handled.size() - 1), "the refused end comes again: " + handled);
        assertEquals(4, handled.size(), "no handled end is emitted twice: " + handled);
        assertEquals("Complete", api.client().resources(TrainJob.class).inNamespace("ev4").withName(first).get()
                .getMetadata().getAnnotations().get("camelkubeflow.io/handled-results"));
        camel.getRouteController().stopRoute("events-handled");
    }
}
