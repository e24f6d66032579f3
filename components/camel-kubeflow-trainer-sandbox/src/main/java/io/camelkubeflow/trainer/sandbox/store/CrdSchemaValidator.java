package io.camelkubeflow.trainer.sandbox.store;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.math.BigInteger;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;

/**
 * Validates objects against a CRD's structural openAPIV3Schema the way the API server does, with one deliberate
 * difference: an unknown field is a violation instead of being pruned, because a pruned field is a silently lost
 * setting. The CRD's CEL rules are checked too: each rule in the CRD must be known here, so a CRD upgrade with a new
 * rule fails loudly instead of passing unchecked. Transition rules ({@code self == oldSelf}) are evaluated on an
 * update where the old object has the field, as the API server does (list items correlated only in map lists); the
 * keys of map lists and the items of set lists must be unique; the object's labels and annotations are checked as
 * the API server checks any object's metadata. An update is not refused for a value it left as it was (validation
 * ratcheting).
 */
public final class CrdSchemaValidator {
    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String STORAGE_URI_RULE = "self == '' || self.matches('^[A-Za-z][A-Za-z0-9+.-]*://.+$')";
    private static final String MANAGED_BY_RULE =
            "self in ['trainer.kubeflow.org/trainjob-controller', 'kueue.x-k8s.io/multikueue']";
    private static final String NAME_PATTERN_RULE = "self.metadata.name.matches('^[a-z]([-a-z0-9]*[a-z0-9])?$')";
    private static final String NAME_SIZE_RULE = "size(self.metadata.name) <= 63";
    private static final String LAST_UPDATED_RULE = "has(self.lastUpdatedTime)";

    private final JsonNode schema;
    /** Per schema object (by identity: the schema never changes), its properties that have a default. */
    private final Map<JsonNode, List<Map.Entry<String, JsonNode>>> defaults =
            Collections.synchronizedMap(new IdentityHashMap<>());
    /** The schema's {@code pattern}s, compiled once each. */
    private static final Map<String, Pattern> PATTERNS = new ConcurrentHashMap<>();

    private CrdSchemaValidator(JsonNode schema) {
        this.schema = schema;
    }

    /** The validator of a CRD's first version, from the CRD's JSON. */
    public static CrdSchemaValidator of(String crdJson) {
        JsonNode crd = readTree(crdJson);
        return new CrdSchemaValidator(
                crd.path("spec").path("versions").get(0).path("schema").path("openAPIV3Schema"));
    }

    public static CrdSchemaValidator trainJobs() {
        return of(JsonResources.read(JsonResources.TRAINJOBS_CRD));
    }

    /** Every violation, each as "path: problem"; empty when the object is valid. */
    public List<String> validate(Object object) {
        return admit(
                        object instanceof String text
                                ? text
                                : JSON.valueToTree(object).toString())
                .violations();
    }

    /**
     * What the API server makes of a JSON write: its violations, and the object it would store. A JSON number with an
     * integral value ({@code 1.0}) is an integer to the API server, and is stored and served as one ({@code 1}).
     */
    public record Admission(List<String> violations, String stored) {}

    /**
     * Admits a JSON write as the API server does: the schema's defaults applied to the fields left out (under every
     * object that is present), integral numbers made integers, then validated.
     */
    public Admission admit(String json) {
        return admit(json, null);
    }

    /**
     * As {@link #admit(String)} for an update (a PUT, or a PATCH once applied) of the stored object {@code oldJson}
     * (null: a create), whose transition rules it evaluates.
     */
    public Admission admit(String json, String oldJson) {
        JsonNode node = readTree(json);
        if (!node.isObject()) {
            // a PUT of [] or a merge patch of null makes no object at all
            return new Admission(List.of("<root>: must be an object, was " + node.getNodeType()), json);
        }
        JsonNode old = oldJson == null ? null : readTree(oldJson);
        boolean keptStatus = old != null && keepStatus((ObjectNode) node, old);
        boolean defaulted = applyDefaults(node, schema);
        boolean changed = integralNumbersAsIntegers(node) | defaulted | keptStatus;
        Findings findings = new Findings();
        check(node, old, schema, "", findings);
        ObjectMetadataRules.check(node.path("metadata"), findings);
        List<String> violations = new ArrayList<>(findings);
        if (violations.isEmpty()) {
            violations.addAll(findings.rules);
        } else if (hasRules(schema)) {
            // as kube-apiserver: the CEL rules are evaluated only on an object the schema admits
            violations.add("<root>: " + RULES_NOT_CHECKED);
        }
        return new Admission(violations, changed ? node.toString() : json);
    }

