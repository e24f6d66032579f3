package io.camelkubeflow.trainer;

import static io.camelkubeflow.trainer.KubeflowTrainerConstants.*;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.camelkubeflow.trainer.testing.Eventually;
import io.camelkubeflow.trainer.testing.LeaseReplicas;
import io.camelkubeflow.trainer.testing.TrainerApiServer;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.camel.CamelContext;
import org.apache.camel.Exchange;
import org.apache.camel.builder.RouteBuilder;
import org.apache.camel.component.kubernetes.cluster.KubernetesClusterService;
import org.apache.camel.impl.DefaultCamelContext;
import org.junit.jupiter.api.Test;

/**
 * Two replicas of an app run the events route under Camel's master component with camel-kubernetes' Lease-based
 * cluster service: only the leader emits, and when it stops the other takes over.
 */
class LeaderElectionTest {

    /** The replica's pod, which the cluster service looks for among the members of the group. */
    static CamelContext replica(TrainerApiServer api, String pod, List<String> events) throws Exception {
        CamelContext camel = new DefaultCamelContext();
        // each replica has its own client, as in real life
        KubernetesClusterService cluster =
                LeaseReplicas.clusterService(api, api.client(), "le", pod, Map.of("app", "events-app"));
        camel.addService(cluster);
        camel.getComponent("kubeflow-trainer", KubeflowTrainerComponent.class).setKubernetesClient(api.client());
        camel.addRoutes(new RouteBuilder() {
            @Override
            public void configure() {
                from("master:trainjob-events:kubeflow-trainer:events?namespace=le")
                        .process(e -> events.add(pod + ":" + e.getMessage().getHeader(JOB_NAME) + ":"
                                + e.getMessage().getHeader(EVENT)));
            }
        });
        camel.start();
        return camel;
    }

    @Test
    void onlyTheLeaderEmitsAndAFollowerTakesOver() throws Exception {
        try (TrainerApiServer api = TrainerApiServer.start()) {
            List<String> events = new CopyOnWriteArrayList<>();
            CamelContext a = replica(api, "replica-a", events);
            CamelContext b = replica(api, "replica-b", events);
            try (CamelContext client = new DefaultCamelContext()) {
                client.getComponent("kubeflow-trainer", KubeflowTrainerComponent.class)
                        .setKubernetesClient(api.client());
                client.start();
                // a leader is elected within a few retry periods, and only then does its events consumer watch
                CamelContext leading = awaitWatching(a, b);
                String first = train(client);
                awaitEvent(events, first + ":Complete");
                // a job after it, through the same stream: once its end is in, nothing more of the first comes
                awaitEvent(events, train(client) + ":Complete");
                List<String> emitters = events.stream()
                        .map(e -> e.substring(0, e.indexOf(':')))
                        .distinct()
                        .toList();
                assertEquals(1, emitters.size(), "two replicas emitted: " + events);
                assertTrue(!watching(leading == a ? b : a), "the follower watches, so it could emit");
                assertEquals(
                        List.of(
                                emitters.get(0) + ":" + first + ":Created",
                                emitters.get(0) + ":" + first + ":Running",
                                emitters.get(0) + ":" + first + ":Complete"),
                        events.stream()
                                .filter(e -> e.contains(":" + first + ":"))
                                .toList(),
                        "each change once");

                String leader = emitters.get(0);
                // the leader's replica goes away, pod and all
                (leader.equals("replica-a") ? a : b).stop();
                api.client().pods().inNamespace("le").withName(leader).delete();
                String survivor = leader.equals("replica-a") ? "replica-b" : "replica-a";
                // the survivor takes the Lease once the leader's has run out, and its consumer starts watching
                awaitWatching(survivor.equals("replica-a") ? a : b);
                String second = train(client);
                awaitEvent(events, second + ":Complete");
                assertTrue(events.contains(survivor + ":" + second + ":Complete"), events.toString());
            } finally {
                a.stop();
                b.stop();
            }
        }
    }

    private static String train(CamelContext client) {
        Exchange trained = client.createProducerTemplate()
                .send("kubeflow-trainer:train?runtime=torch-distributed" + "&namespace=le&pythonFile=/a.py", e -> {});
        assertNull(trained.getException());
        return trained.getMessage().getHeader(JOB_NAME, String.class);
    }

    private static void awaitEvent(List<String> events, String suffix) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (events.stream().noneMatch(e -> e.endsWith(suffix)) && System.nanoTime() < deadline) {
            Thread.sleep(50);
        }
        assertTrue(events.stream().anyMatch(e -> e.endsWith(suffix)), "never saw " + suffix + " in " + events);
    }

    /** Waits until one of the replicas' events consumer watches the namespace's TrainJobs, and answers it. */
    private static CamelContext awaitWatching(CamelContext... replicas) throws InterruptedException {
        Eventually.await(
                Duration.ofSeconds(30),
                () -> Arrays.stream(replicas).anyMatch(LeaderElectionTest::watching),
                () -> "no replica's events consumer watches");
        return Arrays.stream(replicas)
                .filter(LeaderElectionTest::watching)
                .findFirst()
                .orElseThrow();
    }

    /** Whether the replica's events consumer watches: only the leader's starts, once it holds the Lease. */
    private static boolean watching(CamelContext replica) {
        return replica.getComponent("kubeflow-trainer", KubeflowTrainerComponent.class).watches().stream()
                .anyMatch(watch -> watch.name().equals("trainjobs/le") && watch.connected() && watch.synced());
    }
}
