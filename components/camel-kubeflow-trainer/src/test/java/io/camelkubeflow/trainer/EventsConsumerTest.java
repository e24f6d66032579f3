package io.camelkubeflow.trainer;

import static io.camelkubeflow.trainer.KubeflowTrainerConstants.*;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.camelkubeflow.trainer.api.TrainJob;
import io.camelkubeflow.trainer.sandbox.cluster.TrainJobControllerEmulation;
import io.camelkubeflow.trainer.testing.Eventually;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.camel.Exchange;
import org.apache.camel.builder.RouteBuilder;
import org.junit.jupiter.api.Test;

/** from("kubeflow-trainer:events"): each status change once, in order, whatever the watch goes through. */
class EventsConsumerTest extends TrainerRouteTestSupport {

    /** Starts a route that records every event of the URI, and returns the record. */
    static List<String> record(String routeId, String uri) throws Exception {
        List<String> events = new CopyOnWriteArrayList<>();
        camel.addRoutes(new RouteBuilder() {
            @Override
            public void configure() {
                from(uri)
                        .routeId(routeId)
                        .process(e -> events.add(e.getMessage().getHeader(JOB_NAME) + ":"
                                + e.getMessage().getHeader(EVENT)
                                + (e.getMessage().getHeader(REASON) == null
                                        ? ""
                                        : ":" + e.getMessage().getHeader(REASON))));
            }
        });
        return events;
    }

    static String train(String namespace, Map<String, String> annotations, String extra) {
        Exchange trained = send(
                "kubeflow-trainer:train?runtime=torch-distributed&namespace=" + namespace + "&pythonFile=/a.py" + extra,
                null,
                Map.of(ANNOTATIONS, annotations));
        assertNull(trained.getException());
        return trained.getMessage().getHeader(JOB_NAME, String.class);
    }

    /** Fails when fewer than {@code size} events came within 20 s, naming those that came. */
    static void await(List<String> events, int size) throws InterruptedException {
        Eventually.await(
                Duration.ofSeconds(20),
                () -> events.size() >= size,
                () -> "expected " + size + " events, got " + events);
    }

    /**
     * Trains a job whose Created event marks the end of what is asserted: the stream is in order, so once it is in,
     * any repeat of an earlier change would be in before it. Answers the events before it.
     */
    static List<String> untilMarker(List<String> events, String namespace) throws InterruptedException {
        return untilMarker(namespace, "", List.of(events)).get(0);
    }

    /** A marker job (with {@code extra} options) for several streams at once: each one's events before it. */
    static List<List<String>> untilMarker(String namespace, String extra, List<List<String>> streams)
            throws InterruptedException {
        String marker = train(namespace, Map.of(TrainJobControllerEmulation.RUN_MILLIS_ANNOTATION, "60000"), extra);
        Eventually.await(
                Duration.ofSeconds(20),
                () -> streams.stream().allMatch(events -> events.contains(marker + ":Created")),
                () -> "the marker's Created never came: " + streams);
        api.client()
                .resources(TrainJob.class)
                .inNamespace(namespace)
                .withName(marker)
                .delete();
        // a copy first: the events still come in, and a view of a list that changes under it fails
        return streams.stream()
                .map(List::copyOf)
                .map(events -> events.subList(0, events.indexOf(marker + ":Created")))
                .toList();
    }

    /** Waits for the end of {@code job} among the handled ends, and answers those before it. */
    static List<String> beforeEndOf(List<String> handled, String job) throws InterruptedException {
        Eventually.await(
                Duration.ofSeconds(20),
                () -> handled.stream().anyMatch(e -> e.startsWith(job + ":")),
                () -> "the end of " + job + " never came: " + handled);
        List<String> seen = List.copyOf(handled);
        return seen.subList(
                0,
                seen.indexOf(seen.stream()
                        .filter(e -> e.startsWith(job + ":"))
                        .findFirst()
                        .orElseThrow()));
    }

