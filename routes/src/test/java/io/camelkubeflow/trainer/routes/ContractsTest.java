package io.camelkubeflow.trainer.routes;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.MissingNode;
import io.camelkubeflow.trainer.job.TrainField;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * The contracts in contracts/ against what the app accepts and sends: the train request schema (the component's, copied
 * there by the build) has exactly the fields a message may set, each with the JSON type the app takes, and the AsyncAPI document names the configured topics and
 * schemas that exist. (The messages the app sends are held to their schemas where the tests read them: KafkaRoutesTest,
 * InboxRouteTest.)
 */
class ContractsTest {
    /** The train request docs/routes-app.md prints under its Kafka heading, as printed: the first json block there. */
    static String readmeKafkaRequest() throws IOException {
        String readme = Files.readString(Path.of(System.getProperty("user.dir"))
                .resolve("../docs/routes-app.md")
                .normalize());
        int section = readme.indexOf("## Kafka: requests in, results out");
        int start = readme.indexOf("```json\n", section) + "```json\n".length();
        return readme.substring(start, readme.indexOf("```", start)).trim();
    }

    @Test
    void theTrainRequestSchemaHasEveryFieldAMessageMaySetWithTheJsonTypeTheAppTakes() {
        JsonNode properties = Contracts.schemaDocument(Contracts.TRAIN_REQUEST).get("properties");
        Set<String> described = new TreeSet<>();
        properties.fieldNames().forEachRemaining(described::add);
        assertEquals(new TreeSet<>(TrainRequestMessage.FIELDS.keySet()), described);
        for (String field : described) {
            Set<String> expected = switch (TrainField.named(field).kind()) {
                case TEXT -> Set.of("string", "null");
                case INTEGER, LONG -> Set.of("integer", "null");
                case BOOLEAN -> Set.of("boolean", "null");
                case DECIMAL -> Set.of("number", "null");
                // a list is an array of strings, or one string (words split like a shell would, items by commas)
                case WORDS, LIST -> Set.of("string", "array", "null");
                case MAP -> Set.of("object", "null");
                case DURATION -> throw new AssertionError(field + " is not a message field");
            };
            JsonNode property = properties.get(field);
            assertEquals(expected, jsonTypes(property), field);
            if (expected.contains("array")) {
                assertEquals("string", itemsOf(property).path("type").asText(), field + "'s items");
            }
            if (expected.contains("object")) {
                assertEquals("string", property.at("/additionalProperties/type").asText(), field + "'s values");
            }
        }
        assertEquals(Integer.MAX_VALUE, properties.at("/numNodes/maximum").asInt(), "a whole number within int");
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

    @Test
    void theTrainRequestSchemaRefusesWhatTheAppRefusesAndHoldsTheReadmesRequest() throws IOException {
        Contracts.assertHolds(Contracts.TRAIN_REQUEST, readmeKafkaRequest());
        for (String refused : List.of(
                "{\"scirpt\": \"print(1)\"}",
                "{\"numNodes\": 1.5}",
                "{\"numNodes\": \"2\"}",
                "{\"script\": 42}",
                "{\"env\": {\"EPOCHS\": 3}}",
                "{\"args\": [\"--lr\", 0.1]}",
                "[]",
                // what the schema once let through and the app refused
                "{\"command\": \"python -u train.py\", \"script\": \"print(1)\"}",
                "{\"script\": \"print(1)\", \"numNodes\": 0}",
                "{\"script\": \"print(1)\", \"cpu\": \"lots\"}",
                "{\"script\": \"print(1)\\u0000\"}",
                "{\"script\": \"print(1)\", \"scriptFileName\": \"..\"}")) {
            assertFalse(Contracts.violations(Contracts.TRAIN_REQUEST, refused).isEmpty(), refused);
        }
    }

    @Test
    void theAsyncApiDocumentNamesTheConfiguredTopicsAndSchemasThatExist() throws IOException {
        Map<?, ?> asyncApi;
        try (InputStream in = getClass().getResourceAsStream("/contracts/asyncapi.yaml")) {
            asyncApi = Serialization.unmarshal(in, Map.class);
        }
        Properties config = new Properties();
        try (InputStream in = getClass().getResourceAsStream("/application.properties")) {
            config.load(in);
        }
        Map<?, ?> channels = (Map<?, ?>) asyncApi.get("channels");
        assertEquals(config.getProperty("trainer.kafka.request-topic"), address(channels, "requests"));
        assertEquals(config.getProperty("trainer.kafka.result-topic"), address(channels, "results"));
        assertEquals(config.getProperty("trainer.kafka.dead-letter-topic"), address(channels, "deadLetters"));
        Map<?, ?> messages = (Map<?, ?>) ((Map<?, ?>) asyncApi.get("components")).get("messages");
        assertEquals(Set.of("trainRequest", "trainResult", "deadLetter"), messages.keySet());
        for (Object message : messages.values()) {
            String schema = (String) ((Map<?, ?>) ((Map<?, ?>) message).get("payload")).get("$ref");
            assertNotNull(getClass().getResource("/contracts/" + schema), schema + " is beside the document");
        }
    }

    private static Object address(Map<?, ?> channels, String channel) {
        return ((Map<?, ?>) channels.get(channel)).get("address");
    }
}