    /**
     * A JSON write with the schema's defaults applied and integral numbers made integers, not validated: what the API
     * server stores of an object it admits (for the kinds whose rules the sandbox does not check).
     */
    public String withDefaults(String json) {
        JsonNode node = readTree(json);
        if (!node.isObject()) {
            return json;
        }
        boolean changed = applyDefaults(node, schema) | integralNumbersAsIntegers(node);
        return changed ? node.toString() : json;
    }

    /**
     * Sets each absent property that has a schema default, in this object and the objects it holds: the defaults of
     * the properties a schema object declares, then the properties the value has (a value holds a few of the many
     * properties its schema declares, so it is walked, not the schema).
     */
    private boolean applyDefaults(JsonNode value, JsonNode schema) {
        boolean changed = false;
        if (value instanceof ObjectNode object) {
            for (Map.Entry<String, JsonNode> property : defaultedProperties(schema)) {
                if (!object.has(property.getKey())) {
                    object.set(property.getKey(), property.getValue().deepCopy());
                    changed = true;
                }
            }
            JsonNode properties = schema.path("properties");
            for (Iterator<Map.Entry<String, JsonNode>> fields = object.fields(); fields.hasNext(); ) {
                Map.Entry<String, JsonNode> field = fields.next();
                JsonNode propertySchema = properties.get(field.getKey());
                if (propertySchema != null) {
                    changed |= applyDefaults(field.getValue(), propertySchema);
                }
            }
        } else if (value instanceof ArrayNode array && schema.has("items")) {
            for (JsonNode item : array) {
                changed |= applyDefaults(item, schema.get("items"));
            }
        }
        return changed;
    }

    /** The properties of a schema object that have a default, each with it; found once per schema object. */
    private List<Map.Entry<String, JsonNode>> defaultedProperties(JsonNode schema) {
        return defaults.computeIfAbsent(schema, s -> {
            List<Map.Entry<String, JsonNode>> found = new ArrayList<>();
            s.path("properties").fields().forEachRemaining(property -> {
                if (property.getValue().has("default")) {
                    found.add(Map.entry(property.getKey(), property.getValue().get("default")));
                }
            });
            return found;
        });
    }

    /**
     * A write of the object itself leaves its status as it was, as the API server does for a CRD with a status
     * subresource (only writes to {@code /status} change it); true when that changed the body.
     */
    private static boolean keepStatus(ObjectNode node, JsonNode old) {
        JsonNode before = node.get("status");
        if (old.has("status")) {
            node.set("status", old.get("status"));
        } else {
            node.remove("status");
        }
        return !Objects.equals(before, node.get("status"));
    }

    /** Replaces each floating-point number with an integral value by that integer; true when one was replaced. */
    private static boolean integralNumbersAsIntegers(JsonNode node) {
        boolean replaced = false;
        if (node instanceof ObjectNode object) {
            Iterator<Map.Entry<String, JsonNode>> fields = object.fields();
            while (fields.hasNext()) {
                Map.Entry<String, JsonNode> field = fields.next();
                if (isIntegralFloat(field.getValue())) {
                    field.setValue(JSON.getNodeFactory()
                            .numberNode(field.getValue().decimalValue().toBigInteger()));
                    replaced = true;
                } else {
                    replaced |= integralNumbersAsIntegers(field.getValue());
                }
            }
        } else if (node instanceof ArrayNode array) {
            for (int i = 0; i < array.size(); i++) {
                if (isIntegralFloat(array.get(i))) {
                    array.set(
                            i,
                            JSON.getNodeFactory()
                                    .numberNode(array.get(i).decimalValue().toBigInteger()));
                    replaced = true;
                } else {
                    replaced |= integralNumbersAsIntegers(array.get(i));
                }
            }
        }
        return replaced;
    }

    private static boolean isIntegralFloat(JsonNode value) {
        return value.isFloatingPointNumber()
                && value.decimalValue().stripTrailingZeros().scale() <= 0;
    }

    private static boolean isInteger(JsonNode value) {
        return value.isIntegralNumber() || isIntegralFloat(value);
    }

    /** JSON (what clients send) with the JSON parser, which is several times faster; anything else as YAML. */
    private static JsonNode readTree(String text) {
        try {
            return text.stripLeading().startsWith("{") ? JSON.readTree(text) : YAML.readTree(text);
        } catch (IOException e) {
            throw new IllegalArgumentException(e);
        }
    }

    /** What kube-apiserver adds to the schema's findings when it did not evaluate the CEL rules because of them. */
    static final String RULES_NOT_CHECKED = "some validation rules were not checked because the object was invalid;"
            + " correct the existing errors to complete validation";

    /** The schema's findings (the list) and the CEL rules' (evaluated as the schema's are, reported only without them). */
    private static final class Findings extends ArrayList<String> {
        final List<String> rules = new ArrayList<>();
    }

