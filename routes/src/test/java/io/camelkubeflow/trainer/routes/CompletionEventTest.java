package io.camelkubeflow.trainer.routes;

import java.util.Map;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.camelkubeflow.trainer.api.TrainJob;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import org.apache.camel.Exchange;
import org.apache.camel.cloudevents.CloudEvent;
import org.apache.camel.impl.DefaultCamelContext;
import org.apache.camel.support.DefaultExchange;
import org.junit.jupiter.api.Test;

import static io.camelkubeflow.trainer.KubeflowTrainerConstants.EVENT;
import static io.camelkubeflow.trainer.KubeflowTrainerConstants.JOB_NAME;
import static io.camelkubeflow.trainer.KubeflowTrainerConstants.NAMESPACE;
import static io.camelkubeflow.trainer.KubeflowTrainerConstants.REASON;
import static org.junit.jupiter.api.Assertions.assertEquals;

/** The completion message: its contract's JSON, and the job's change as Camel's CloudEvent headers. */
class CompletionEventTest {
    @Test
    void aCompleteJobIsModelReadyAndAFailedOneTrainingFailedEachACloudEvent() throws Exception {
        for (String event : new String[] {"Complete", "Failed"}) {
            TrainJob job = new TrainJob();
            job.setMetadata(new ObjectMetaBuilder().withName("fraud-7").withNamespace("ml").withUid("u-1")
                    .withResourceVersion("42").build());
            Exchange exchange = new DefaultExchange(new DefaultCamelContext());
            exchange.getMessage().setBody(job);
            exchange.getMessage().setHeaders(Map.of(EVENT, event, JOB_NAME, "fraud-7", NAMESPACE, "ml",
                    REASON, "quote \" and\nnew line"));
            new CompletionEvent().of(exchange);
            String json = new ObjectMapper().writeValueAsString(exchange.getMessage().getBody());
            Contracts.assertHolds(Contracts.COMPLETION, json);
            assertEquals("Complete".equals(event) ? "model-ready" : "training-failed",
                    new ObjectMapper().readTree(json).get("event").asText());
            String what = event.toLowerCase();
            assertEquals("io.camelkubeflow.trainer.trainjob." + what,
                    exchange.getMessage().getHeader(CloudEvent.CAMEL_CLOUD_EVENT_TYPE));
            assertEquals("fraud-7", exchange.getMessage().getHeader(CloudEvent.CAMEL_CLOUD_EVENT_SUBJECT));
            assertEquals("u-1/42/" + what, exchange.getMessage().getHeader(CloudEvent.CAMEL_CLOUD_EVENT_ID));
            assertEquals("/apis/trainer.kubeflow.org/v1alpha1/namespaces/ml/trainjobs",
                    exchange.getMessage().getHeader(CloudEvent.CAMEL_CLOUD_EVENT_SOURCE));
            assertEquals("application/json", exchange.getMessage().getHeader(Exchange.CONTENT_TYPE));
        }
    }
}
