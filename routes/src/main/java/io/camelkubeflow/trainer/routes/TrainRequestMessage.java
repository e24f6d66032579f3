package io.camelkubeflow.trainer.routes;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import io.camelkubeflow.trainer.KubeflowTrainerConstants;
import io.camelkubeflow.trainer.job.TrainField;
import io.camelkubeflow.trainer.support.InvalidOptionException;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Named;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CoderResult;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.apache.camel.Exchange;

/**
 * The JSON message that asks the routes app for a TrainJob: an HTTP body or a Kafka record's value, read by
 * {@link #read}. Each field becomes the kubeflow-trainer header of the same meaning, so the component validates it and
 * names the field on error; an unknown field is refused, never ignored, and a value of the wrong JSON type is refused,
 * never converted ({@link TrainField#fromJson}). The fields are the component's train fields that a request message
 * may set ({@link TrainField#inMessages()}).
 */
@ApplicationScoped
@Named("trainRequestMessage")
public class TrainRequestMessage {
    /** Message field -> component header: the train fields a request message may set. */
    static final Map<String, String> FIELDS = Arrays.stream(TrainField.values())
            .filter(TrainField::inMessages)
            .collect(Collectors.toUnmodifiableMap(TrainField::fieldName, KubeflowTrainerConstants::header));
    /** Component header -> the message field that sets it, to name a refusal as the caller wrote it. */
    static final Map<String, String> FIELD_OF_HEADER =
            FIELDS.entrySet().stream().collect(Collectors.toUnmodifiableMap(Map.Entry::getValue, Map.Entry::getKey));
    /**
     * The message field a refusal names as the caller wrote it: the field of a component header, or of a header's entry
     * ({@code CamelKubeflowTrainerSecurityContext.runAsUser} is {@code securityContext.runAsUser}); null for a name
     * that is no header's.
     */
    static String fieldOf(String name) {
        String field = FIELD_OF_HEADER.get(name);
        int dot = name.indexOf('.');
        if (field == null && dot > 0 && FIELD_OF_HEADER.containsKey(name.substring(0, dot))) {
            field = FIELD_OF_HEADER.get(name.substring(0, dot)) + name.substring(dot);
        }
        return field;
    }

    /** The tokens of JSON text; what they may make (one value, no name twice) {@link #json} says. */
    private static final JsonFactory JSON = JsonFactory.builder().build();

    private static final String EXAMPLE = "{\"runtime\": \"torch-distributed\", \"script\": \"print(1)\"}";

    /**
     * Reads the message body, the bytes of one UTF-8 JSON object, and sets the headers it asks for; anything else is
     * refused with {@link InvalidOptionException} naming the field at fault ({@code body} for the whole).
     */
    public void read(Exchange exchange) {
        headers(exchange.getMessage().getBody(byte[].class)).forEach(exchange.getMessage()::setHeader);
    }

    /**
     * The component headers the bytes of a request message ask for. The bytes must be one JSON object as written:
     * UTF-8, no name given twice in any object (not taken at its last value) and nothing after the object; what it
     * holds is then read as {@link #fieldHeaders} says.
     */
    static Map<String, Object> headers(byte[] body) {
        if (body == null || body.length == 0) {
            throw new InvalidOptionException("body", "the request is empty; send a JSON object such as " + EXAMPLE);
        }
        utf8(body, "body");
        return fieldHeaders(json(body));
    }

