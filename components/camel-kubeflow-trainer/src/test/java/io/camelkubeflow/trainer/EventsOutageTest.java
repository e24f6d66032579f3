package io.camelkubeflow.trainer;

import static io.camelkubeflow.trainer.KubeflowTrainerConstants.EVENT;
import static io.camelkubeflow.trainer.KubeflowTrainerConstants.JOB_NAME;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.camelkubeflow.trainer.api.TrainJob;
import io.camelkubeflow.trainer.sandbox.TrainerSandbox;
import io.camelkubeflow.trainer.testing.Eventually;
import io.camelkubeflow.trainer.testing.TrainerApiServer;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.camel.CamelContext;
import org.apache.camel.builder.RouteBuilder;
import org.apache.camel.impl.DefaultCamelContext;
import org.junit.jupiter.api.Test;

/** An events route whose API server is down when it starts: it starts, and its events follow once the API answers. */
class EventsOutageTest {
    @Test
    void aRouteStartsWhileTheApiServerIsDownAndEmitsOnceItIsBack() throws Exception {
        try (TrainerSandbox sandbox = TrainerSandbox.start();
                KubernetesClient client = new KubernetesClientBuilder()
                        .withConfig(new ConfigBuilder(sandbox.client().getConfiguration())
                                .withRequestRetryBackoffLimit(0)
                                .build())
                        .build();
                CamelContext camel = new DefaultCamelContext()) {
            TrainerApiServer.createNamespaces(sandbox);
            sandbox.stopApiServer();
            camel.getComponent("kubeflow-trainer", KubeflowTrainerComponent.class)
                    .setKubernetesClient(client);
            List<String> events = new CopyOnWriteArrayList<>();
            camel.addRoutes(new RouteBuilder() {
                @Override
                public void configure() {
                    from("kubeflow-trainer:events?namespace=outage&emitExisting=true")
                            .routeId("events")
                            .process(e -> events.add(e.getMessage().getHeader(JOB_NAME) + ":"
                                    + e.getMessage().getHeader(EVENT)));
                }
            });
            camel.start();
            assertTrue(camel.getRouteController().getRouteStatus("events").isStarted());

            sandbox.startApiServer();
            sandbox.client()
                    .resources(TrainJob.class)
                    .inNamespace("outage")
                    .resource(Serialization.unmarshal("""
                    apiVersion: trainer.kubeflow.org/v1alpha1
                    kind: TrainJob
                    metadata: {name: after-outage}
                    spec: {runtimeRef: {name: torch-distributed}}
                    """, TrainJob.class))
                    .create();
            Eventually.await(
                    Duration.ofSeconds(60),
                    () -> events.contains("after-outage:Created"),
                    () -> "no event after the API server came back: " + events);
        }
    }
}
