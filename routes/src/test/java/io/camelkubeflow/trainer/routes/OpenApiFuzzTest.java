package io.camelkubeflow.trainer.routes;

import java.io.IOException;
import java.net.URI;
import java.net.URL;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.mockwebserver.http.RecordedRequest;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import org.eclipse.microprofile.config.ConfigProvider;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

import static io.camelkubeflow.trainer.routes.HttpRoutesTest.HTTP;
import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Schemathesis (pinned in {@code src/test/schemathesis/requirements.txt}, installed by the build into
 * {@code target/schemathesis-venv}) fuzzes the HTTP API from its own OpenAPI document ({@code /q/openapi}), once as the
 * local developer (the token the app writes to its token file) and once as an authenticated caller with no rights.
 * Each run passes when Schemathesis finds no answer that is a 5xx, answers a status or a body the document does not
 * state, or is a 4xx without a JSON {@code {"error", "field" | "fix"}} ({@code checks.py}); and the writes the sandbox
 * saw are checked: none for the caller with no rights, no more TrainJob creates than 201 answers for the developer.
 *
 * <p>The run's length is fixed by examples per operation and a seed, not by time, and no example database is read, so
 * the same requests are generated on any machine; the time limit only stops a hung run.
 */
@QuarkusTest
@QuarkusTestResource(FreshFolders.class)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class OpenApiFuzzTest {
    private static final Path SCHEMATHESIS = Path.of("target/schemathesis-venv/bin/schemathesis");
    private static final Path CHECKS = Path.of("src/test/schemathesis");
    private static final Path REPORTS = Path.of("target/schemathesis");
    private static final int EXAMPLES_PER_OPERATION = 20;
    private static final long SEED = 20261205;
    private static final Duration HUNG = Duration.ofMinutes(15);
    private static final ObjectMapper JSON = new ObjectMapper();
    /** A Prometheus line of the app's HTTP server meter: its tags (a uri tag may hold braces) and count. */
    private static final Pattern HTTP_ANSWERS = Pattern.compile(
            "^http_server_requests_seconds_count\\{(.*)} ([0-9.E+-]+)$", Pattern.MULTILINE);

    @TestHTTPResource("/")
    URL root;

    @Inject
    KubernetesClientProducer clients;

    /**
     * First, while only jobs of other tests exist: the app's own completion marks on those are told apart below, but
     * no job of the developer's run can then be ending (and marked) during this run.
     */
    @Test
    @Order(1)
    void callerWithNoRightsGetsOnlyConformingRefusalsAndWritesNothing() throws Exception {
        String mallory = clients.sandbox().issueToken("mallory");
        long since = clients.sandbox().requestCount();
        Map<String, Double> answersBefore = answersByMethodAndStatus();
        Run run = schemathesis("no-rights", mallory);
        List<String> writes = writesSince(since);
        Map<String, Double> answers = delta(answersBefore, answersByMethodAndStatus());
        assertAll(
                () -> assertTrue(answers.getOrDefault("GET 403", 0.0) > 0,
                        "mallory's requests reached the access review (403s expected): " + answers),
                () -> assertEquals(List.of(), writes, "writes the sandbox saw during mallory's run"),
                () -> assertEquals(0, run.exitCode, run.failures()));
    }

    @Test
    @Order(2)
    void developerGetsOnlyConformingAnswersAndEveryTrainJobCreateIsA201() throws Exception {
        String developer = Files.readString(Path.of(ConfigProvider.getConfig().getValue("trainer.http.token-file",
                String.class))).strip();
        long since = clients.sandbox().requestCount();
        Map<String, Double> answersBefore = answersByMethodAndStatus();
        Run run = schemathesis("developer", developer);
        // a create is a POST to a namespace's trainjobs collection (path up to its query)
        List<String> creates = writesSince(since).stream()
                .filter(w -> w.startsWith("POST ") && w.split("[ ?]")[1].endsWith("/trainjobs"))
                .toList();
        double created = delta(answersBefore, answersByMethodAndStatus()).getOrDefault("POST 201", 0.0);
        assertAll(
                () -> assertTrue(created > 0, "the run created no TrainJob: its train requests never got through"),
                () -> assertTrue(creates.size() <= created, creates.size() + " TrainJob creates for " + created
                        + " answers 201: " + creates),
                () -> assertEquals(0, run.exitCode, run.failures()));
    }

    @Test
    @Order(0)
    void openApiDocumentTakesTheTrainRequestOfTheContract() throws Exception {
        JsonNode document = JSON.readTree(HTTP.send(HttpRequest.newBuilder(root.toURI().resolve("q/openapi?format=json"))
                .build(), HttpResponse.BodyHandlers.ofString()).body());
        JsonNode body = document.at("/paths/~1trainjobs/post/requestBody/content/application~1json/schema/$ref");
        assertEquals("#/components/schemas/TrainRequest", body.asText(), "POST /trainjobs's body schema");
        JsonNode contract = JSON.readTree(OpenApiFuzzTest.class.getResourceAsStream(
                "/contracts/train-request.schema.json"));
        assertEquals(fieldNames(contract.get("properties")),
                fieldNames(document.at("/components/schemas/TrainRequest/properties")),
                "the train request's fields in the OpenAPI document and in contracts/train-request.schema.json");
    }

    private static TreeSet<String> fieldNames(JsonNode properties) {
        TreeSet<String> names = new TreeSet<>();
        properties.fieldNames().forEachRemaining(names::add);
        return names;
    }

    private record Run(int exitCode, String output) {
        /** Schemathesis' account of what failed: its failures and summary, without the progress lines before. */
        String failures() {
            int start = output.indexOf("FAILURES");
            String shown = start < 0 ? output : output.substring(Math.max(0, output.lastIndexOf('\n', start)));
            return "Schemathesis found failures (exit " + exitCode + "):\n"
                    + (shown.length() > 30_000 ? shown.substring(0, 30_000) + "\n..." : shown);
        }
    }

    private Run schemathesis(String name, String token) throws IOException, InterruptedException {
        assertTrue(Files.isExecutable(SCHEMATHESIS), SCHEMATHESIS.toAbsolutePath() + " is missing: the build makes it"
                + " (generate-test-resources, src/test/schemathesis/make_venv.py)");
        Files.createDirectories(REPORTS);
        Path output = REPORTS.resolve(name + ".txt");
        String base = "http://" + root.getHost() + ":" + root.getPort();
        List<String> command = new ArrayList<>(List.of(SCHEMATHESIS.toString(),
                "--config-file", CHECKS.resolve("schemathesis.toml").toString(), "run", base + "/q/openapi?format=json",
                "--url", base,
                "--header", "Authorization: Bearer " + token,
                "--checks", "not_a_server_error,status_code_conformance,content_type_conformance,"
                        + "response_schema_conformance,refusal_is_json_with_error_and_field_or_fix",
                "--max-examples", String.valueOf(EXAMPLES_PER_OPERATION),
                "--seed", String.valueOf(SEED),
                // one worker: the requests come in the same order on every run
                "--workers", "1",
                // examples found by earlier runs would make this run differ from a fresh machine's
                "--generation-database", "none",
                // Hypothesis' health checks time the generation: the outcome would depend on the machine's speed
                "--suppress-health-check", "all",
                "--request-timeout", "60",
                "--report", "har", "--report-har-path", REPORTS.resolve(name + ".har").toString(),
                "--no-color"));
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(output.toFile());
        builder.environment().put("SCHEMATHESIS_HOOKS", "checks");
        builder.environment().put("PYTHONPATH", CHECKS.toAbsolutePath().toString());
        Process process = builder.start();
        if (!process.waitFor(HUNG.toMinutes(), TimeUnit.MINUTES)) {
            process.destroyForcibly().waitFor();
            throw new AssertionError("Schemathesis did not end within " + HUNG + "; its output: " + output);
        }
        return new Run(process.exitValue(), Files.readString(output, StandardCharsets.UTF_8));
    }

    /**
     * The writes the sandbox saw since {@code since} that a request to the app could cause (as HostileCallersTest
     * counts them): of TrainJobs (not their status, which the emulated controller writes), ConfigMaps and Secrets; the
     * app's own completion mark on an ended job (its events route, not a request) left out.
     */
    private List<String> writesSince(long since) {
        List<RecordedRequest> requests = clients.sandbox().requestsSince(since);
        assertEquals(clients.sandbox().requestCount() - since, requests.size(),
                "the sandbox keeps every request of the run");
        return requests.stream()
                .filter(r -> !"GET".equals(r.getMethod()))
                .filter(r -> (r.getPath().contains("/trainjobs") && !r.getPath().contains("/status"))
                        || r.getPath().contains("/configmaps") || r.getPath().contains("/secrets"))
                .filter(r -> !("PATCH".equals(r.getMethod()) && r.getUtf8Body().contains("camelkubeflow.io/handled-")))
                .map(r -> r.getMethod() + " " + r.getPath() + " " + r.getUtf8Body())
                .toList();
    }

    /** How many answers the app gave, by "METHOD status", as its own HTTP server meter counts them. */
    private Map<String, Double> answersByMethodAndStatus() throws Exception {
        String metrics = HTTP.send(HttpRequest.newBuilder(root.toURI().resolve("q/metrics")).build(),
                HttpResponse.BodyHandlers.ofString()).body();
        Map<String, Double> answers = new java.util.TreeMap<>();
        Matcher line = HTTP_ANSWERS.matcher(metrics);
        while (line.find()) {
            String method = tag(line.group(1), "method");
            String status = tag(line.group(1), "status");
            answers.merge(method + " " + status, Double.parseDouble(line.group(2)), Double::sum);
        }
        return answers;
    }

    private static String tag(String tags, String name) {
        Matcher value = Pattern.compile("(?:^|,)" + name + "=\"([^\"]*)\"").matcher(tags);
        return value.find() ? value.group(1) : "";
    }

    private static Map<String, Double> delta(Map<String, Double> before, Map<String, Double> after) {
        Map<String, Double> delta = new java.util.TreeMap<>();
        after.forEach((key, count) -> delta.put(key, count - before.getOrDefault(key, 0.0)));
        return delta;
    }
}
