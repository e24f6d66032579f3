package io.camelkubeflow.trainer.job;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.MissingNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.camelkubeflow.trainer.runtime.Launcher;
import io.camelkubeflow.trainer.support.InvalidOptionException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The train request's JSON Schema is what the validator runs: a message the schema refuses is refused, naming the field
 * as written, with what is wrong and the fix from the schema; the same request built as the component's layers build it
 * (options, headers) is refused the same way.
 */
class TrainRequestSchemaTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    /** Requests the schema once let through and the app refused (issue 38), and the field each names. */
    @ParameterizedTest(name = "{0}")
    @CsvSource(
            delimiter = '|',
            value = {
                "{\"command\": \"python -u train.py\", \"script\": \"print(1)\"} | command/pythonFile/script | more than one payload",
                "{\"imageEntrypoint\": true, \"image\": \"repo/app:1\", \"pythonFile\": \"/a.py\"} | imageEntrypoint/pythonFile | own entrypoint",
                "{\"script\": \"print(1)\", \"numNodes\": 0} | numNodes | give a whole number of at least 1",
                "{\"script\": \"print(1)\", \"cpu\": \"lots\"} | cpu | is not a Kubernetes quantity",
                "{\"script\": \"print(1)\\u0000\"} | script | NUL character",
                "{\"script\": \"print(1)\", \"scriptFileName\": \"..\"} | scriptFileName | is not a plain file name",
                "{\"script\": \"print(1)\", \"labels\": {\"team\": \"a b\"}} | labels.team | is not a label value",
                "{\"script\": \"print(1)\", \"env\": {\"PET_NNODES\": \"2\"}} | env.PET_NNODES | PET_*",
                "{\"script\": \"print(1)\", \"namespace\": \"ML\"} | namespace | is not an RFC 1123 label",
                "{\"script\": \"print(1)\", \"launcher\": \"TORCHRUN\"} | launcher | is not a launcher"
            })
    void aMessageTheSchemaRefusesIsRefusedNamingItsField(String message, String field, String words) throws Exception {
        InvalidOptionException refused =
                TrainRequestSchema.refusal(JSON.readTree(message)).orElseThrow();
        assertEquals(field, refused.getField());
        assertTrue(refused.getMessage().contains(words), refused.getMessage());
    }

    @Test
    void theSameRequestFromAnyLayerGetsTheSameRefusal() throws Exception {
        InvalidOptionException asMessage = TrainRequestSchema.refusal(
                        JSON.readTree("{\"script\": \"print(1)\", \"numNodes\": 0}"))
                .orElseThrow();
        TrainRequest fromOptions =
                new TrainRequest().runtime("torch-distributed").script("print(1)");
        TrainField.NUM_NODES.apply(fromOptions, 0, "numNodes");
        InvalidOptionException asRequest =
                assertThrows(InvalidOptionException.class, () -> TrainRequestValidator.validate(fromOptions));
        assertEquals(asMessage.getMessage(), asRequest.getMessage());
    }

    @Test
    void aMessageOfTheContractIsAcceptedAndNullIsLeavingAFieldOut() throws Exception {
        assertEquals(
                Optional.empty(),
                TrainRequestSchema.refusal(JSON.readTree(
                        "{\"script\": \"print(1)\", \"command\": null, \"numNodes\": 2, \"cpu\": \"500m\", \"labels\":"
                                + " {\"example.com/team\": \"vision\"}, \"env\": {\"LR\": \"0.1\"}}")));
        assertEquals(
                Optional.empty(),
                TrainRequestSchema.refusal(
                        JSON.readTree("{\"command\": [\"python\", \"-u\", \"train.py\"], \"args\": \"--lr 0.1\"}")));
    }

    /** A quoted value never repeats free text (an env value may be a credential), only where it is. */
    @Test
    void aRefusalOfFreeTextDoesNotRepeatIt() throws Exception {
        InvalidOptionException refused = TrainRequestSchema.refusal(
                        JSON.readTree("{\"script\": \"print(1)\", \"env\": {\"TOKEN\": \"hf_secret\\u0000\"}}"))
                .orElseThrow();
        assertEquals("env.TOKEN", refused.getField());
        assertTrue(!refused.getMessage().contains("hf_secret"), refused.getMessage());
    }

    @Test
    void theSchemasSharedFormsAreWhatTheOtherReadersUse() {
        assertTrue(TrainRequestValidator.isQualifiedName("example.com/team"));
        assertTrue(!TrainRequestValidator.isQualifiedName("-team"));
        assertTrue(TrainRequestValidator.isLabelValue(""));
        assertTrue(!TrainRequestValidator.isLabelValue("a".repeat(64)));
        assertTrue(TrainRequestValidator.isQuantity("1.5Gi"));
        assertTrue(!TrainRequestValidator.isQuantity("-1"));
    }

    /** The schema names the launchers the component has, as the component names them: the two cannot drift apart. */
    @Test
    void theSchemasLaunchersAreTheComponentsAndEachIsAccepted() throws Exception {
        JsonNode schema = JSON.readTree(TrainRequestSchema.class.getResourceAsStream("train-request.schema.json"));
        List<String> named = new ArrayList<>();
        schema.at("/properties/launcher/enum").forEach(value -> named.add(value.isNull() ? null : value.asText()));
        List<String> launchers = new ArrayList<>(
                Arrays.stream(Launcher.values()).map(Launcher::optionValue).toList());
        launchers.add(null);
        assertEquals(launchers, named);
        for (Launcher launcher : Launcher.values()) {
            assertTrue(
                    TrainRequestSchema.refusal(JSON.readTree(
                                    "{\"script\": \"print(1)\", \"launcher\": \"" + launcher.optionValue() + "\"}"))
                            .isEmpty(),
                    launcher.optionValue());
        }
    }

    @Test
    void everyPlainFieldIsInTheFormTheSchemaChecksUnderItsName() {
        for (TrainField field : TrainField.values()) {
            if (!field.isPlain()) {
                continue;
            }
            TrainRequest request = new TrainRequest();
            Object value = TrainRequestTest.sample(field, "value");
            field.apply(request, value, field.fieldName());
            ObjectNode form =
                    field.inMessages() ? TrainRequestSchema.jsonForm(request) : TrainRequestSchema.routeForm(request);
            assertEquals(new ObjectMapper().valueToTree(value), form.get(field.fieldName()), field.fieldName());
        }
    }

    @Test
    void theSchemaDescribesEachFieldWhereItsExposureSaysWithItsKindsJsonType() throws Exception {
        JsonNode schema;
        try (InputStream in = TrainRequestSchema.class.getResourceAsStream("train-request.schema.json")) {
            schema = JSON.readTree(in);
        }
        JsonNode properties = schema.get("properties");
        JsonNode routeOptions = schema.at("/$defs/routeOptions/properties");
        Set<String> messageFields = new TreeSet<>();
        Set<String> routeFields = new TreeSet<>();
        for (TrainField field : TrainField.values()) {
            String name = field.fieldName();
            if (field.inMessages()) {
                // a message may send null for any field, which is leaving it out
                messageFields.add(name);
                Set<String> expected = new TreeSet<>(jsonTypes(field));
                expected.add("null");
                assertEquals(expected, jsonTypes(properties.path(name)), name);
                if (expected.contains("array")) {
                    assertEquals(
                            "string", itemsOf(properties.get(name)).path("type").asText(), name + "'s items");
                }
                if (expected.contains("object")) {
                    assertEquals(
                            "string",
                            properties
                                    .at("/" + name + "/additionalProperties/type")
                                    .asText(),
                            name);
                }
            } else if (field.isPlain()) {
                // a route's plain field is in the form the schema checks as set (routeForm); one of an enum is text
                routeFields.add(name);
                JsonNode property = routeOptions.path(name);
                assertEquals(
                        jsonTypes(field),
                        property.has("enum") ? Set.of("string") : jsonTypes(property),
                        name + " in $defs/routeOptions");
            }
        }
        assertEquals(messageFields, names(properties), "the message fields");
        assertEquals(routeFields, names(routeOptions), "the route's plain fields");
        assertEquals(Integer.MAX_VALUE, properties.at("/numNodes/maximum").asInt(), "a whole number within int");
    }

    /** The JSON types a field's kind is written as. */
    private static Set<String> jsonTypes(TrainField field) {
        return switch (field.kind()) {
            case TEXT -> Set.of("string");
            case INTEGER, LONG -> Set.of("integer");
            case BOOLEAN -> Set.of("boolean");
            case DECIMAL -> Set.of("number");
            // a list is an array of strings, or one string (words split like a shell would, items by commas)
            case WORDS, LIST -> Set.of("string", "array");
            case MAP -> Set.of("object");
            case DURATION -> throw new AssertionError(field + " has no JSON form");
        };
    }

    /** The JSON types a property takes: its own type, or its oneOf's. */
    private static Set<String> jsonTypes(JsonNode property) {
        Set<String> types = new TreeSet<>();
        List<JsonNode> schemas = new ArrayList<>(List.of(property));
        property.path("oneOf").forEach(schemas::add);
        for (JsonNode schema : schemas) {
            JsonNode type = schema.path("type");
            if (type.isArray()) {
                type.forEach(t -> types.add(t.asText()));
            } else if (type.isTextual()) {
                types.add(type.asText());
            }
        }
        return types;
    }

    private static JsonNode itemsOf(JsonNode property) {
        if (property.has("items")) {
            return property.get("items");
        }
        for (JsonNode schema : property.path("oneOf")) {
            if (schema.has("items")) {
                return schema.get("items");
            }
        }
        return MissingNode.getInstance();
    }

    private static Set<String> names(JsonNode object) {
        Set<String> names = new TreeSet<>();
        object.fieldNames().forEachRemaining(names::add);
        return names;
    }
}
