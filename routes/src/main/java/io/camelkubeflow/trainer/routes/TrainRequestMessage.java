package io.camelkubeflow.trainer.routes;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import io.camelkubeflow.trainer.KubeflowTrainerConstants;
import io.camelkubeflow.trainer.job.InvalidTrainRequestException;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Named;
import org.apache.camel.Exchange;

/**
 * The JSON message that asks the routes app for a TrainJob (an HTTP body today; a Kafka record with the Kafka route).
 * Each field becomes the kubeflow-trainer header of the same meaning, so the component validates it and names the
 * field on error; an unknown field is refused, never ignored.
 */
@ApplicationScoped
@Named("trainRequestMessage")
public class TrainRequestMessage {
    /** Message field -> component header. */
    static final Map<String, String> FIELDS = fields();

    private static Map<String, String> fields() {
        Map<String, String> fields = new LinkedHashMap<>();
        fields.put("runtime", KubeflowTrainerConstants.RUNTIME);
        fields.put("runtimeKind", KubeflowTrainerConstants.RUNTIME_KIND);
        fields.put("image", KubeflowTrainerConstants.IMAGE);
        fields.put("launcher", KubeflowTrainerConstants.LAUNCHER);
        fields.put("script", KubeflowTrainerConstants.SCRIPT);
        fields.put("scriptFileName", KubeflowTrainerConstants.SCRIPT_FILE_NAME);
        fields.put("command", KubeflowTrainerConstants.COMMAND);
        fields.put("pythonFile", KubeflowTrainerConstants.PYTHON_FILE);
        fields.put("args", KubeflowTrainerConstants.ARGS);
        fields.put("packages", KubeflowTrainerConstants.PACKAGES);
        fields.put("pipIndexUrls", KubeflowTrainerConstants.PIP_INDEX_URLS);
        fields.put("env", KubeflowTrainerConstants.ENV);
        fields.put("numNodes", KubeflowTrainerConstants.NUM_NODES);
        fields.put("numProcPerNode", KubeflowTrainerConstants.NUM_PROC_PER_NODE);
        fields.put("cpu", KubeflowTrainerConstants.CPU);
        fields.put("memory", KubeflowTrainerConstants.MEMORY);
        fields.put("gpu", KubeflowTrainerConstants.GPU);
        fields.put("resources", KubeflowTrainerConstants.RESOURCES);
        fields.put("labels", KubeflowTrainerConstants.LABELS);
        fields.put("annotations", KubeflowTrainerConstants.ANNOTATIONS);
        fields.put("datasetUri", KubeflowTrainerConstants.DATASET_URI);
        fields.put("datasetSecret", KubeflowTrainerConstants.DATASET_SECRET);
        fields.put("modelUri", KubeflowTrainerConstants.MODEL_URI);
        fields.put("modelSecret", KubeflowTrainerConstants.MODEL_SECRET);
        fields.put("activeDeadlineSeconds", KubeflowTrainerConstants.ACTIVE_DEADLINE_SECONDS);
        fields.put("suspend", KubeflowTrainerConstants.SUSPEND);
        fields.put("namespace", KubeflowTrainerConstants.NAMESPACE);
        fields.put("jobName", KubeflowTrainerConstants.JOB_NAME);
        fields.put("idempotencyKey", KubeflowTrainerConstants.IDEMPOTENCY_KEY);
        fields.put("runKey", KubeflowTrainerConstants.RUN_KEY);
        return Map.copyOf(fields);
    }

    /** Values that must be text; the others (lists, maps, numbers, booleans) are handed on as they are. */
    private static final Set<String> TEXT_FIELDS = Set.of("runtime", "runtimeKind", "image", "launcher", "script",
            "scriptFileName", "pythonFile", "cpu", "memory", "gpu", "datasetUri", "datasetSecret", "modelUri",
            "modelSecret", "namespace", "jobName", "idempotencyKey", "runKey");

    /** Sets the headers the message body (a JSON object, already read into a Map) asks for. */
    public void apply(Exchange exchange) {
        Object body = exchange.getMessage().getBody();
        if (!(body instanceof Map<?, ?> message)) {
            throw new InvalidTrainRequestException("body", "the request must be a JSON object such as"
                    + " {\"runtime\": \"torch-distributed\", \"script\": \"print(1)\"}");
        }
        for (Map.Entry<?, ?> entry : message.entrySet()) {
            String field = String.valueOf(entry.getKey());
            String header = FIELDS.get(field);
            if (header == null) {
                throw new InvalidTrainRequestException(field, "not a field of a train request; the fields are "
                        + FIELDS.keySet());
            }
            Object value = entry.getValue();
            if (value == null) {
                continue;
            }
            if (TEXT_FIELDS.contains(field) && (value instanceof Map || value instanceof List)) {
                throw new InvalidTrainRequestException(field, "must be a string, not " + (value instanceof Map
                        ? "an object" : "a list"));
            }
            exchange.getMessage().setHeader(header, TEXT_FIELDS.contains(field) ? value.toString() : value);
        }
    }
}
