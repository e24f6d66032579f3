package io.camelkubeflow.trainer.routes;

import static io.camelkubeflow.trainer.KubeflowTrainerConstants.EVENT;
import static io.camelkubeflow.trainer.KubeflowTrainerConstants.JOB_NAME;
import static io.camelkubeflow.trainer.KubeflowTrainerConstants.NAMESPACE;
import static io.camelkubeflow.trainer.KubeflowTrainerConstants.REASON;
import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.camelkubeflow.trainer.api.TrainJob;
import io.camelkubeflow.trainer.api.TrainJobStatus;
import io.camelkubeflow.trainer.job.TrainJobMetadata;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.camel.Exchange;
import org.apache.camel.cloudevents.CloudEvent;
import org.apache.camel.impl.DefaultCamelContext;
import org.apache.camel.support.DefaultExchange;
import org.junit.jupiter.api.Test;

/** The completion message: its contract's JSON, and the job's change as Camel's CloudEvent headers. */
class CompletionEventTest {
    @Test
    void aCompleteJobIsModelReadyAndAFailedOneTrainingFailedEachACloudEvent() throws Exception {
        for (String event : new String[] {"Complete", "Failed"}) {
            TrainJob job = new TrainJob();
            job.setMetadata(new ObjectMetaBuilder()
                    .withName("fraud-7")
                    .withNamespace("ml")
                    .withUid("u-1")
                    .withResourceVersion("42")
                    .build());
            Exchange exchange = new DefaultExchange(new DefaultCamelContext());
            exchange.getMessage().setBody(job);
            exchange.getMessage()
                    .setHeaders(Map.of(
                            EVENT, event, JOB_NAME, "fraud-7", NAMESPACE, "ml", REASON, "quote \" and\nnew line"));
            new CompletionEvent().of(exchange);
            String json =
                    new ObjectMapper().writeValueAsString(exchange.getMessage().getBody());
            Contracts.assertHolds(Contracts.COMPLETION, json);
            assertEquals(
                    "Complete".equals(event) ? "model-ready" : "training-failed",
                    new ObjectMapper().readTree(json).get("event").asText());
            String what = event.toLowerCase();
            assertEquals(
                    "io.camelkubeflow.trainer.trainjob." + what,
                    exchange.getMessage().getHeader(CloudEvent.CAMEL_CLOUD_EVENT_TYPE));
            assertEquals("fraud-7", exchange.getMessage().getHeader(CloudEvent.CAMEL_CLOUD_EVENT_SUBJECT));
            assertEquals("u-1/42/" + what, exchange.getMessage().getHeader(CloudEvent.CAMEL_CLOUD_EVENT_ID));
            assertEquals(
                    "/apis/trainer.kubeflow.org/v1alpha1/namespaces/ml/trainjobs",
                    exchange.getMessage().getHeader(CloudEvent.CAMEL_CLOUD_EVENT_SOURCE));
            assertEquals("application/json", exchange.getMessage().getHeader(Exchange.CONTENT_TYPE));
        }
    }

    @Test
    void modelReadyNamesWhereTheModelWentTheMetricsTheTrainingReportedAndTheDigestOfItsCode() throws Exception {
        TrainJob job = new TrainJob();
        String digest = "sha256:" + "ab".repeat(32);
        job.setMetadata(new ObjectMetaBuilder()
                .withName("fraud-8")
                .withNamespace("ml")
                .withUid("u-2")
                .withResourceVersion("7")
                .withAnnotations(Map.of(
                        TrainJobMetadata.OUTPUT_URI_ANNOTATION,
                        "s3://models/fraud/8/",
                        TrainJobMetadata.CODE_DIGEST_ANNOTATION,
                        digest))
                .build());
        job.setStatus(new TrainJobStatus(
                null,
                null,
                new TrainJobStatus.TrainerStatus(
                        100,
                        0,
                        List.of(new TrainJobStatus.Metric("loss", "0.12"), new TrainJobStatus.Metric("auc", "0.93")),
                        "2026-12-05T11:00:00Z")));
        Exchange exchange = new DefaultExchange(new DefaultCamelContext());
        exchange.getMessage().setBody(job);
        exchange.getMessage()
                .setHeaders(new HashMap<>(Map.of(EVENT, "Complete", JOB_NAME, "fraud-8", NAMESPACE, "ml")));
        new CompletionEvent().of(exchange);
        String json =
                new ObjectMapper().writeValueAsString(exchange.getMessage().getBody());
        Contracts.assertHolds(Contracts.COMPLETION, json);
        var message = new ObjectMapper().readTree(json);
        assertEquals("s3://models/fraud/8/", message.get("outputUri").asText());
        assertEquals(
                Map.of("loss", "0.12", "auc", "0.93"),
                new ObjectMapper().convertValue(message.get("metrics"), Map.class));
        assertEquals(digest, message.get("codeDigest").asText());
    }
}
