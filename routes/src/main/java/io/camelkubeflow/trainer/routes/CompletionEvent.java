package io.camelkubeflow.trainer.routes;

import static io.camelkubeflow.trainer.KubeflowTrainerConstants.EVENT;
import static io.camelkubeflow.trainer.KubeflowTrainerConstants.JOB_NAME;
import static io.camelkubeflow.trainer.KubeflowTrainerConstants.NAMESPACE;
import static io.camelkubeflow.trainer.KubeflowTrainerConstants.REASON;

import io.camelkubeflow.trainer.TrainJobCloudEvents;
import io.camelkubeflow.trainer.api.TrainJob;
import io.camelkubeflow.trainer.watch.TrainJobProgress;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Named;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.camel.Exchange;
import org.apache.camel.Message;

/**
 * The message the completion route chains onward (contracts/completion.schema.json): model-ready for a Complete job,
 * training-failed for a Failed one, with the job and the reason, and what carries the result onward: where the training
 * was told to write (outputUri), the metrics it last reported (status.trainerStatus) and the digest of its code. Made as a Map and written by Jackson, so a reason or
 * name with quotes or new lines is still one valid JSON document. It is a CloudEvent too: Camel's CloudEvent headers
 * carry the attributes of the job's change (TrainJobCloudEvents.attributes, as on the Kafka results), so
 * {@code http:application-cloudevents} or {@code application-cloudevents+json} before trainer.completion.uri put it on
 * the wire as one.
 */
@ApplicationScoped
@Named("completionEvent")
public class CompletionEvent {
    /** Replaces the TrainJob event in the message with the completion message. */
    public void of(Exchange exchange) {
        Message in = exchange.getMessage();
        String event = in.getHeader(EVENT, String.class);
        TrainJob job = in.getBody(TrainJob.class);
        Map<String, Object> message = new LinkedHashMap<>();
        message.put("event", "Complete".equals(event) ? "model-ready" : "training-failed");
        message.put("trainJob", in.getHeader(JOB_NAME, String.class));
        message.put("namespace", in.getHeader(NAMESPACE, String.class));
        message.put("reason", in.getHeader(REASON, String.class));
        // what the next route needs to register, copy or deploy the model without asking where it went
        if (job != null) {
            TrainJobStatusView.putOutput(message, job);
            TrainJobProgress reported = TrainJobProgress.reported(job);
            if (reported != null && !reported.metrics().isEmpty()) {
                message.put("metrics", reported.metrics());
            }
        }
        if (job != null && job.getMetadata() != null) {
            TrainJobCloudEvents.setCamelHeaders(in, job, event);
        } else {
            in.setHeader(Exchange.CONTENT_TYPE, "application/json");
        }
        in.setBody(message);
    }
}
