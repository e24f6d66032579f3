package io.camelkubeflow.trainer.job;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.networknt.schema.Error;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaLocation;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.dialect.Dialect;
import com.networknt.schema.dialect.Dialects;
import com.networknt.schema.keyword.AnnotationKeyword;
import com.networknt.schema.path.NodePath;
import io.camelkubeflow.trainer.support.InvalidOptionException;
import io.fabric8.kubernetes.api.model.EnvVar;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The train request's JSON Schema ({@value #RESOURCE} beside this class, the contract the routes app publishes), the
 * one statement of what each field of a train request may be, run on a request's JSON form: whatever entry a request
 * came from (endpoint options, headers, a message, a TrainJob body), its merged fields are written as the message would
 * write them and held to the schema (the fields only a route sets, to its {@code $defs/routeOptions}). Each violation
 * becomes an {@link InvalidOptionException} naming the field as callers write it ({@code labels.team}, {@code cpu}),
 * with what is wrong and what to send instead: the schema's {@code x-what} and {@code x-fix} nearest the failing
 * keyword (or the keyword's own words), {@code x-field} for a rule between fields. The value is quoted unless a schema
 * on the way says {@code x-quote: false} (free text, which may be anything the caller would not have repeated).
 */
public final class TrainRequestSchema {
    /** The schema's resource name, beside this class. */
    private static final String RESOURCE = "train-request.schema.json";

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final JsonNode DOCUMENT = read();
    private static final String ID = DOCUMENT.get("$id").asText();
    /** What a refusal says: annotations of the schema's own, which validate nothing. */
    private static final List<String> REFUSAL_WORDS = List.of("x-what", "x-fix", "x-field", "x-quote");

    private static final SchemaRegistry REGISTRY = SchemaRegistry.withDefaultDialect(
            Dialect.builder(Dialects.getDraft202012())
                    .keywords(REFUSAL_WORDS.stream().map(AnnotationKeyword::new).toList())
                    .build(),
            builder -> builder.schemas(Map.of(ID, DOCUMENT.toString())));
    private static final Schema MESSAGE = REGISTRY.getSchema(SchemaLocation.of(ID));
    private static final Schema ROUTE_OPTIONS = REGISTRY.getSchema(SchemaLocation.of(ID + "#/$defs/routeOptions"));
    /** The schemas of the document's {@code $defs} other readers ask about, by name. */
    private static final Map<String, Schema> DEFINITIONS = new ConcurrentHashMap<>();

    private TrainRequestSchema() {}

    /** Refuses the first thing the schema finds wrong with the request's JSON form. */
    static void check(TrainRequest request) {
        refuseFirst(MESSAGE.validate(jsonForm(request)), DOCUMENT);
        refuseFirst(ROUTE_OPTIONS.validate(routeForm(request)), DOCUMENT.at("/$defs/routeOptions"));
    }

    /**
     * What the schema refuses first in a train request message as it came (a JSON object, nulls and all), if anything:
     * for those who hold a message to the contract before it becomes a request.
     */
    public static Optional<InvalidOptionException> refusal(JsonNode message) {
        try {
            refuseFirst(MESSAGE.validate(message), DOCUMENT);
            return Optional.empty();
        } catch (InvalidOptionException refused) {
            return Optional.of(refused);
        }
    }

    /** Whether a text is of the form one of the schema's {@code $defs} names, e.g. {@code qualifiedName}. */
    static boolean isA(String definition, String text) {
        return DEFINITIONS
                .computeIfAbsent(definition, d -> REGISTRY.getSchema(SchemaLocation.of(ID + "#/$defs/" + d)))
                .validate(JSON.getNodeFactory().textNode(text))
                .isEmpty();
    }

    /** The message fields of a merged request as a message would write them. */
    static ObjectNode jsonForm(TrainRequest request) {
        ObjectNode form = plainFields(request, true);
        list(form, "command", request.command());
        text(form, "pythonFile", request.pythonFile());
        text(form, "script", request.script());
        if (request.imageEntrypoint()) {
            form.put("imageEntrypoint", true);
        }
        text(form, "workspace", request.workspace());
        if (!request.env().isEmpty()) {
            ObjectNode env = form.putObject("env");
            // a variable from a Secret or ConfigMap (a TrainJob body's valueFrom) is held to the rules of its name
            request.env()
                    .forEach((name, var) -> env.put(
                            name, Optional.ofNullable(var).map(EnvVar::getValue).orElse("")));
        }
        // the resources with a field of their own are named by it, as callers write them
        ObjectNode resources = JSON.createObjectNode();
        request.resources().forEach((name, quantity) -> {
            switch (name) {
                case "cpu", "memory" -> form.put(name, quantity);
                case "nvidia.com/gpu" -> form.put("gpu", quantity);
                default -> resources.put(name, quantity);
            }
        });
        if (!resources.isEmpty()) {
            form.set("resources", resources);
        }
        map(form, "labels", request.labels());
        map(form, "annotations", request.annotations());
        map(form, "nodeSelector", request.nodeSelector());
        for (InitializerStep step : InitializerStep.values()) {
            InitializerRequest initializer = request.initializer(step);
            text(form, step.field("Uri"), initializer.uri());
            text(form, step.field("Secret"), initializer.secret());
            text(form, step.field("Kind"), initializer.kind());
            // the typed settings are read as they are set (InitializerRequest.set); a location is text as written
            Object location = initializer.settings().get(InitializerSetting.CACHE_METADATA_LOC);
            text(form, InitializerSetting.CACHE_METADATA_LOC.field(step), (String) location);
        }
        return form;
    }

    /** The fields only a route sets. */
    static ObjectNode routeForm(TrainRequest request) {
        return plainFields(request, false);
    }

    /** The plain fields a message may set ({@code inMessages}), or those only a route sets, as JSON writes them. */
    private static ObjectNode plainFields(TrainRequest request, boolean inMessages) {
        ObjectNode form = JSON.createObjectNode();
        for (TrainField field : TrainField.values()) {
            Object value = request.value(field);
            if (field.isPlain() && field.inMessages() == inMessages && value != null) {
                form.set(field.fieldName(), JSON.valueToTree(value));
            }
        }
        return form;
    }

    private static void text(ObjectNode form, String field, String value) {
        if (value != null) {
            form.put(field, value);
        }
    }

    private static void list(ObjectNode form, String field, List<String> values) {
        if (values != null) {
            ArrayNode array = form.putArray(field);
            values.forEach(array::add);
        }
    }

    private static void map(ObjectNode form, String field, Map<String, String> entries) {
        if (!entries.isEmpty()) {
            ObjectNode object = form.putObject(field);
            entries.forEach(object::put);
        }
    }

    /** The first violation, a NUL character first: it is named as such whatever else its text breaks. */
    private static void refuseFirst(List<Error> errors, JsonNode schemaRoot) {
        errors.stream()
                .filter(error -> error.getSchemaLocation().toString().endsWith("/$defs/noNul/pattern"))
                .findFirst()
                .or(() -> errors.stream().findFirst())
                .ifPresent(error -> {
                    throw refusal(error, schemaRoot);
                });
    }

    /** A violation as a refusal: the field as callers write it, what is wrong, what to send instead. */
    private static InvalidOptionException refusal(Error error, JsonNode schemaRoot) {
        List<JsonNode> path = schemaPath(error.getEvaluationPath(), schemaRoot);
        String what = nearest(path, "x-what");
        String fix = nearest(path, "x-fix");
        String between = nearest(path, "x-field");
        String field = between != null ? between : field(error);
        boolean quote = between == null
                && path.stream().allMatch(node -> node.path("x-quote").asBoolean(true))
                && (isAboutAKey(error)
                        || error.getInstanceNode() != null
                                && error.getInstanceNode().isValueNode());
        String shown = quote ? shown(error) + " " : "";
        String detail = shown + (what != null ? what : keywordWords(error));
        return new InvalidOptionException(field, fix == null ? detail : detail + "; " + fix);
    }

    /**
     * The schemas on the evaluation path, outermost first, to the one holding the failing keyword, a {@code $ref}
     * followed to the schema it names, which counts as the inner of the two: a schema's annotations speak for its own
     * keywords. Only a schema that is nothing but a {@code $ref} and annotations (a property that names a shared rule
     * in its own words) speaks for what it refers to, and so counts as the inner one.
     */
    private static List<JsonNode> schemaPath(NodePath evaluationPath, JsonNode root) {
        List<JsonNode> nodes = new ArrayList<>(List.of(root));
        JsonNode node = root;
        for (int i = 0; i < evaluationPath.getNameCount() && node != null; i++) {
            Object element = evaluationPath.getElement(i);
            node = "$ref".equals(element)
                    ? referred(node)
                    : element instanceof Integer index ? node.get(index) : node.get(String.valueOf(element));
            if (node != null && node.isObject()) {
                add(nodes, node, "$ref".equals(element));
            }
        }
        // a keyword whose value is a schema (propertyNames) reports where that schema is, not inside what it refers to
        while (node != null && node.isObject() && node.has("$ref")) {
            node = referred(node);
            add(nodes, node, true);
        }
        return nodes;
    }

    private static void add(List<JsonNode> path, JsonNode schema, boolean referred) {
        Set<String> referring = new HashSet<>();
        path.get(path.size() - 1).fieldNames().forEachRemaining(referring::add);
        boolean onlyReferring = referred && NAMING_WORDS.containsAll(referring);
        path.add(onlyReferring ? path.size() - 1 : path.size(), schema);
    }

    /** What a schema that only names a shared rule holds besides its {@code $ref}. */
    private static final Set<String> NAMING_WORDS =
            Set.of("$ref", "type", "description", "x-what", "x-fix", "x-field", "x-quote");

    /** The schema of the document a schema's {@code $ref} names ({@code #/$defs/...}). */
    private static JsonNode referred(JsonNode schema) {
        return DOCUMENT.at(schema.path("$ref").asText().substring(1));
    }

    private static String nearest(List<JsonNode> path, String annotation) {
        for (int i = path.size() - 1; i >= 0; i--) {
            if (path.get(i).hasNonNull(annotation)) {
                return path.get(i).get(annotation).asText();
            }
        }
        return null;
    }

    /**
     * The field as callers write it: the instance's first name, with the key of a map's entry ({@code labels.team});
     * an item of a list is its list's.
     */
    private static String field(Error error) {
        NodePath at = error.getInstanceLocation();
        StringBuilder field = new StringBuilder();
        for (int i = 0; i < at.getNameCount() && !(at.getElement(i) instanceof Integer); i++) {
            field.append(field.length() == 0 ? "" : ".").append(at.getElement(i));
        }
        if (isAboutAKey(error) || field.length() == 0 && error.getProperty() != null) {
            field.append(field.length() == 0 ? "" : ".").append(error.getProperty());
        }
        return field.length() == 0 ? "body" : field.toString();
    }

    /** Whether the error is about a key of a map (its name is the property), not a value. */
    private static boolean isAboutAKey(Error error) {
        return "propertyNames".equals(error.getKeyword());
    }

    private static String shown(Error error) {
        JsonNode value = error.getInstanceNode();
        if (!isAboutAKey(error) && !value.isTextual()) {
            return value.toString();
        }
        String text = isAboutAKey(error) ? error.getProperty() : value.asText();
        return text.codePointCount(0, text.length()) <= 80
                ? "'" + text + "'"
                : "'" + text.substring(0, text.offsetByCodePoints(0, 80)) + "...'";
    }

    /** What a keyword that carries no x-what says went wrong. */
    private static String keywordWords(Error error) {
        JsonNode limit = error.getSchemaNode();
        return switch (error.getKeyword()) {
            case "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum" -> "is not allowed";
            case "maxItems", "maxProperties" ->
                "has " + error.getInstanceNode().size() + " entries, over the " + limit + " allowed";
            case "minItems", "minLength", "minProperties" -> "is empty";
            case "maxLength" -> "is longer than " + limit + " characters";
            case "enum", "const" -> "is not one of " + limit;
            case "additionalProperties", "unevaluatedProperties" -> "is not a field of a train request";
            case "type" -> "is not of the JSON type " + limit;
            default -> error.getMessage();
        };
    }

    private static JsonNode read() {
        try (InputStream in = TrainRequestSchema.class.getResourceAsStream(RESOURCE)) {
            return JSON.readTree(in);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
