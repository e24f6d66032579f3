package io.camelkubeflow.trainer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.camelkubeflow.trainer.api.TrainJob;
import io.camelkubeflow.trainer.job.TrainJobMetadata;
import io.camelkubeflow.trainer.sandbox.TrainerSandbox;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.camel.CamelContext;
import org.apache.camel.Exchange;
import org.apache.camel.builder.RouteBuilder;
import org.apache.camel.impl.DefaultCamelContext;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The W3C trace context of the exchange that creates a TrainJob (the traceparent header Camel's tracing injects
 * before each producer) is recorded on the job, and the events about the job carry it, so the route that handles
 * its end continues the same trace; a malformed one is dropped.
 */
class TracePropagationTest {
    private static final String TRACE_PARENT = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

    @Test
    @Timeout(60)
    void theEndOfAJobCarriesTheTraceContextOfTheRequestThatCreatedIt() throws Exception {
        try (TrainerSandbox sandbox = TrainerSandbox.start(TrainerSandbox.Options.defaults()
                        .withController(Duration.ofMillis(50), Duration.ofMillis(200)));
                CamelContext camel = new DefaultCamelContext()) {
            sandbox.createNamespace("trace");
            camel.getComponent("kubeflow-trainer", KubeflowTrainerComponent.class)
                    .setKubernetesClient(sandbox.client());
            List<Exchange> ends = new CopyOnWriteArrayList<>();
            camel.addRoutes(new RouteBuilder() {
                @Override
                public void configure() {
                    from("kubeflow-trainer:events?namespace=trace")
                            .filter(header(KubeflowTrainerConstants.EVENT).in("Complete", "Failed"))
                            .process(ends::add);
                }
            });
            camel.start();
            String train = "kubeflow-trainer:train?runtime=torch-distributed&namespace=trace&pythonFile=/a.py";
            Exchange traced = camel.createProducerTemplate().request(train + "&jobName=traced", e -> {
                e.getMessage().setHeader(TrainJobMetadata.TRACE_PARENT_HEADER, TRACE_PARENT);
                e.getMessage().setHeader(KubeflowTrainerConstants.IDEMPOTENCY_KEY, "traced-key");
            });
            // a retry comes in another trace: the same request all the same
            Exchange retried = camel.createProducerTemplate().request(train + "&jobName=traced", e -> {
                e.getMessage()
                        .setHeader(
                                TrainJobMetadata.TRACE_PARENT_HEADER,
                                "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01");
                e.getMessage().setHeader(KubeflowTrainerConstants.IDEMPOTENCY_KEY, "traced-key");
            });
            assertEquals(
                    true,
                    retried.getMessage().getHeader(KubeflowTrainerConstants.ADOPTED),
                    String.valueOf(retried.getException()));
            Exchange malformed = camel.createProducerTemplate()
                    .request(
                            train + "&jobName=malformed",
                            e -> e.getMessage().setHeader(TrainJobMetadata.TRACE_PARENT_HEADER, "00-xyz-01"));
            assertNull(traced.getException());
            assertNull(malformed.getException());
            assertEquals(
                    TRACE_PARENT,
                    traced.getMessage()
                            .getBody(TrainJob.class)
                            .getMetadata()
                            .getAnnotations()
                            .get(TrainJobMetadata.TRACE_PARENT_ANNOTATION));
            assertNull(malformed
                    .getMessage()
                    .getBody(TrainJob.class)
                    .getMetadata()
                    .getAnnotations()
                    .get(TrainJobMetadata.TRACE_PARENT_ANNOTATION));

            while (ends.size() < 2) {
                Thread.sleep(20);
            }
            for (Exchange end : ends) {
                String job = end.getMessage().getHeader(KubeflowTrainerConstants.JOB_NAME, String.class);
                assertEquals(
                        "traced".equals(job) ? TRACE_PARENT : null,
                        end.getMessage().getHeader(TrainJobMetadata.TRACE_PARENT_HEADER),
                        job);
            }
        }
    }
}
