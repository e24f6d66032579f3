package io.camelkubeflow.trainer.routes;

import static io.camelkubeflow.trainer.routes.HttpRoutesTest.HTTP;
import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.camelkubeflow.trainer.api.TrainJob;
import io.camelkubeflow.trainer.quarkus.LocalTrainerSandbox;
import io.camelkubeflow.trainer.sandbox.cluster.TrainJobControllerEmulation;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.fabric8.mockwebserver.http.RecordedRequest;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import jakarta.inject.Inject;
import java.io.IOException;
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
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.eclipse.microprofile.config.ConfigProvider;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;

/**
 * Schemathesis (pinned in {@code src/test/schemathesis/requirements.txt}, installed by the build into
 * {@code target/schemathesis-venv}) fuzzes the HTTP API from its own OpenAPI document ({@code /q/openapi}), once as the
 * local developer (the token the app writes to its token file) and once as an authenticated caller with no rights.
 * Each run passes when Schemathesis finds no answer that is a 5xx, answers a status or a body the document does not
 * state, or is a 4xx other than problem details with a {@code field} or a {@code fix} ({@code checks.py}); and the
 * writes the sandbox saw are checked: none for the caller with no rights; for the developer, no more TrainJobs created
 * than answers 201.
 *
 * <p>The run's length is fixed by examples per operation and a seed, not by time, and no example database is read, so
 * the same requests are generated on any machine; the time limit only stops a hung run.
 */