    /**
     * The bytes as UTF-8 text: a byte that is not UTF-8 is refused where it is, naming the field that holds it, never
     * decoded into a replacement character.
     */
    static String utf8(byte[] body, String field) {
        CharsetDecoder decoder = StandardCharsets.UTF_8
                .newDecoder()
                .onMalformedInput(CodingErrorAction.REPORT)
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
            throw new InvalidOptionException(
                    field,
                    String.format(
                            "is not UTF-8: the byte 0x%02x at offset %d"
                                    + " (after '%s') is not valid there; write it as UTF-8",
                            body[offset] & 0xff, offset, before.substring(Math.max(0, before.length() - 40))));
        }
        return out.flip().toString();
    }

    /**
     * The one JSON value the bytes (UTF-8) hold, as maps, lists, strings, numbers, booleans and nulls. Parsed as bytes:
     * Jackson's parser of text takes a letter beyond ASCII for a hex digit in a {@code \\u} escape (it masks a char to
     * its low byte: {@code \\ud79}+U+0563 read as {@code \\ud79c}). Its parser of bytes guesses UTF-16 or UTF-32 from
     * NUL bytes at the start and skips a byte order mark, so neither reaches it.
     */
    private static Object json(byte[] body) {
        if (body.length >= 3 && (body[0] & 0xff) == 0xef && (body[1] & 0xff) == 0xbb && (body[2] & 0xff) == 0xbf) {
            throw new InvalidOptionException(
                    "body",
                    "begins with a byte order mark (EF BB BF), which JSON text does"
                            + " not have; send the JSON object alone");
        }
        for (int offset = 0; offset < body.length; offset++) {
            if (body[offset] == 0) {
                throw new InvalidOptionException(
                        "body",
                        "holds a NUL byte at offset " + offset + ", which JSON text"
                                + " never has (in a string it is written \\u0000); send the JSON object as UTF-8");
            }
        }
        try (JsonParser parser = JSON.createParser(body)) {
            if (parser.nextToken() == null) {
                throw new InvalidOptionException("body", "holds no JSON value; send a JSON object such as " + EXAMPLE);
            }
            Object value = value(parser, null);
            if (parser.nextToken() != null) {
                throw new InvalidOptionException(
                        "body",
                        "holds more than one JSON value: another begins at " + where(parser.currentTokenLocation())
                                + "; send one object");
            }
            return value;
        } catch (JsonProcessingException notJson) {
            throw new InvalidOptionException(
                    "body",
                    "is not JSON: " + notJson.getOriginalMessage() + " at " + where(notJson.getLocation())
                            + "; send a JSON object such as " + EXAMPLE,
                    notJson);
        } catch (IOException unreadable) {
            // text in memory: the parser reads nothing else
            throw new IllegalStateException(unreadable);
        }
    }

    private static String where(JsonLocation location) {
        return location == null ? "the end" : "line " + location.getLineNr() + ", column " + location.getColumnNr();
    }

    /**
     * The value at the parser's current token.
     *
     * @param field where it is, named as {@link TrainField#fromJson} names it ({@code labels.team}); null for the body
     */
    private static Object value(JsonParser parser, String field) throws IOException {
        return switch (parser.currentToken()) {
            case START_OBJECT -> object(parser, field);
            case START_ARRAY -> array(parser, field);
            case VALUE_STRING -> parser.getText();
            case VALUE_NUMBER_INT, VALUE_NUMBER_FLOAT -> parser.getNumberValue();
            case VALUE_TRUE -> Boolean.TRUE;
            case VALUE_FALSE -> Boolean.FALSE;
            // JSON text has no other value: the parser reports names and ends of objects and arrays only in them
            default -> null;
        };
    }

    private static Map<String, Object> object(JsonParser parser, String field) throws IOException {
        Map<String, Object> object = new LinkedHashMap<>();
        while (parser.nextToken() == JsonToken.FIELD_NAME) {
            // a name the request does not know is refused as such before its value is read
            String name = field == null ? messageField(parser.currentName()) : parser.currentName();
            String named = field == null ? name : field + "." + name;
            if (object.containsKey(name)) {
                throw new InvalidOptionException(
                        named, "is given twice; give each field once (JSON readers" + " differ on which one counts)");
            }
            parser.nextToken();
            object.put(name, value(parser, named));
        }
        return object;
    }

    private static List<Object> array(JsonParser parser, String field) throws IOException {
        List<Object> array = new ArrayList<>();
        while (parser.nextToken() != JsonToken.END_ARRAY) {
            array.add(value(parser, field));
        }
        return array;
    }

    /**
     * The value, unless some text of it holds half of a surrogate pair: a lone {@code \ud800} escape (JSON's or
     * YAML's) is no character, and would reach the cluster as '?'.
     *
     * @param value a value of a field's kind: text, a list of text, a map of text, a number or a flag
     */
    private static Object wholeCharacters(String field, Object value) {
        if (value instanceof String text) {
            text.codePoints()
                    .filter(c -> Character.getType(c) == Character.SURROGATE)
                    .findFirst()
                    .ifPresent(half -> {
                        throw new InvalidOptionException(
                                field,
                                String.format(
                                        "holds \\u%04x, half of a surrogate pair,"
                                                + " which is no character (UTF-8 cannot carry it); write the whole character, or both halves"
                                                + " of its \\u escape pair",
                                        half));
                    });
        } else if (value instanceof List<?> items) {
            items.forEach(item -> wholeCharacters(field, item));
        } else if (value instanceof Map<?, ?> entries) {
            entries.forEach((key, item) -> {
                wholeCharacters(field, key);
                wholeCharacters(field + "." + key, item);
            });
        }
        return value;
    }

    /** Sets the headers the message body, already read into a Map (a workspace's manifest), asks for. */
    public void apply(Exchange exchange) {
        fieldHeaders(exchange.getMessage().getBody()).forEach(exchange.getMessage()::setHeader);
    }

    /**
     * The component headers a message read into Java values (a JSON body, a workspace's YAML manifest) asks for: each
     * field of its object as its kind, of whole characters.
     */
    private static Map<String, Object> fieldHeaders(Object message) {
        if (!(message instanceof Map<?, ?> fields)) {
            throw new InvalidOptionException("body", "the request must be a JSON object such as " + EXAMPLE);
        }
        Map<String, Object> headers = new LinkedHashMap<>();
        for (Map.Entry<?, ?> entry : fields.entrySet()) {
            String field = messageField(String.valueOf(entry.getKey()));
            Object value = entry.getValue();
            if (value != null) {
                // the JSON type the field takes, never converted: 42 is not a script, 1.5 not a number of nodes; the
                // text as sent is checked, as a command's words split like a shell would could join two halves
                headers.put(FIELDS.get(field), TrainField.named(field).fromJson(wholeCharacters(field, value), field));
            }
        }
        return headers;
    }

    /** The name, if it is a field a request message may set. */
    private static String messageField(String name) {
        if (!FIELDS.containsKey(name)) {
            throw new InvalidOptionException(name, "not a field of a train request; the fields are " + FIELDS.keySet());
        }
        return name;
    }
}
