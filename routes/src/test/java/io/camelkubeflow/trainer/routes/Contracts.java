package io.camelkubeflow.trainer.routes;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.networknt.schema.Error;
import com.networknt.schema.InputFormat;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SpecificationVersion;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/** The app's message contracts (contracts/*.schema.json on the classpath), for the tests to hold messages to. */
final class Contracts {
    static final String TRAIN_REQUEST = "train-request";
    static final String TRAIN_RESULT = "train-result";
    static final String DEAD_LETTER = "dead-letter";
    static final String COMPLETION = "completion";
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final SchemaRegistry REGISTRY =
            SchemaRegistry.withDefaultDialect(SpecificationVersion.DRAFT_2020_12);
    private static final Map<String, Schema> SCHEMAS = new ConcurrentHashMap<>();

    private Contracts() {}

    static JsonNode schemaDocument(String contract) {
        try (InputStream in = Contracts.class.getResourceAsStream("/contracts/" + contract + ".schema.json")) {
            return JSON.readTree(in);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** What the contract's schema finds wrong with a JSON document; empty when it holds. */
    static List<String> violations(String contract, String json) {
        Schema schema = SCHEMAS.computeIfAbsent(
                contract, c -> REGISTRY.getSchema(schemaDocument(c).toString(), InputFormat.JSON));
        try {
            return schema.validate(JSON.readTree(json)).stream()
                    .map(Error::toString)
                    .toList();
        } catch (IOException e) {
            return List.of("not JSON: " + e.getMessage());
        }
    }

    static void assertHolds(String contract, String json) {
        assertEquals(List.of(), violations(contract, json), contract + ": " + json);
    }
}
