package io.camelkubeflow.trainer.routes;

import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CoderResult;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Map;
import java.util.stream.Collectors;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
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
    /** Component header -> the message field that sets it, to name a refusal as the caller wrote it. */
    static final Map<String, String> FIELD_OF_HEADER = FIELDS.entrySet().stream()
            .collect(Collectors.toUnmodifiableMap(Map.Entry::getValue, Map.Entry::getKey));
    /** JSON as written: a field given twice is refused, not taken at its last value. */
    private static final ObjectMapper JSON = JsonMapper.builder()
            .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS).build();

    /**
     * Reads the message body, the bytes of a UTF-8 JSON object, and sets the headers it asks for. Bytes that are not
     * UTF-8 are refused where they are, never decoded into replacement characters.
     */
    public void read(Exchange exchange) throws JsonProcessingException {
        String json = utf8(exchange.getMessage().getBody(byte[].class));
        exchange.getMessage().setBody(JSON.readValue(json, Object.class));
        apply(exchange);
    }

    private static String utf8(byte[] body) {
        CharsetDecoder decoder = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT);
        ByteBuffer in = ByteBuffer.wrap(body);
        CharBuffer out = CharBuffer.allocate(body.length);
        CoderResult result = decoder.decode(in, out, true);
        if (!result.isError()) {
            result = decoder.flush(out);
        }
        if (result.isError()) {
            int offset = in.position();
            String before = out.flip().toString();
            throw new InvalidOptionException("body", String.format("is not UTF-8: the byte 0x%02x at offset %d"
                    + " (after '%s') is not valid there; send the request as UTF-8", body[offset] & 0xff, offset,
                    before.substring(Math.max(0, before.length() - 40))));
        }
        return out.flip().toString();
    }

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
