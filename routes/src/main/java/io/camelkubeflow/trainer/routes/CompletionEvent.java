package io.camelkubeflow.trainer.routes;

import java.util.LinkedHashMap;
import java.util.Map;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Named;
import org.apache.camel.Header;

import static io.camelkubeflow.trainer.KubeflowTrainerConstants.EVENT;
import static io.camelkubeflow.trainer.KubeflowTrainerConstants.JOB_NAME;
import static io.camelkubeflow.trainer.KubeflowTrainerConstants.NAMESPACE;
import static io.camelkubeflow.trainer.KubeflowTrainerConstants.REASON;

/**
 * The message the completion route chains onward (contracts/completion.schema.json): model-ready for a Complete job,
 * training-failed for a Failed one, with the job and the reason. Made as a Map and written by Jackson, so a reason or
 * name with quotes or new lines is still one valid JSON document.
 */
@ApplicationScoped
@Named("completionEvent")
public class CompletionEvent {
    public Map<String, Object> of(@Header(EVENT) String event, @Header(JOB_NAME) String job,
            @Header(NAMESPACE) String namespace, @Header(REASON) String reason) {
        Map<String, Object> message = new LinkedHashMap<>();
        message.put("event", "Complete".equals(event) ? "model-ready" : "training-failed");
        message.put("trainJob", job);
        message.put("namespace", namespace);
        message.put("reason", reason);
        return message;
    }
}
