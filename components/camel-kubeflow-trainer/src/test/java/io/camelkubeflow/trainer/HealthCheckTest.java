package io.camelkubeflow.trainer;

import java.net.ServerSocket;
import java.util.Collection;

import io.camelkubeflow.trainer.testing.TrainerApiServer;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import org.apache.camel.CamelContext;
import org.apache.camel.builder.RouteBuilder;
import org.apache.camel.health.HealthCheck;
import org.apache.camel.health.HealthCheckHelper;
import org.apache.camel.impl.DefaultCamelContext;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The component's readiness check: UP on a Trainer cluster, DOWN with the reason otherwise; never a liveness check. */
class HealthCheckTest {

    static HealthCheck.Result readiness(KubernetesClient client) throws Exception {
        try (CamelContext camel = new DefaultCamelContext()) {
            camel.getComponent("kubeflow-trainer", KubeflowTrainerComponent.class).setKubernetesClient(client);
            camel.addRoutes(new RouteBuilder() {
                @Override
                public void configure() {
                    from("direct:status").to("kubeflow-trainer:get?namespace=ml");
                }
            });
            camel.start();
            Collection<HealthCheck.Result> liveness = HealthCheckHelper.invokeLiveness(camel);
            assertTrue(liveness.stream().noneMatch(r -> r.getCheck().getId().equals("kubeflow-trainer")),
                    "an unreachable API server must not restart the app");
            return HealthCheckHelper.invokeReadiness(camel).stream()
                    .filter(r -> r.getCheck().getId().equals("kubeflow-trainer")).findFirst().orElseThrow();
        }
    }

    @Test
    void readyWhenTheApiServerHasKubeflowTrainer() throws Exception {
        try (TrainerApiServer api = TrainerApiServer.start()) {
            HealthCheck.Result result = readiness(api.client());
            assertEquals(HealthCheck.State.UP, result.getState(), result.getMessage().orElse(""));
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
            assertTrue(result.getMessage().orElse("").startsWith("Kubeflow Trainer is not installed"),
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
        try (KubernetesClient client = new KubernetesClientBuilder().withConfig(new io.fabric8.kubernetes.client
                .ConfigBuilder().withMasterUrl("http://127.0.0.1:" + closedPort).withRequestRetryBackoffLimit(0)
                .build()).build()) {
            HealthCheck.Result result = readiness(client);
            assertEquals(HealthCheck.State.DOWN, result.getState());
            assertTrue(result.getMessage().orElse("").contains("does not answer"), result.getMessage().orElse(""));
        }
    }
}