@QuarkusTest
@QuarkusTestResource(FreshFolders.class)
@TestProfile(OpenApiFuzzTest.OwnApp.class)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class OpenApiFuzzTest {
    private static final Path SCHEMATHESIS =
            Path.of("target/schemathesis-venv/bin/schemathesis").toAbsolutePath();
    private static final Path CHECKS = Path.of("src/test/schemathesis").toAbsolutePath();
    /** Schemathesis' output and reports; also its working directory, where Hypothesis keeps its caches. */
    private static final Path REPORTS = Path.of("target/schemathesis").toAbsolutePath();

    private static final int EXAMPLES_PER_OPERATION = 20;
    private static final long SEED = 20261205;
    private static final Duration HUNG = Duration.ofMinutes(15);
    private static final ObjectMapper JSON = new ObjectMapper();

    /**
     * An app and sandbox of its own: the jobs other test classes leave (running, suspended, ended) would change what
     * the fuzzer meets and how long it takes.
     */
    public static class OwnApp implements QuarkusTestProfile {}

    @TestHTTPResource("/")
    URL root;

    @Inject
    LocalTrainerSandbox localSandbox;

    @Inject
    KubernetesClient client;

    /**
     * First, while only jobs of other tests exist: the app's own completion marks on those are told apart below, but
     * no job of the developer's run can then be ending (and marked) during this run.
     */
    @Timeout(value = 20, unit = TimeUnit.MINUTES)
    @Test
    @Order(1)
    void callerWithNoRightsGetsOnlyConformingRefusalsAndWritesNothing() throws Exception {
        String mallory = localSandbox.sandbox().issueToken("mallory");
        long since = localSandbox.sandbox().requestCount();
        Run run = schemathesis("no-rights", mallory);
        List<String> writes = writesSince(since);
        assertAll(
                () -> assertTrue(
                        run.answers("POST", 403) > 0,
                        "mallory's creates reached the access review (403" + " expected): " + run.answers),
                () -> assertEquals(List.of(), writes, "writes the sandbox saw during mallory's run"),
                () -> assertEquals(0, run.exitCode, run.failures()));
    }

    @Timeout(value = 20, unit = TimeUnit.MINUTES)
    @Test
    @Order(2)
    void developerGetsOnlyConformingAnswersAndEveryTrainJobCreatedIsA201() throws Exception {
        String developer = Files.readString(
                        Path.of(ConfigProvider.getConfig().getValue("trainer.http.token-file", String.class)))
                .strip();
        try (CreatedTrainJobs created = new CreatedTrainJobs(client)) {
            Run run = schemathesis("developer", developer);
            Set<String> createdInRun = created.sinceStart();
            assertAll(
                    () -> assertTrue(
                            run.answers("POST", 201) > 0,
                            "the run created no TrainJob: its train requests" + " never got through: " + run.answers),
                    () -> assertTrue(
                            createdInRun.size() <= run.answers("POST", 201),
                            createdInRun.size() + " TrainJobs created for " + run.answers("POST", 201)
                                    + " answers 201: " + createdInRun),
                    () -> assertEquals(0, run.exitCode, run.failures()));
        }
    }

    /**
     * The document's train request is the contract as written, keyword for keyword: the request schema, and each
     * definition it refers to as a component schema of its own ({@code TrainRequest.<name>} for {@code $defs/<name>}).
     */
    @Test
    @Order(0)
    void openApiDocumentTakesTheTrainRequestOfTheContract() throws Exception {
        JsonNode document = JSON.readTree(HTTP.send(
                        HttpRequest.newBuilder(root.toURI().resolve("q/openapi?format=json"))
                                .build(),
                        HttpResponse.BodyHandlers.ofString())
                .body());
        assertEquals("3.1.0", document.path("openapi").asText(), "OpenAPI 3.1: schemas in JSON Schema 2020-12");
        JsonNode body = document.at("/paths/~1trainjobs/post/requestBody/content/application~1json/schema/$ref");
        assertEquals("#/components/schemas/TrainRequest", body.asText(), "POST /trainjobs's body schema");
        ObjectNode contract = (ObjectNode)
                JSON.readTree(OpenApiFuzzTest.class.getResourceAsStream("/contracts/train-request.schema.json"));
        JsonNode definitions = contract.remove("$defs");
        contract.remove(List.of("$schema", "$id"));
        JsonNode schemas = document.at("/components/schemas");
        assertEquals(contract, asContract(schemas.get("TrainRequest")), "components/schemas/TrainRequest");
        Set<String> documentDefinitions = new TreeSet<>();
        for (String name : (Iterable<String>) schemas::fieldNames) {
            if (name.startsWith("TrainRequest.")) {
                String definition = name.substring("TrainRequest.".length());
                documentDefinitions.add(definition);
                assertEquals(definitions.get(definition), asContract(schemas.get(name)), "components/schemas/" + name);
            }
        }
        Set<String> referred = new TreeSet<>();
        Matcher references =
                Pattern.compile("\"#/\\$defs/([^\"]+)\"").matcher(contract.toString() + definitions.toString());
        while (references.find()) {
            referred.add(references.group(1));
        }
        assertEquals(referred, documentDefinitions, "the definitions the request refers to, each in the document");
    }

    /** A schema of the document as the contract writes it: its references to the request's definitions as $defs. */
    private static JsonNode asContract(JsonNode schema) throws IOException {
        return JSON.readTree(schema.toString().replace("\"#/components/schemas/TrainRequest.", "\"#/$defs/"));
    }

    /**
     * A Schemathesis run: its exit code, its output and, from its HAR report (every request it sent and the answer),
     * how many answers it got by "METHOD status".
     */
    private record Run(int exitCode, String output, Map<String, Integer> answers) {
        int answers(String method, int status) {
            return answers.getOrDefault(method + " " + status, 0);
        }

        /** Schemathesis' account of what failed: its failures and summary, without the progress lines before. */
        String failures() {
            int start = output.indexOf("FAILURES");
            String shown = start < 0 ? output : output.substring(Math.max(0, output.lastIndexOf('\n', start)));
            return "Schemathesis found failures (exit " + exitCode + "):\n"
                    + (shown.length() > 30_000 ? shown.substring(0, 30_000) + "\n..." : shown);
        }
    }

    private Run schemathesis(String name, String token) throws IOException, InterruptedException {
        assertTrue(
                Files.isExecutable(SCHEMATHESIS),
                SCHEMATHESIS + " is missing: the build makes it"
                        + " (generate-test-resources, src/test/schemathesis/make_venv.py)");
        Files.createDirectories(REPORTS);
        Path output = REPORTS.resolve(name + ".txt");
        Path har = REPORTS.resolve(name + ".har");
        Files.deleteIfExists(har);
        String base = "http://" + root.getHost() + ":" + root.getPort();
        List<String> command = new ArrayList<>(List.of(
                SCHEMATHESIS.toString(),
                "--config-file",
                CHECKS.resolve("schemathesis.toml").toString(),
                "run",
                base + "/q/openapi?format=json",
                "--url",
                base,
                "--header",
                "Authorization: Bearer " + token,
                "--checks",
                "not_a_server_error,status_code_conformance,content_type_conformance,"
                        + "response_schema_conformance,refusal_is_problem_details_with_field_or_fix",
                "--max-examples",
                String.valueOf(EXAMPLES_PER_OPERATION),
                "--seed",
                String.valueOf(SEED),
                // one worker: the requests come in the same order on every run
                "--workers",
                "1",
                // examples found by earlier runs would make this run differ from a fresh machine's
                "--generation-database",
                "none",
                // Hypothesis' health checks time the generation: the outcome would depend on the machine's speed
                "--suppress-health-check",
                "all",
                // an answer held longer fails the run (as a timeout) instead of holding it up: no answer waits but a
                // log follow's, for a pod to start and the job to end, and the jobs of the fuzzer's own run start
                // within the sandbox's start delay and run its run time (a plain read answers at once)
                "--request-timeout",
                "15",
                "--report",
                "har",
                "--report-har-path",
                har.toString(),
                "--no-color"));
        ProcessBuilder builder = new ProcessBuilder(command)
                .directory(REPORTS.toFile())
                .redirectErrorStream(true)
                .redirectOutput(output.toFile());
        builder.environment().put("SCHEMATHESIS_HOOKS", "checks");
        builder.environment().put("PYTHONPATH", CHECKS.toAbsolutePath().toString());
        Process process = builder.start();
        if (!process.waitFor(HUNG.toMinutes(), TimeUnit.MINUTES)) {
            process.destroyForcibly().waitFor();
            throw new AssertionError("Schemathesis did not end within " + HUNG + "; its output: " + output);
        }
        Map<String, Integer> answers = new TreeMap<>();
        for (JsonNode entry : JSON.readTree(har.toFile()).at("/log/entries")) {
            answers.merge(
                    entry.at("/request/method").asText() + " "
                            + entry.at("/response/status").asInt(),
                    1,
                    Integer::sum);
        }
        return new Run(process.exitValue(), Files.readString(output, StandardCharsets.UTF_8), answers);
    }

    /**
     * The writes the sandbox saw since {@code since} that a request to the app could cause (as HostileCallersTest
     * counts them): of TrainJobs (not their status, which the emulated controller writes), ConfigMaps and Secrets; the
     * app's own completion mark on an ended job (its events route, not a request) left out.
     */
    private List<String> writesSince(long since) {
        List<RecordedRequest> requests = localSandbox.sandbox().requestsSince(since);
        assertEquals(
                localSandbox.sandbox().requestCount() - since,
                requests.size(),
                "the sandbox keeps every request of the run");
        return requests.stream()
                .filter(r -> !"GET".equals(r.getMethod()))
                // the emulated Trainer's own writes (a job's runtime snapshot) left out
                .filter(r -> !TrainJobControllerEmulation.USER_AGENT.equals(r.getHeader("User-Agent")))
                .filter(r -> (r.getPath().contains("/trainjobs") && !r.getPath().contains("/status"))
                        || r.getPath().contains("/configmaps")
                        || r.getPath().contains("/secrets"))
                .filter(r -> !("PATCH".equals(r.getMethod()) && r.getUtf8Body().contains("camelkubeflow.io/handled-")))
                .map(r -> r.getMethod() + " " + r.getPath() + " " + r.getUtf8Body())
                .toList();
    }

    /**
     * The TrainJobs the API server creates while it is open, in any namespace, told by their uids: the objects an
     * informer learns of, less those there at its start, and those a list at the end finds (should the informer lag).
     */
    private static final class CreatedTrainJobs implements AutoCloseable {
        private final KubernetesClient client;
        private final Set<String> added = ConcurrentHashMap.newKeySet();
        private final Set<String> atStart;
        private final SharedIndexInformer<TrainJob> informer;

        CreatedTrainJobs(KubernetesClient client) {
            this.client = client;
            informer = client.resources(TrainJob.class).inAnyNamespace().inform(new ResourceEventHandler<>() {
                @Override
                public void onAdd(TrainJob job) {
                    added.add(job.getMetadata().getUid());
                }

                @Override
                public void onUpdate(TrainJob before, TrainJob after) {}

                @Override
                public void onDelete(TrainJob job, boolean finalStateUnknown) {}
            });
            // inform() returns once the first list is in the store: those are the jobs there before
            atStart = informer.getStore().list().stream()
                    .map(job -> job.getMetadata().getUid())
                    .collect(Collectors.toSet());
        }

        Set<String> sinceStart() {
            Set<String> created = new TreeSet<>(added);
            client.resources(TrainJob.class)
                    .inAnyNamespace()
                    .list()
                    .getItems()
                    .forEach(job -> created.add(job.getMetadata().getUid()));
            created.removeAll(atStart);
            return created;
        }

        @Override
        public void close() {
            informer.close();
        }
    }
}
