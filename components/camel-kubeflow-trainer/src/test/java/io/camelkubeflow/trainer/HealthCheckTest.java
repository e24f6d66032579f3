package io.camelkubeflow.trainer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.camelkubeflow.trainer.testing.TrainerApiServer;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.vertx.core.Vertx;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.camel.CamelContext;
import org.apache.camel.builder.RouteBuilder;
import org.apache.camel.health.HealthCheck;
import org.apache.camel.health.HealthCheckHelper;
import org.apache.camel.health.HealthCheckRegistry;
import org.apache.camel.impl.DefaultCamelContext;
import org.junit.jupiter.api.Test;

/** The component's readiness check: UP on a Trainer cluster, DOWN with the reason otherwise; never a liveness check. */
class HealthCheckTest {

    static HealthCheck.Result readiness(KubernetesClient client) throws Exception {
        try (CamelContext camel = new DefaultCamelContext()) {
            camel.getComponent("kubeflow-trainer", KubeflowTrainerComponent.class)
                    .setKubernetesClient(client);
            camel.addRoutes(new RouteBuilder() {
                @Override
                public void configure() {
                    from("direct:status").to("kubeflow-trainer:get?namespace=ml");
                }
            });
            camel.start();
            // every result, not only the first (Camel's default exposure)
            HealthCheckRegistry.get(camel).setExposureLevel("full");
            Collection<HealthCheck.Result> liveness = HealthCheckHelper.invokeLiveness(camel);
            assertTrue(
                    liveness.stream().noneMatch(r -> r.getCheck().getId().startsWith("kubeflow-trainer")),
                    "an unreachable API server must not restart the app");
            // the one check of the namespace (its exact id: eachNamespaceOfEachClientHas...)
            return HealthCheckHelper.invokeReadiness(camel).stream()
                    .filter(r -> r.getCheck().getId().startsWith("kubeflow-trainer:ml"))
                    .findFirst()
                    .orElseThrow();
        }
    }

    @Test
    void eachNamespaceOfEachClientHasOneCheckNamedForTheNamespaceAndNoAddress() throws Exception {
        try (TrainerApiServer api = TrainerApiServer.start();
                CamelContext camel = new DefaultCamelContext();
                KubernetesClient other = new KubernetesClientBuilder()
                        .withConfig(api.client().getConfiguration())
                        .build()) {
            camel.getComponent("kubeflow-trainer", KubeflowTrainerComponent.class)
                    .setKubernetesClient(api.client());
            camel.getRegistry().bind("other", other);
            camel.addRoutes(new RouteBuilder() {
                @Override
                public void configure() {
                    from("direct:a").to("kubeflow-trainer:get?namespace=team-a");
                    from("direct:a2").to("kubeflow-trainer:list?namespace=team-a");
                    from("direct:b").to("kubeflow-trainer:get?namespace=team-b");
                    from("direct:a-other").to("kubeflow-trainer:get?namespace=team-a&kubernetesClient=#other");
                }
            });
            camel.start();
            HealthCheckRegistry.get(camel).setExposureLevel("full");
            assertEquals(
                    List.of("kubeflow-trainer:team-a", "kubeflow-trainer:team-a#2", "kubeflow-trainer:team-b"),
                    HealthCheckHelper.invokeReadiness(camel).stream()
                            .map(r -> r.getCheck().getId())
                            .filter(id -> id.startsWith("kubeflow-trainer"))
                            .sorted()
                            .toList());
        }
    }

    /**
     * SmallRye Health calls checks on a Vert.x event loop, where the client's answer may have to come in (Quarkus's
     * client runs on Quarkus's Vert.x): there the check answers with the last probe and sends the next without waiting.
     */
    @Test
    void onAnEventLoopTheCheckAnswersWithTheLastProbeAndProbesInTheBackground() throws Exception {
        TrainerApiServer api = TrainerApiServer.start();
        Vertx vertx = Vertx.vertx();
        try {
            KubeflowTrainerHealthCheck check =
                    new KubeflowTrainerHealthCheck("kubeflow-trainer:ml", api.client(), "ml");
            check.setCamelContext(new DefaultCamelContext());
            assertEquals(HealthCheck.State.UP, check.call().getState(), "off the loop: asked and answered now");
            api.close();
            // the server is gone: a call that asked now would be DOWN; on the loop the last answer comes first
            assertEquals(HealthCheck.State.UP, onEventLoop(vertx, check).getState());
            HealthCheck.Result later = onEventLoop(vertx, check);
            for (long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
                    later.getState() == HealthCheck.State.UP && System.nanoTime() < deadline;
                    later = onEventLoop(vertx, check)) {
                Thread.sleep(50);
            }
            assertEquals(HealthCheck.State.DOWN, later.getState(), "the background probe's answer");
            assertTrue(
                    later.getMessage().orElse("").contains("does not answer"),
                    later.getMessage().orElse(""));
        } finally {
            vertx.close();
            api.close();
        }
    }

    private static HealthCheck.Result onEventLoop(Vertx vertx, HealthCheck check) throws Exception {
        CompletableFuture<HealthCheck.Result> result = new CompletableFuture<>();
        vertx.runOnContext(v -> result.complete(check.call()));
        return result.get(10, TimeUnit.SECONDS);
    }

    @Test
    void readyWhenTheApiServerHasKubeflowTrainer() throws Exception {
        try (TrainerApiServer api = TrainerApiServer.start()) {
            HealthCheck.Result result = readiness(api.client());
            assertEquals(
                    HealthCheck.State.UP, result.getState(), result.getMessage().orElse(""));
            assertEquals("ml", result.getDetails().get("namespace"));
        }
    }

    @Test
    void notReadyWhenKubeflowTrainerIsNotInstalled() throws Exception {
        // a plain API server: nothing answers for trainer.kubeflow.org
        KubernetesMockServer server = new KubernetesMockServer(false);
        server.init();
        try (KubernetesClient client = server.createClient()) {
            client.getConfiguration().setRequestRetryBackoffLimit(0);
            HealthCheck.Result result = readiness(client);
            assertEquals(HealthCheck.State.DOWN, result.getState());
            assertTrue(
                    result.getMessage().orElse("").startsWith("Kubeflow Trainer is not installed"),
                    result.getMessage().orElse(""));
        } finally {
            server.destroy();
        }
    }

    @Test
    void notReadyWhenTheApiServerDoesNotAnswer() throws Exception {
        int closedPort;
        try (ServerSocket socket = new ServerSocket(0)) {
            closedPort = socket.getLocalPort();
        }
        try (KubernetesClient client = new KubernetesClientBuilder()
                .withConfig(new ConfigBuilder()
                        .withMasterUrl("http://127.0.0.1:" + closedPort)
                        .withRequestRetryBackoffLimit(0)
                        .build())
                .build()) {
            HealthCheck.Result result = readiness(client);
            assertEquals(HealthCheck.State.DOWN, result.getState());
            assertTrue(
                    result.getMessage().orElse("").contains("does not answer"),
                    result.getMessage().orElse(""));
            // health endpoints are open: what they show names no address (the log does)
            String shown = result.getCheck().getId() + " " + result.getMessage().orElse("") + " " + result.getDetails();
            assertTrue(!shown.contains(String.valueOf(closedPort)) && !shown.contains("127.0.0.1"), shown);
        }
    }
}