    /** Whether a schema holds CEL rules ({@code x-kubernetes-validations}) anywhere. */
    private static boolean hasRules(JsonNode schema) {
        return !schema.findValues("x-kubernetes-validations").isEmpty();
    }

    /** @param old the value at the same path in the stored object, or null (a create, or a field it did not have) */
    private void check(JsonNode value, JsonNode old, JsonNode schema, String path, Findings out) {
        if (old != null && old.equals(value)) {
            // validation ratcheting (GA in Kubernetes 1.33): an update does not fail on a value it left unchanged
            return;
        }
        if (value == null || value.isNull()) {
            if (!schema.path("nullable").asBoolean(false)) {
                out.add(path + ": null is not allowed");
            }
            return;
        }
        boolean intOrString = schema.path("x-kubernetes-int-or-string").asBoolean(false);
        String type = schema.path("type").asText("");
        if (intOrString) {
            if (!(isInteger(value) || value.isTextual())) {
                out.add(path + ": must be an integer or a string, was " + value.getNodeType());
                return;
            }
        } else if (!type.isEmpty() && !typeMatches(type, value)) {
            out.add(path + ": must be " + type + ", was " + value.getNodeType());
            return;
        }
        scalarRules(value, schema, path, out);
        celRules(value, old == null || old.isMissingNode() ? null : old, schema, path, out);
        if (value.isObject()) {
            objectRules(value, old, schema, path, out);
        } else if (value.isArray()) {
            uniqueItems(value, schema, path, out);
            JsonNode items = schema.path("items");
            if (schema.has("maxItems") && value.size() > schema.get("maxItems").asInt()) {
                out.add(path + ": " + value.size() + " items, at most "
                        + schema.get("maxItems").asInt());
            }
            if (schema.has("minItems") && value.size() < schema.get("minItems").asInt()) {
                out.add(path + ": " + value.size() + " items, at least "
                        + schema.get("minItems").asInt());
            }
            for (int i = 0; i < value.size(); i++) {
                if (!items.isMissingNode()) {
                    check(value.get(i), correlated(value.get(i), old, schema), items, path + "[" + i + "]", out);
                }
            }
        }
    }

    /** The keys that identify an item of a map list ({@code x-kubernetes-list-type: map}), or empty. */
    private static List<String> mapKeys(JsonNode listSchema) {
        if (!"map".equals(listSchema.path("x-kubernetes-list-type").asText())) {
            return List.of();
        }
        List<String> keys = new ArrayList<>();
        listSchema.path("x-kubernetes-list-map-keys").forEach(key -> keys.add(key.asText()));
        return keys;
    }

    private static JsonNode identity(JsonNode item, List<String> keys) {
        ObjectNode id = JSON.createObjectNode();
        keys.forEach(key -> id.set(key, item.path(key).isMissingNode() ? null : item.get(key)));
        return id;
    }

    /** The old item a list item is the same item as: in a map list, the one with its keys; in other lists, none. */
    private static JsonNode correlated(JsonNode item, JsonNode oldList, JsonNode listSchema) {
        List<String> keys = mapKeys(listSchema);
        if (keys.isEmpty() || oldList == null || !oldList.isArray()) {
            return null;
        }
        JsonNode id = identity(item, keys);
        for (JsonNode old : oldList) {
            if (identity(old, keys).equals(id)) {
                return old;
            }
        }
        return null;
    }

    /** A map list's keys, and a set list's items, are each unique, as the API server's "Duplicate value" says. */
    private static void uniqueItems(JsonNode list, JsonNode schema, String path, Findings out) {
        List<String> keys = mapKeys(schema);
        boolean set = "set".equals(schema.path("x-kubernetes-list-type").asText());
        if (keys.isEmpty() && !set) {
            return;
        }
        Set<JsonNode> seen = new HashSet<>();
        for (int i = 0; i < list.size(); i++) {
            JsonNode id = set ? list.get(i) : identity(list.get(i), keys);
            if (!seen.add(id)) {
                out.add(path + "[" + i + "]: Duplicate value: " + id);
            }
        }
    }

