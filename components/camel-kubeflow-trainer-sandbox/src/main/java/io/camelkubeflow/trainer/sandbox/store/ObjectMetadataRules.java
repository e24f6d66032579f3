package io.camelkubeflow.trainer.sandbox.store;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.TextNode;
import java.nio.charset.StandardCharsets;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * What the API server checks in any object's metadata, whatever its kind (apimachinery's ValidateObjectMeta): label
 * keys are qualified names and values at most 63 characters of the label alphabet; annotation keys are qualified
 * names and all annotations together at most 256 KiB.
 */
final class ObjectMetadataRules {
    /** Annotations' keys and values together, in bytes (TotalAnnotationSizeLimitB). */
    static final int ANNOTATIONS_LIMIT = 256 * 1024;

    private static final Pattern NAME = Pattern.compile("([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]");
    private static final Pattern SUBDOMAIN =
            Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*");

    private ObjectMetadataRules() {}

    static void check(JsonNode metadata, List<String> out) {
        for (String field : List.of("labels", "annotations")) {
            JsonNode map = metadata.path(field);
            if (!map.isMissingNode() && !map.isNull() && !(map.isObject() && allText(map))) {
                out.add("metadata." + field + ": must be an object of strings");
                return;
            }
        }
        for (Iterator<Map.Entry<String, JsonNode>> labels =
                        metadata.path("labels").fields();
                labels.hasNext(); ) {
            Map.Entry<String, JsonNode> label = labels.next();
            qualifiedName(label.getKey(), "metadata.labels", out);
            String value = label.getValue().asText();
            if (value.length() > 63 || !value.isEmpty() && !NAME.matcher(value).matches()) {
                out.add("metadata.labels: Invalid value: " + quoted(value) + ": a valid label must be an empty"
                        + " string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an"
                        + " alphanumeric character, at most 63 characters");
            }
        }
        long size = 0;
        for (Iterator<Map.Entry<String, JsonNode>> annotations =
                        metadata.path("annotations").fields();
                annotations.hasNext(); ) {
            Map.Entry<String, JsonNode> annotation = annotations.next();
            qualifiedName(annotation.getKey(), "metadata.annotations", out);
            size += annotation.getKey().getBytes(StandardCharsets.UTF_8).length
                    + annotation.getValue().asText().getBytes(StandardCharsets.UTF_8).length;
        }
        if (size > ANNOTATIONS_LIMIT) {
            out.add("metadata.annotations: Too long: may not be more than " + ANNOTATIONS_LIMIT + " bytes");
        }
    }

    /** The value as a JSON string: quotes and control characters escaped, as the API server quotes it. */
    private static String quoted(String value) {
        return TextNode.valueOf(value).toString();
    }

    private static boolean allText(JsonNode map) {
        for (JsonNode value : map) {
            if (!value.isTextual()) {
                return false;
            }
        }
        return true;
    }

    private static void qualifiedName(String key, String field, List<String> out) {
        int slash = key.indexOf('/');
        String prefix = slash < 0 ? null : key.substring(0, slash);
        String name = slash < 0 ? key : key.substring(slash + 1);
        boolean valid = name.length() <= 63
                && NAME.matcher(name).matches()
                && (prefix == null
                        || prefix.length() <= 253 && SUBDOMAIN.matcher(prefix).matches());
        if (!valid) {
            out.add(field + ": Invalid value: " + quoted(key) + ": a qualified name must consist of alphanumeric"
                    + " characters, '-', '_' or '.', and must start and end with an alphanumeric character, at most 63 characters,"
                    + " with an optional DNS subdomain prefix and '/'");
        }
    }
}