    /**
     * Runs a fault and waits until it is over: the namespace's TrainJob watch opened again at the API server, and every
     * watch seen connected by the component (connected alone may still be the state before the fault, and a re-watch
     * within the monitor's sampling is counted as no outage).
     */
    static void awaitRewatched(String namespace, Runnable fault) throws InterruptedException {
        KubeflowTrainerComponent component = camel.getComponent("kubeflow-trainer", KubeflowTrainerComponent.class);
        long before = api.sandbox().requestCount();
        fault.run();
        Eventually.await(
                Duration.ofSeconds(20),
                () -> api.sandbox().requestsSince(before).stream()
                                .map(r -> r.getPath())
                                .anyMatch(p -> p.contains("/namespaces/" + namespace + "/trainjobs?")
                                        && p.contains("watch=true"))
                        && component.watches().stream().allMatch(w -> w.connected()),
                () -> "the watches did not come back: " + component.watches());
    }

    @Test
    void eachStatusChangeIsEmittedOnceEvenThroughWatchFaults() throws Exception {
        List<String> events = record("events-lifecycle", "kubeflow-trainer:events?namespace=ev1");
        String job = train("ev1", Map.of(TrainJobControllerEmulation.RUN_MILLIS_ANNOTATION, "1500"), "");
        await(events, 2);
        // the watch breaks and expires mid-run: the re-list must not repeat Created or Running
        // two faults, one after the other: the watch is back from the first before the second
        awaitRewatched("ev1", () -> api.sandbox().expireWatches());
        api.sandbox().dropWatches();
        await(events, 3);
        api.client().resources(TrainJob.class).inNamespace("ev1").withName(job).delete();
        await(events, 4);
        assertEquals(
                List.of(job + ":Created", job + ":Running", job + ":Complete:AllJobsCompleted", job + ":Deleted"),
                untilMarker(events, "ev1"));
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
        List<String> replay = record(
                "events-replay", "kubeflow-trainer:events?namespace=ev3&emitExisting=true" + "&labelSelector=team=a");
        String other = train("ev3", Map.of(), "&labels.team=b");
        await(quiet, 3);
        await(replay, 1);
        // a job both streams see (team=a), after which nothing of the others comes
        List<List<String>> before = untilMarker("ev3", "&labels.team=a", List.of(quiet, replay));
        assertEquals(List.of(done + ":Complete:AllJobsCompleted"), before.get(1), "team=b is filtered out");
        assertTrue(
                before.get(0).stream().allMatch(e -> e.startsWith(other + ":")),
                "only changes after the start: " + before.get(0));
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
                // the failure is the test's own: the consumer's WARN says it, and no error handler of the route's
                // dumps it again at ERROR
                from("kubeflow-trainer:events?namespace=ev4&handledMark=results")
                        .routeId("events-handled")
                        .errorHandler(noErrorHandler())
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
            template.send(
                    "kubeflow-trainer:wait?namespace=ev4&throwOnFailure=false",
                    e -> e.getMessage().setHeader(JOB_NAME, job));
        }
        // the route fails on one of the ends it catches up on: that one is not marked, so it comes again
        refuseOnce.add(whileDown);
        camel.getRouteController().startRoute("events-handled");
        await(handled, 3);
        // a job made now ends after stillRunning (the same run time, started later): once its end is in, every end
        // caught up on or live before it is too
        List<String> caughtUp = beforeEndOf(
                handled, train("ev4", Map.of(TrainJobControllerEmulation.RUN_MILLIS_ANNOTATION, "2500"), ""));
        assertEquals(
                Set.of(failedWhileDown + ":Failed", stillRunning + ":Complete"),
                Set.copyOf(caughtUp.subList(1, caughtUp.size())),
                "caught up on the unhandled end, then the live one: " + handled);

        camel.getRouteController().stopRoute("events-handled");
        camel.getRouteController().startRoute("events-handled");
        await(handled, 5);
        List<String> again = beforeEndOf(handled, train("ev4", Map.of(), ""));
        assertEquals(whileDown + ":Complete", again.get(again.size() - 1), "the refused end comes again: " + handled);
        assertEquals(5, again.size(), "no handled end is emitted twice: " + handled);
        assertEquals(
                "Complete",
                api.client()
                        .resources(TrainJob.class)
                        .inNamespace("ev4")
                        .withName(first)
                        .get()
                        .getMetadata()
                        .getAnnotations()
                        .get("camelkubeflow.io/handled-results"));
        camel.getRouteController().stopRoute("events-handled");
    }
}