    private void objectRules(JsonNode value, JsonNode old, JsonNode schema, String path, Findings out) {
        for (JsonNode required : schema.path("required")) {
            if (!value.has(required.asText())) {
                out.add(path + ": missing required field '" + required.asText() + "'");
            }
        }
        JsonNode properties = schema.path("properties");
        JsonNode additional = schema.path("additionalProperties");
        boolean preserveUnknown =
                schema.path("x-kubernetes-preserve-unknown-fields").asBoolean(false);
        // the object's own metadata is validated by the API server itself, not by the CRD schema
        boolean objectMetadata = ".metadata".equals(path);
        Iterator<Map.Entry<String, JsonNode>> fields = value.fields();
        while (fields.hasNext()) {
            Map.Entry<String, JsonNode> field = fields.next();
            String child = path + "." + field.getKey();
            JsonNode oldField = old == null ? null : old.get(field.getKey());
            if (properties.has(field.getKey())) {
                check(field.getValue(), oldField, properties.get(field.getKey()), child, out);
            } else if (additional.isObject()) {
                check(field.getValue(), oldField, additional, child, out);
            } else if (!preserveUnknown && !objectMetadata) {
                out.add(child + ": unknown field (the API server would prune it)");
            }
        }
    }

    private static boolean typeMatches(String type, JsonNode value) {
        return switch (type) {
            case "object" -> value.isObject();
            case "array" -> value.isArray();
            case "string" -> value.isTextual();
            case "integer" -> isInteger(value);
            case "number" -> value.isNumber();
            case "boolean" -> value.isBoolean();
            default -> false;
        };
    }

    private static void scalarRules(JsonNode value, JsonNode schema, String path, Findings out) {
        if (schema.has("enum")) {
            boolean found = false;
            for (JsonNode allowed : schema.get("enum")) {
                found |= allowed.equals(value);
            }
            if (!found) {
                out.add(path + ": " + value + " is not one of " + schema.get("enum"));
            }
        }
        if (value.isTextual()) {
            String text = value.asText();
            if (schema.has("maxLength")
                    && text.codePointCount(0, text.length())
                            > schema.get("maxLength").asInt()) {
                out.add(path + ": longer than " + schema.get("maxLength").asInt());
            }
            if (schema.has("minLength")
                    && text.codePointCount(0, text.length())
                            < schema.get("minLength").asInt()) {
                out.add(path + ": shorter than " + schema.get("minLength").asInt());
            }
            if (schema.has("pattern")
                    && !PATTERNS.computeIfAbsent(schema.get("pattern").asText(), Pattern::compile)
                            .matcher(text)
                            .find()) {
                out.add(path + ": '" + text + "' does not match "
                        + schema.get("pattern").asText());
            }
            if ("date-time".equals(schema.path("format").asText())) {
                try {
                    OffsetDateTime.parse(text);
                } catch (DateTimeParseException e) {
                    out.add(path + ": '" + text + "' is not a date-time");
                }
            }
        }
        if (isInteger(value)) {
            BigInteger number = value.decimalValue().toBigInteger();
            if (schema.has("minimum") && number.compareTo(schema.get("minimum").bigIntegerValue()) < 0) {
                out.add(path + ": " + number + " is below " + schema.get("minimum"));
            }
            if (schema.has("maximum") && number.compareTo(schema.get("maximum").bigIntegerValue()) > 0) {
                out.add(path + ": " + number + " is above " + schema.get("maximum"));
            }
            String format = schema.path("format").asText();
            if ("int32".equals(format) && number.bitLength() > 31
                    || "int64".equals(format) && number.bitLength() > 63) {
                out.add(path + ": " + number + " overflows " + format);
            }
        }
    }

    /** @param old the field's old value on an update, or null: transition rules are then not evaluated */
    private static void celRules(JsonNode value, JsonNode old, JsonNode schema, String path, Findings out) {
        for (JsonNode validation : schema.path("x-kubernetes-validations")) {
            String rule = validation.path("rule").asText();
            String message = validation.path("message").asText();
            boolean ok = switch (rule) {
                case "self == oldSelf" -> old == null || old.equals(value);
                case STORAGE_URI_RULE ->
                    value.asText().isEmpty()
                            || PATTERNS.computeIfAbsent("^[A-Za-z][A-Za-z0-9+.-]*://.+$", Pattern::compile)
                                    .matcher(value.asText())
                                    .find();
                case MANAGED_BY_RULE ->
                    List.of("trainer.kubeflow.org/trainjob-controller", "kueue.x-k8s.io/multikueue")
                            .contains(value.asText());
                case NAME_PATTERN_RULE ->
                    PATTERNS.computeIfAbsent("^[a-z]([-a-z0-9]*[a-z0-9])?$", Pattern::compile)
                            .matcher(value.path("metadata").path("name").asText())
                            .find();
                case NAME_SIZE_RULE ->
                    value.path("metadata").path("name").asText().length() <= 63;
                case LAST_UPDATED_RULE -> value.has("lastUpdatedTime");
                default ->
                    throw new IllegalStateException("CEL rule not known to the test validator at " + path + ": " + rule
                            + " — teach CrdSchemaValidator to evaluate it");
            };
            if (!ok) {
                out.rules.add((path.isEmpty() ? "<root>" : path) + ": " + message);
            }
        }
    }
}
