package io.camelkubeflow.trainer.routes;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * The contracts in contracts/ against what the app accepts and sends: the train request schema (the component's, copied
 * there by the build) has exactly the fields a message may set, and the AsyncAPI document names the configured topics and
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
    void theTrainRequestSchemaHasEveryFieldAMessageMaySet() {
        // each field's JSON type, and the route's fields, are the component's TrainRequestSchemaTest's
        JsonNode properties = Contracts.schemaDocument(Contracts.TRAIN_REQUEST).get("properties");
        Set<String> described = new TreeSet<>();
        properties.fieldNames().forEachRemaining(described::add);
        assertEquals(new TreeSet<>(TrainRequestMessage.FIELDS.keySet()), described);
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
