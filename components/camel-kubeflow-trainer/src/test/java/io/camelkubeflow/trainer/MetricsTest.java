package io.camelkubeflow.trainer;

import static io.camelkubeflow.trainer.KubeflowTrainerConstants.*;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.camelkubeflow.trainer.access.Access;
import io.camelkubeflow.trainer.access.AccessDeniedException;
import io.camelkubeflow.trainer.access.AccessReviewer;
import io.camelkubeflow.trainer.access.Caller;
import io.camelkubeflow.trainer.sandbox.cluster.TrainJobControllerEmulation;
import io.camelkubeflow.trainer.support.ApiRetry;
import io.camelkubeflow.trainer.testing.TrainerApiServer;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.camel.CamelContext;
import org.apache.camel.Exchange;
import org.apache.camel.ProducerTemplate;
import org.apache.camel.impl.DefaultCamelContext;
import org.junit.jupiter.api.Test;

/** The meters a MeterRegistry in the Camel registry receives from train and wait. */
class MetricsTest {
    @Test
    void trainAndWaitAreCountedAndTimedByRuntimeAndOutcome() throws Exception {
        SimpleMeterRegistry meters = new SimpleMeterRegistry();
        try (TrainerApiServer api = TrainerApiServer.start();
                CamelContext camel = new DefaultCamelContext()) {
            camel.getRegistry().bind("meters", meters);
            camel.getComponent("kubeflow-trainer", KubeflowTrainerComponent.class)
                    .setKubernetesClient(api.client());
            camel.start();
            ProducerTemplate template = camel.createProducerTemplate();
            String train = "kubeflow-trainer:train?runtime=torch-distributed&namespace=metrics&pythonFile=/app/t.py";
            Exchange ok = template.send(train, e -> e.getMessage().setHeader(IDEMPOTENCY_KEY, "m1"));
            template.send(train, e -> e.getMessage().setHeader(IDEMPOTENCY_KEY, "m1"));
            Exchange failing = template.send(train, e -> {
                e.getMessage().setHeader(IDEMPOTENCY_KEY, "m2");
                e.getMessage().setHeader(ANNOTATIONS, Map.of(TrainJobControllerEmulation.OUTCOME_ANNOTATION, "Failed"));
            });
            assertNull(template.send("kubeflow-trainer:wait", ok).getException());
            template.send("kubeflow-trainer:wait?throwOnFailure=false", failing);
            Exchange suspended =
                    template.send(train + "&suspend=true", e -> e.getMessage().setHeader(IDEMPOTENCY_KEY, "m3"));
            template.send("kubeflow-trainer:wait?waitTimeout=50ms", suspended);

            assertEquals(
                    3,
                    meters.get("kubeflow.trainer.trainjobs")
                            .tag("outcome", "created")
                            .tag("runtime", "torch-distributed")
                            .counter()
                            .count());
            assertEquals(
                    1,
                    meters.get("kubeflow.trainer.trainjobs")
                            .tag("outcome", "adopted")
                            .counter()
                            .count());
            assertEquals(
                    1,
                    meters.get("kubeflow.trainer.trainjobs.ended")
                            .tag("status", "Complete")
                            .counter()
                            .count());
            assertEquals(
                    1,
                    meters.get("kubeflow.trainer.trainjobs.ended")
                            .tag("status", "Failed")
                            .counter()
                            .count());
            assertEquals(
                    1,
                    meters.get("kubeflow.trainer.run")
                            .tag("status", "Complete")
                            .timer()
                            .count());
            assertTrue(meters.get("kubeflow.trainer.wait")
                            .tag("status", "Failed")
                            .timer()
                            .totalTime(TimeUnit.MILLISECONDS)
                    > 0);
            assertEquals(
                    1, meters.get("kubeflow.trainer.wait.timeouts").counter().count());
            assertEquals(
                    0, meters.get("kubeflow.trainer.waits.inflight").gauge().value());
        }
    }

    /**
     * One object per client, closed as one: every client's access reviews are counted (a meter per client counted the
     * first client only), a released client's reviewer and its kept answers are dropped (they were kept for good),
     * and its reviews stay counted.
     */
    @Test
    void accessReviewsOfEveryClientAreCountedAndAReleasedClientsReviewerGoesWithIt() throws Exception {
        SimpleMeterRegistry meters = new SimpleMeterRegistry();
        try (TrainerApiServer api = TrainerApiServer.start();
                CamelContext camel = new DefaultCamelContext();
                KubernetesClient second = new KubernetesClientBuilder()
                        .withConfig(api.client().getConfiguration())
                        .build()) {
            KubeflowTrainerComponent component = startedWith(camel, meters, api);
            AccessReviewer first = component.accessReviewerFor(api.client(), ApiRetry.DEFAULT);
            AccessReviewer other = component.accessReviewerFor(second, ApiRetry.DEFAULT);
            for (AccessReviewer reviewer : List.of(first, other)) {
                assertThrows(AccessDeniedException.class, () -> reviewer.check(ALICE, READ));
                assertThrows(AccessDeniedException.class, () -> reviewer.check(ALICE, READ));
            }
            assertEquals(
                    2,
                    meters.get("kubeflow.trainer.access.reviews")
                            .tag("result", "reviewed")
                            .functionCounter()
                            .count(),
                    "one review asked per client");
            assertEquals(
                    2,
                    meters.get("kubeflow.trainer.access.reviews")
                            .tag("result", "cached")
                            .functionCounter()
                            .count(),
                    "one kept answer per client");

            component.releaseClient(second);
            assertEquals(
                    2,
                    meters.get("kubeflow.trainer.access.reviews")
                            .tag("result", "reviewed")
                            .functionCounter()
                            .count(),
                    "a released client's reviews stay counted");
            assertNotSame(
                    other,
                    component.accessReviewerFor(second, ApiRetry.DEFAULT),
                    "the released client's reviewer, with its kept answers, was kept");
            assertSame(first, component.accessReviewerFor(api.client(), ApiRetry.DEFAULT));
        }
    }

