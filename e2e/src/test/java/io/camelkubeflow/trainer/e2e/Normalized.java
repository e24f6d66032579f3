package io.camelkubeflow.trainer.e2e;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import java.util.Iterator;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * A JSON answer with what no two API servers can share taken out: identities and versions the server makes
 * (uid, resourceVersion, a generated name's suffix, a uid as a label's or annotation's value) and the field managers'
 * bookkeeping; every time is kept as {@code <time>}, so whether it is there (a deletionTimestamp, a condition's
 * lastTransitionTime) is compared, not when. What is left is what a client may rely on, so two answers of the same
 * request compare equal exactly when they say the same.
 */
final class Normalized {
    private static final ObjectMapper MAPPER = new ObjectMapper()
            .enable(SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS)
            .enable(SerializationFeature.INDENT_OUTPUT);
    /** Made by the server for each object, different on every server. */
    private static final Set<String> SERVER_MADE = Set.of("uid", "resourceVersion", "managedFields", "selfLink");
    /** A uid the server made, as the value of a label or an annotation (a Job's controller-uid). */
    private static final Pattern UID = Pattern.compile("[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}");

    private Normalized() {}

    /** The normalized JSON of {@code json}, indented with sorted keys, so a failed comparison shows a readable diff. */
    static String json(String json) {
        return text(tree(json));
    }

    /** The normalized tree of {@code json}. */
    static JsonNode tree(String json) {
        try {
            JsonNode tree = MAPPER.readTree(json);
            normalize(tree);
            return tree;
        } catch (JsonProcessingException e) {
            throw new AssertionError("not JSON: " + json, e);
        }
    }

    static String text(JsonNode tree) {
        try {
            // a round trip through a map sorts the keys of every object
            return MAPPER.writeValueAsString(MAPPER.treeToValue(tree, Object.class));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    private static void normalize(JsonNode node) {
        if (node instanceof ObjectNode object) {
            JsonNode prefix = object.get("generateName");
            if (prefix != null
                    && prefix.isTextual()
                    && object.path("name").asText().startsWith(prefix.asText())) {
                object.put("name", prefix.asText() + "<generated>");
            }
            for (Iterator<Map.Entry<String, JsonNode>> fields = object.fields(); fields.hasNext(); ) {
                Map.Entry<String, JsonNode> field = fields.next();
                String key = field.getKey();
                if (SERVER_MADE.contains(key)) {
                    fields.remove();
                } else if (key.endsWith("Time") || key.endsWith("Timestamp")) {
                    field.setValue(TextNode.valueOf("<time>"));
                } else if (field.getValue().isTextual()
                        && UID.matcher(field.getValue().asText()).matches()) {
                    field.setValue(TextNode.valueOf("<uid>"));
                } else {
                    normalize(field.getValue());
                }
            }
        } else if (node instanceof ArrayNode array) {
            array.forEach(Normalized::normalize);
        }
    }
}
