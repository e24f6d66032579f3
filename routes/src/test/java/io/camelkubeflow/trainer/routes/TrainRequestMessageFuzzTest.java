package io.camelkubeflow.trainer.routes;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.code_intelligence.jazzer.junit.FuzzTest;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.camelkubeflow.trainer.KubeflowTrainerConstants;
import io.camelkubeflow.trainer.job.TrainField;
import io.camelkubeflow.trainer.support.InvalidOptionException;
import io.camelkubeflow.trainer.support.Printable;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Any bytes as a request message (an HTTP body, a Kafka record's value) either become the headers of a train request
 * or are refused with {@link InvalidOptionException} naming a field as the caller wrote it: never another exception,
 * and never a coercion. What is taken is checked against a reading of its own here: the bytes are UTF-8, one JSON
 * object with no name twice and no half of a surrogate pair, every field a message field, and each header the field's
 * JSON value as it was written (a number stays a number, text stays text; only a command's words are split from one
 * string, and a list may be one string of comma-separated items, as the fields say).
 */
class TrainRequestMessageFuzzTest {
    /** A plain reader: duplicates would be taken at their last value, which the scan below rules out first. */
    private static final ObjectMapper LENIENT = new ObjectMapper();

    @FuzzTest(maxDuration = "90s")
    void aMessageBecomesARequestOrIsRefusedNamingAField(byte[] message) throws IOException {
        Map<String, Object> headers;
        try {
            headers = TrainRequestMessage.headers(message);
        } catch (InvalidOptionException refused) {
            assertNamesAField(refused);
            return;
        }
        // a decoding that turns each byte that is not UTF-8 into U+FFFD does not give the bytes back
        assertTrue(
                Arrays.equals(message, new String(message, StandardCharsets.UTF_8).getBytes(StandardCharsets.UTF_8)),
                "taken, yet not UTF-8");
        JsonNode request = oneObject(message);
        Map<String, Object> wanted = new LinkedHashMap<>();
        for (Map.Entry<String, JsonNode> field : request.properties()) {
            TrainField trainField = TrainField.named(field.getKey());
            assertTrue(
                    trainField != null && trainField.inMessages(),
                    "taken, yet '" + field.getKey() + "' is no message field");
            if (!field.getValue().isNull()) {
                String header = KubeflowTrainerConstants.header(trainField);
                assertTrue(headers.containsKey(header), "'" + field.getKey() + "' was dropped: " + headers);
                assertAsWritten(trainField, field.getValue(), headers.get(header));
                wanted.put(header, headers.get(header));
            }
        }
        assertEquals(wanted, headers, "headers no field asked for");
    }

    /**
     * The field is the body, a message field (or an entry of one: {@code labels.team}), or a name the caller wrote
     * that is refused for being no field; the message begins with it.
     */
    private static void assertNamesAField(InvalidOptionException refused) {
        String field = refused.getField();
        assertNotNull(field, refused.getMessage());
        assertTrue(refused.getMessage().startsWith("Invalid '" + field + "': "), refused.getMessage());
        String root = field.contains(".") ? field.substring(0, field.indexOf('.')) : field;
        boolean known = field.equals("body") || TrainRequestMessage.FIELDS.containsKey(root);
        assertTrue(
                known
                        || refused.getMessage()
                                .startsWith("Invalid '" + field + "': not a field of a train" + " request;"),
                "'" + field + "' is not a field: " + refused.getMessage());
    }

    /**
     * The message as one JSON object, read by a parser of its own: no name twice in any object, no string or name
     * with half of a surrogate pair, nothing after the object.
     */
    private static JsonNode oneObject(byte[] message) throws IOException {
        try {
            return scannedObject(message);
        } catch (JsonProcessingException notJson) {
            throw new AssertionError("taken, yet not JSON: " + notJson.getOriginalMessage(), notJson);
        }
    }

    private static JsonNode scannedObject(byte[] message) throws IOException {
        try (JsonParser scan = LENIENT.getFactory().createParser(message)) {
            assertEquals(JsonToken.START_OBJECT, scan.nextToken(), "taken, yet not an object");
            List<Set<String>> open = new ArrayList<>();
            open.add(new HashSet<>());
            while (!open.isEmpty()) {
                JsonToken token = scan.nextToken();
                assertNotNull(token, "taken, yet unfinished");
                switch (token) {
                    case START_OBJECT -> open.add(new HashSet<>());
                    case END_OBJECT -> open.remove(open.size() - 1);
                    case FIELD_NAME -> {
                        assertWhole(scan.currentName());
                        assertTrue(
                                open.get(open.size() - 1).add(scan.currentName()),
                                "taken, yet '" + scan.currentName() + "' is given twice");
                    }
                    case VALUE_STRING -> assertWhole(scan.getText());
                    default -> {
                        // arrays, numbers, booleans, nulls: nothing to rule out
                    }
                }
            }
            assertEquals(null, scan.nextToken(), "taken, yet more follows the object");
        }
        return LENIENT.readTree(message);
    }

    private static void assertWhole(String text) {
        assertTrue(
                text.codePoints().noneMatch(c -> Character.getType(c) == Character.SURROGATE),
                "taken, yet half of a surrogate pair: " + Printable.escape(text));
    }

    /** The header holds the field's JSON value as written, of the JSON type the field takes. */
    private static void assertAsWritten(TrainField field, JsonNode written, Object header) {
        String name = field.fieldName();
        switch (field.kind()) {
            case TEXT -> {
                assertTrue(written.isTextual(), name + ": " + written + " taken as text");
                assertEquals(written.textValue(), header, name);
            }
            case INTEGER -> {
                assertTrue(
                        written.isIntegralNumber() && written.canConvertToInt(),
                        name + ": " + written + " taken as an int");
                assertEquals(written.intValue(), header, name);
            }
            case LONG -> {
                assertTrue(
                        written.isIntegralNumber() && written.canConvertToLong(),
                        name + ": " + written + " taken as a long");
                assertEquals(written.longValue(), header, name);
            }
            case BOOLEAN -> {
                assertTrue(written.isBoolean(), name + ": " + written + " taken as a boolean");
                assertEquals(written.booleanValue(), header, name);
            }
            case DECIMAL -> {
                // a JSON number of any form, as the nearest double, and only a finite one
                assertTrue(
                        written.isNumber() && Double.isFinite(written.doubleValue()),
                        name + ": " + written + " taken as a finite number");
                assertEquals(written.doubleValue(), header, name);
            }
            case WORDS -> {
                if (written.isTextual()) {
                    // a command line, split into words as a shell would: words, each of them text
                    assertTrue(
                            header instanceof List<?> words && words.stream().allMatch(String.class::isInstance),
                            name + ": " + header);
                } else {
                    assertEquals(strings(name, written), header, name);
                }
            }
            case LIST -> assertEquals(written.isTextual() ? written.textValue() : strings(name, written), header, name);
            case MAP -> {
                assertTrue(written.isObject(), name + ": " + written + " taken as an object");
                Map<String, String> entries = new LinkedHashMap<>();
                written.properties().forEach(entry -> {
                    assertTrue(
                            entry.getValue().isTextual(),
                            name + "." + entry.getKey() + ": " + entry.getValue() + " taken as text");
                    entries.put(entry.getKey(), entry.getValue().textValue());
                });
                assertEquals(entries, header, name);
            }
            default -> fail(name + " is no field of a message, yet taken: " + header);
        }
    }

    private static List<String> strings(String name, JsonNode written) {
        assertTrue(written.isArray(), name + ": " + written + " taken as a list");
        List<String> strings = new ArrayList<>();
        written.forEach(item -> {
            assertTrue(item.isTextual(), name + ": item " + item + " taken as text");
            strings.add(item.textValue());
        });
        return strings;
    }
}