    /** The component of a started context whose registry holds {@code meters}, on the API server's client. */
    private static KubeflowTrainerComponent startedWith(
            CamelContext camel, SimpleMeterRegistry meters, TrainerApiServer api) {
        camel.getRegistry().bind("meters", meters);
        KubeflowTrainerComponent component = camel.getComponent("kubeflow-trainer", KubeflowTrainerComponent.class);
        component.setKubernetesClient(api.client());
        camel.start();
        return component;
    }

    private static final Caller ALICE = new Caller("alice", List.of());
    private static final Access READ = Access.trainJobs("get", "metrics", null);

    /** A component stopped and started again on the same registry is read by the meters, not the stopped one. */
    @Test
    void aRestartedComponentsMetersReadTheNewComponent() throws Exception {
        SimpleMeterRegistry meters = new SimpleMeterRegistry();
        try (TrainerApiServer api = TrainerApiServer.start();
                CamelContext camel = new DefaultCamelContext()) {
            KubeflowTrainerComponent component = startedWith(camel, meters, api);
            AccessReviewer before = component.accessReviewerFor(api.client(), ApiRetry.DEFAULT);
            assertThrows(AccessDeniedException.class, () -> before.check(ALICE, READ));
            assertEquals(
                    1,
                    meters.get("kubeflow.trainer.access.reviews")
                            .tag("result", "reviewed")
                            .functionCounter()
                            .count());

            component.stop();
            component.start();
            AccessReviewer after = component.accessReviewerFor(api.client(), ApiRetry.DEFAULT);
            assertThrows(AccessDeniedException.class, () -> after.check(new Caller("bob", List.of()), READ));
            assertThrows(AccessDeniedException.class, () -> after.check(new Caller("carol", List.of()), READ));
            assertEquals(
                    2,
                    meters.get("kubeflow.trainer.access.reviews")
                            .tag("result", "reviewed")
                            .functionCounter()
                            .count(),
                    "the restarted component's reviews, counted from its start");
            assertEquals(
                    1, meters.find("kubeflow.trainer.waits.inflight").gauges().size());
        }
    }

    /** Two components on one registry: the one that stops leaves the other's meters in place. */
    @Test
    void aComponentThatStopsLeavesAnotherComponentsMeters() throws Exception {
        SimpleMeterRegistry meters = new SimpleMeterRegistry();
        try (TrainerApiServer api = TrainerApiServer.start();
                CamelContext camel = new DefaultCamelContext()) {
            KubeflowTrainerComponent first = startedWith(camel, meters, api);
            KubeflowTrainerComponent second = new KubeflowTrainerComponent();
            second.setKubernetesClient(api.client());
            second.setMeterRegistry(meters);
            camel.addComponent("kubeflow-trainer-second", second);
            second.start();
            second.stop();
            assertEquals(
                    1, meters.find("kubeflow.trainer.waits.inflight").gauges().size());
            assertEquals(
                    2,
                    meters.find("kubeflow.trainer.access.reviews")
                            .functionCounters()
                            .size());
            AccessReviewer reviewer = first.accessReviewerFor(api.client(), ApiRetry.DEFAULT);
            assertThrows(AccessDeniedException.class, () -> reviewer.check(ALICE, READ));
            assertEquals(
                    1,
                    meters.get("kubeflow.trainer.access.reviews")
                            .tag("result", "reviewed")
                            .functionCounter()
                            .count(),
                    "the first component's reviews, counted");
        }
    }

    /** Counters of rare events are there at zero before the first one, so Prometheus's rate() has a series. */
    @Test
    void waitTimeoutsAndEachWatchsReconnectsAndStopsAreCountedFromZero() throws Exception {
        SimpleMeterRegistry meters = new SimpleMeterRegistry();
        try (TrainerApiServer api = TrainerApiServer.start();
                CamelContext camel = new DefaultCamelContext()) {
            camel.getRegistry().bind("meters", meters);
            camel.getComponent("kubeflow-trainer", KubeflowTrainerComponent.class)
                    .setKubernetesClient(api.client());
            camel.start();
            assertEquals(
                    0, meters.get("kubeflow.trainer.wait.timeouts").counter().count());
            assertNull(meters.find("kubeflow.trainer.watch.reconnects").counter(), "no watch yet");

            ProducerTemplate template = camel.createProducerTemplate();
            Exchange suspended = template.send(
                    "kubeflow-trainer:train?runtime=torch-distributed&namespace=zeros"
                            + "&pythonFile=/app/t.py&suspend=true",
                    e -> e.getMessage().setHeader(IDEMPOTENCY_KEY, "z1"));
            template.send("kubeflow-trainer:wait?waitTimeout=50ms", suspended);
            var reconnects = meters.find("kubeflow.trainer.watch.reconnects").counters();
            assertTrue(!reconnects.isEmpty(), "the watches the train and wait started are counted before any loss");
            reconnects.forEach(
                    counter -> assertEquals(0, counter.count(), counter.getId().toString()));
            var stops = meters.find("kubeflow.trainer.watch.stops").counters();
            assertEquals(reconnects.size(), stops.size(), "each watch's stops are counted from zero too");
            stops.forEach(
                    counter -> assertEquals(0, counter.count(), counter.getId().toString()));
        }
    }
}
