package io.camelkubeflow.trainer.routes;

import java.util.Arrays;
import java.util.Map;
import java.util.stream.Collectors;

import io.camelkubeflow.trainer.KubeflowTrainerConstants;
import io.camelkubeflow.trainer.job.TrainField;
import io.camelkubeflow.trainer.support.InvalidOptionException;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Named;
import org.apache.camel.Exchange;

/**
 * The JSON message that asks the routes app for a TrainJob (an HTTP body today; a Kafka record with the Kafka route).
 * Each field becomes the kubeflow-trainer header of the same meaning, so the component validates it and names the
 * field on error; an unknown field is refused, never ignored, and a value of the wrong JSON type is refused, never
 * converted ({@link TrainField#fromJson}). The fields are the component's train fields that a
 * request message may set ({@link TrainField#inMessages()}).
 */
@ApplicationScoped
@Named("trainRequestMessage")
public class TrainRequestMessage {
    /** Message field -> component header: the train fields a request message may set. */
    static final Map<String, String> FIELDS = Arrays.stream(TrainField.values()).filter(TrainField::inMessages)
            .collect(Collectors.toUnmodifiableMap(TrainField::fieldName, KubeflowTrainerConstants::header));

    /** Sets the headers the message body (a JSON object, already read into a Map) asks for. */
    public void apply(Exchange exchange) {
        Object body = exchange.getMessage().getBody();
        if (!(body instanceof Map<?, ?> message)) {
            throw new InvalidOptionException("body", "the request must be a JSON object such as"
                    + " {\"runtime\": \"torch-distributed\", \"script\": \"print(1)\"}");
        }
        for (Map.Entry<?, ?> entry : message.entrySet()) {
            String field = String.valueOf(entry.getKey());
            String header = FIELDS.get(field);
            if (header == null) {
                throw new InvalidOptionException(field, "not a field of a train request; the fields are "
                        + FIELDS.keySet());
            }
            Object value = entry.getValue();
            if (value == null) {
                continue;
            }
            // the JSON type the field takes, never converted: 42 is not a script, 1.5 not a number of nodes
            exchange.getMessage().setHeader(header, TrainField.named(field).fromJson(value, field));
        }
    }
}
