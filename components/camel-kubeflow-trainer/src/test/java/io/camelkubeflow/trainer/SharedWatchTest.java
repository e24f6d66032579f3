package io.camelkubeflow.trainer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.camelkubeflow.trainer.sandbox.cluster.TrainJobControllerEmulation;
import io.fabric8.mockwebserver.http.RecordedRequest;
import java.util.List;
import java.util.Map;
import org.apache.camel.Exchange;
import org.junit.jupiter.api.Test;

/**
 * A route that uses events, wait, logs and progress on one namespace opens one TrainJob watch and one pod watch for
 * it, whatever the number of waits and log reads.
 */
class SharedWatchTest extends TrainerRouteTestSupport {

    @Test
    void eventsWaitsLogsAndProgressShareOneWatchPerKind() throws Exception {
        long start = api.sandbox().requestCount();
        List<String> events = EventsConsumerTest.record(
                "shared-watch", "kubeflow-trainer:events?namespace=shared&progressInterval=100ms");
        for (int i = 0; i < 3; i++) {
            Exchange done = template.send(
                    "kubeflow-trainer:wait",
                    send(
                            "kubeflow-trainer:train?runtime=torch-distributed" + "&namespace=shared&pythonFile=/a.py",
                            null,
                            Map.of(KubeflowTrainerConstants.IDEMPOTENCY_KEY, "shared-" + i)));
            assertNull(done.getException());
            assertNull(template.send("kubeflow-trainer:logs?follow=true", done).getException());
        }
        EventsConsumerTest.await(events, 9);
        assertEquals(1, watches(start, "/namespaces/shared/trainjobs"), "TrainJob watches of the namespace");
        assertEquals(1, watches(start, "/namespaces/shared/pods"), "pod watches of the namespace");
    }

    /** Watches the component opened since {@code start} (not the emulated controller's). */
    private static long watches(long start, String path) {
        return api.sandbox().requestsSince(start).stream()
                .filter(r -> !TrainJobControllerEmulation.USER_AGENT.equals(r.getHeader("User-Agent")))
                .map(RecordedRequest::getPath)
                .filter(p -> p.contains(path) && p.contains("watch=true"))
                .count();
    }
}
