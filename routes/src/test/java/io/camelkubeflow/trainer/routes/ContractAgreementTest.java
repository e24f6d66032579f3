package io.camelkubeflow.trainer.routes;

import static io.camelkubeflow.trainer.routes.HttpRoutesTest.HTTP;
import static io.camelkubeflow.trainer.routes.HttpRoutesTest.json;
import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaLocation;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.dialect.Dialects;
import io.camelkubeflow.trainer.api.TrainJob;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.net.URI;
import java.net.URL;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * The train request's schema (the contract, which the component runs), as the app's OpenAPI document carries it and a
 * client of the document reads it, and the running app agree: every request the test suite refuses (HttpErrorContractTest's bad requests and initializer fields) is refused by both, or by the app
 * alone for a rule a JSON Schema cannot say, named here; and every example request of the OpenAPI document is accepted
 * by both, the app answering as the document says.
 */
@QuarkusTest
@QuarkusTestResource(FreshFolders.class)
@QuarkusTestResource(OidcProviderResource.class)
class ContractAgreementTest {
    /**
     * JSON text as the app reads it: one value, no name twice. What the text holds is the schema's to judge; how it is
     * written is not (a validator reads values).
     */
    private static final ObjectMapper STRICT_JSON = new ObjectMapper()
            .enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION)
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);

    private static final String TUNE = "{\"runtime\": \"torchtune-llama3.2-1b\", \"args\": [\"epochs=1\"], ";

    /** Refused requests whose rule a JSON Schema cannot say, each by the rule's name. */
    private static final Map<String, String> BEYOND_THE_SCHEMA = Map.ofEntries(
            Map.entry(
                    "{\"pythonFile\": \"/app/t.py\", \"gpu\": \"8\", \"resources\": {\"nvidia.com/gpu\": \"9\"}}",
                    "a quantity given once: its own field or the resources map (Schemathesis cannot generate for a"
                            + " schema that negates a map's key beside a field)"),
            Map.entry(
                    "{\"pythonFile\": \"/a.py\", \"resources\": {\"cpu\": \"2\"}, \"cpu\": \"4\"}",
                    "a quantity given once: its own field or the resources map"),
            Map.entry(
                    TUNE + "\"datasetUri\": \"hf://d/x\", \"datasetAccessToken\": \"hf_HttpPlainToken\"}",
                    "a credential only as a Secret's key (secretKeyRef:), read into a reference as it is set"),
            Map.entry(
                    TUNE + "\"modelUri\": \"s3://m/x\", \"modelSecretAccessKey\": \"wJalrHttpKey\"}",
                    "a credential only as a Secret's key (secretKeyRef:), read into a reference as it is set"),
            Map.entry(
                    TUNE + "\"datasetUri\": \"s3://AKIA:wJalrInUri@bucket/d\"}",
                    "no credentials in a storage URI as the TrainJob carries it (the kind's scheme added)"),
            Map.entry(
                    TUNE + "\"datasetUri\": \"hf://d/x\", \"datasetEndpoint\": \"http://minio:9000\"}",
                    "a setting only the initializer of its kind reads (the kind from the URI's scheme)"),
            Map.entry("{}", "a payload, unless the runtime's launcher runs its own program (torchtune runs with none)"),
            Map.entry(
                    "{\"pythonFile\": \"/a.py\", \"datasetUri\": \"s3://data/set\"}",
                    "an initializer needs the runtime's initializer step (torch-distributed has none)"),
            Map.entry("{\"command\": \"python 'x.py\"}", "a command line is split as a shell would"),
            Map.entry(
                    "{\"pythonFile\": \"/a.py\", \"args\": \"--lr \\\"0.1\"}",
                    "a command line is split as a shell would"),
            Map.entry(
                    "{\"script\": \"print(1)\", \"annotations\": {\"note\": \"\\ud800\"}}",
                    "whole characters: half of a surrogate pair is no character UTF-8 can carry"));

    /** The OpenAPI document's own URI, for the schemas it holds to refer within it. */
    private static final String DOCUMENT = "https://camelkubeflow.io/q/openapi";
    /** POST /trainjobs's body: the contract, put in the document by TrainRequestOpenApiSchema. */
    private static final String TRAIN_REQUEST = "#/components/schemas/TrainRequest";

    /** The OpenAPI 3.1 specification's schema of a document, by its id, and the test resource holding it. */
    private static final String OPENAPI_31_SCHEMA = "https://spec.openapis.org/oas/3.1/schema/2022-10-07";

    private static final String OPENAPI_31_SCHEMA_FILE = "oas-3.1-schema-2022-10-07.json";

    @TestHTTPResource("/trainjobs")
    URL trainjobs;

    @Inject
    KubernetesClient client;

    @Test
    void everyRequestTheSuiteRefusesIsRefusedByTheSchemaAndTheAppAlike() throws Exception {
        Schema trainRequest = registry(document()).getSchema(SchemaLocation.of(DOCUMENT + TRAIN_REQUEST));
        Map<String, String> refused = new LinkedHashMap<>(HttpErrorContractTest.badRequests());
        refused.putAll(HttpErrorContractTest.badInitializerRequests());
        List<String> disagreements = new ArrayList<>();
        for (String body : refused.keySet()) {
            List<String> violations = violations(trainRequest, body);
            int status = post(body).statusCode();
            boolean appRefuses = status >= 400 && status < 500;
            String rule = BEYOND_THE_SCHEMA.get(body);
            if (!appRefuses) {
                disagreements.add(body + ": the app answered " + status);
            } else if (rule == null && violations.isEmpty()) {
                disagreements.add(body + ": the schema accepts what the app refuses");
            } else if (rule != null && !violations.isEmpty()) {
                disagreements.add(body + ": listed as beyond the schema (" + rule + "), but it refuses: " + violations);
            }
        }
        assertEquals(List.of(), disagreements);
    }

    /**
     * Every example request of the OpenAPI document is accepted by the schema and the app, and the app's answer is what
     * the document says a 201 is; the document's example problems are of the document's problem schema, each with the
     * type, title and status the app answers with; each operation has its id.
     */
    @Test
    void everyExampleOfTheDocumentIsAcceptedAndAnsweredAsDocumentedAndEachOperationHasItsId() throws Exception {
        JsonNode document = document();
        SchemaRegistry registry = registry(document);
        Schema trainRequest = registry.getSchema(SchemaLocation.of(DOCUMENT + TRAIN_REQUEST));
        Schema created = registry.getSchema(SchemaLocation.of(
                DOCUMENT + "#/paths/~1trainjobs/post/responses/201" + "/content/application~1json/schema"));
        JsonNode examples = document.at("/paths/~1trainjobs/post/requestBody/content/application~1json/examples");
        List<String> faults = new ArrayList<>();
        examples.fields().forEachRemaining(example -> {
            String body = example.getValue().get("value").toString();
            try {
                List<String> violations = violations(trainRequest, body);
                HttpResponse<String> answer = post(body);
                List<String> answerViolations = created.validate(new ObjectMapper().readTree(answer.body())).stream()
                        .map(Object::toString)
                        .toList();
                // gone again before its end is marked, so no later test sees the app write to it
                client.resources(TrainJob.class)
                        .inNamespace(String.valueOf(json(answer).get("namespace")))
                        .withName(String.valueOf(json(answer).get("name")))
                        .delete();
                if (!violations.isEmpty() || answer.statusCode() != 201 || !answerViolations.isEmpty()) {
                    faults.add(example.getKey() + ": schema " + violations + ", app " + answer.statusCode() + " "
                            + answer.body() + " " + answerViolations);
                }
            } catch (Exception e) {
                faults.add(example.getKey() + ": " + e);
            }
        });
        assertEquals(3, examples.size(), "a minimal request, a file in the image, a script");
        assertEquals(List.of(), faults);
        Set<String> operationIds = new TreeSet<>();
        document.get("paths")
                .forEach(path -> path.forEach(operation ->
                        operationIds.add(operation.path("operationId").asText())));
        assertEquals(
                new TreeSet<>(Set.of(
                        "createTrainJob",
                        "listTrainJobs",
                        "getTrainJob",
                        "getTrainJobEvents",
                        "deleteTrainJob",
                        "suspendTrainJob",
                        "resumeTrainJob",
                        "getRuntime",
                        "streamTrainJobLogs")),
                operationIds,
                "each operation's id, as docs/http-api.md lists them");
        Schema problem = registry.getSchema(SchemaLocation.of(DOCUMENT + "#/components/schemas/Problem"));
        List<JsonNode> exampleProblems = document.findValues("application/problem+json").stream()
                .map(content -> content.get("example"))
                .filter(example -> example != null)
                .toList();
        assertEquals(
                3,
                exampleProblems.size(),
                "the refusal's example and the log stream's 409 and 410: " + exampleProblems);
        List<String> problemFaults = new ArrayList<>();
        for (JsonNode example : exampleProblems) {
            problem.validate(example).forEach(violation -> problemFaults.add(example + ": " + violation));
            boolean asTheAppAnswers = Arrays.stream(ErrorAnswer.Problem.values())
                    .anyMatch(kind -> kind.type().equals(example.path("type").asText())
                            && kind.title().equals(example.path("title").asText())
                            && kind.answer("", null, null).status()
                                    == example.path("status").asInt());
            if (!asTheAppAnswers) {
                problemFaults.add(example + ": no problem the app answers has this type, title and status");
            }
        }
        assertEquals(List.of(), problemFaults);
    }

    /**
     * The served document is an OpenAPI 3.1 document as the specification's own schema of it says (the OpenAPI
     * Initiative's {@code https://spec.openapis.org/oas/3.1/schema/2022-10-07}, the one openapi-spec-validator runs, kept
     * in the test resources): generators and validators refuse a document that is not, e.g. a response without its
     * required description (Camel's REST DSL gives an operation with no response message an empty {@code default}).
     */
    @Test
    void theDocumentIsValidOpenApi31() throws Exception {
        String specification;
        try (var in = ContractAgreementTest.class.getResourceAsStream("/" + OPENAPI_31_SCHEMA_FILE)) {
            specification = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        Schema openApi31 = SchemaRegistry.withDefaultDialect(
                        Dialects.getDraft202012(), builder -> builder.schemas(Map.of(OPENAPI_31_SCHEMA, specification)))
                .getSchema(SchemaLocation.of(OPENAPI_31_SCHEMA));
        JsonNode document = document();
        assertEquals(
                List.of(),
                openApi31.validate(document).stream().map(Object::toString).toList());
        // where the document was read from, not the build's address: a generated client calls its first server
        assertEquals("[{\"url\":\"/\"}]", document.path("servers").toString());
    }

    private JsonNode document() throws Exception {
        return new ObjectMapper()
                .readTree(HTTP.send(
                                HttpRequest.newBuilder(trainjobs.toURI().resolve("/q/openapi?format=json"))
                                        .build(),
                                HttpResponse.BodyHandlers.ofString())
                        .body());
    }

    /** The document's schemas, read as OpenAPI 3.1 says (JSON Schema 2020-12), references resolved within it. */
    private static SchemaRegistry registry(JsonNode document) {
        return SchemaRegistry.withDefaultDialect(
                Dialects.getOpenApi31(), builder -> builder.schemas(Map.of(DOCUMENT, document.toString())));
    }

    /** What the schema finds wrong with a body; a body that is not one JSON value is wrong as text already. */
    private static List<String> violations(Schema trainRequest, String body) {
        JsonNode message;
        try {
            message = STRICT_JSON.readTree(body);
        } catch (Exception notJson) {
            return List.of("not one JSON value: " + notJson.getMessage());
        }
        if (message == null || message.isMissingNode()) {
            return List.of("no JSON value");
        }
        return trainRequest.validate(message).stream().map(Object::toString).toList();
    }

    private HttpResponse<String> post(String body) throws Exception {
        return HTTP.send(
                HttpRequest.newBuilder(URI.create(trainjobs.toString()))
                        .timeout(Duration.ofSeconds(30))
                        .header("Authorization", "Bearer " + HttpRoutesTest.localToken())
                        .header("Content-Type", "application/json")
                        .POST(HttpRequest.BodyPublishers.ofString(body))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
    }
}
