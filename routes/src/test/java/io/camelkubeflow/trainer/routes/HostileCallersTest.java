package io.camelkubeflow.trainer.routes;

import static io.camelkubeflow.trainer.routes.HttpRoutesTest.HTTP;
import static io.camelkubeflow.trainer.routes.HttpRoutesTest.json;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.camelkubeflow.trainer.api.TrainJob;
import io.camelkubeflow.trainer.quarkus.LocalTrainerSandbox;
import io.camelkubeflow.trainer.sandbox.cluster.TrainJobControllerEmulation;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.api.model.rbac.PolicyRuleBuilder;
import io.fabric8.kubernetes.api.model.rbac.RoleBindingBuilder;
import io.fabric8.kubernetes.api.model.rbac.RoleBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.mockwebserver.http.RecordedRequest;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.net.URI;
import java.net.URL;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The HTTP API against callers who try what a hostile tester tried, each refusal checked by the writes the API server
 * saw (none), each operation with a positive control. The callers, through RBAC objects in the sandbox: alice may
 * create, get, list, delete and patch TrainJobs and read pod logs in {@code default}; carol may only get them;
 * mallory is authenticated and has no rights; eve has none either, and one group named {@code dev,system:masters};
 * an OIDC user's groups claim holds that name too.
 */
@QuarkusTest
@QuarkusTestResource(FreshFolders.class)
@QuarkusTestResource(OidcProviderResource.class)
class HostileCallersTest {
    private static final String SCRIPT = "{\"script\": \"print(1)\"}";
    /** What platform-http would turn into the header the caller's groups once travelled in, joined by commas. */
    private static final String GROUPS_QUERY = "X-Kubeflow-Trainer-Caller-Groups=,system:masters,";

    @TestHTTPResource("/trainjobs")
    URL trainjobs;

    @Inject
    KubernetesClient client;

    @Inject
    LocalTrainerSandbox localSandbox;

    private String alice;
    private String carol;
    private String mallory;
    private String eve;

    @BeforeEach
    void callers() {
        role("operates", "create", "get", "list", "delete", "patch");
        role("reads", "get");
        bind("alice", "operates");
        bind("carol", "reads");
        client.resource(new RoleBuilder()
                        .withNewMetadata()
                        .withName("logs")
                        .withNamespace("default")
                        .endMetadata()
                        .withRules(new PolicyRuleBuilder()
                                .withApiGroups("")
                                .withResources("pods/log")
                                .withVerbs("get")
                                .build())
                        .build())
                .createOr(r -> r.update());
        bind("alice", "logs");
        client.resource(new SecretBuilder()
                        .withNewMetadata()
                        .withName("db-credentials")
                        .withNamespace("default")
                        .endMetadata()
                        .addToStringData("password", "s3cret")
                        .build())
                .createOr(r -> r.update());
        alice = localSandbox.sandbox().issueToken("alice");
        carol = localSandbox.sandbox().issueToken("carol");
        mallory = localSandbox.sandbox().issueToken("mallory");
        eve = localSandbox.sandbox().issueToken("eve", "dev,system:masters");
    }

    private void role(String name, String... verbs) {
        client.resource(new RoleBuilder()
                        .withNewMetadata()
                        .withName(name)
                        .withNamespace("default")
                        .endMetadata()
                        .withRules(new PolicyRuleBuilder()
                                .withApiGroups("trainer.kubeflow.org")
                                .withResources("trainjobs")
                                .withVerbs(verbs)
                                .build())
                        .build())
                .createOr(r -> r.update());
    }

    private void bind(String user, String role) {
        client.resource(new RoleBindingBuilder()
                        .withNewMetadata()
                        .withName(user + "-" + role)
                        .withNamespace("default")
                        .endMetadata()
                        .addNewSubject()
                        .withKind("User")
                        .withName(user)
                        .endSubject()
                        .withNewRoleRef()
                        .withApiGroup("rbac.authorization.k8s.io")
                        .withKind("Role")
                        .withName(role)
                        .endRoleRef()
                        .build())
                .createOr(r -> r.update());
    }

    private HttpResponse<String> send(
            String method, String pathAndQuery, String body, String token, Map<String, String> headers)
            throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(trainjobs + pathAndQuery))
                .timeout(Duration.ofSeconds(30))
                .header("Content-Type", "application/json")
                .method(
                        method,
                        body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body))
                .header("Authorization", "Bearer " + token);
        headers.forEach(request::header);
        return HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    private HttpResponse<String> send(String method, String pathAndQuery, String body, String token) throws Exception {
        return send(method, pathAndQuery, body, token, Map.of());
    }

    /**
     * The writes the API server saw since {@code since} that a request to the app could cause: of TrainJobs (not
     * their status, which the emulated controller writes), ConfigMaps and Secrets; each as method, path and body.
     */
    private List<String> writesSince(long since) {
        return localSandbox.sandbox().requestsSince(since).stream()
                .filter(r -> !"GET".equals(r.getMethod()))
                // the emulated Trainer's own writes (a job's runtime snapshot) left out
                .filter(r -> !TrainJobControllerEmulation.USER_AGENT.equals(r.getHeader("User-Agent")))
                .filter(r -> (r.getPath().contains("/trainjobs") && !r.getPath().contains("/status"))
                        || r.getPath().contains("/configmaps")
                        || r.getPath().contains("/secrets"))
                .map(r -> r.getMethod() + " " + r.getPath() + " " + r.getUtf8Body())
                .toList();
    }

    private String createdByAlice(String key) throws Exception {
        HttpResponse<String> created = send("POST", "", SCRIPT, alice, Map.of("Idempotency-Key", key));
        assertTrue(created.statusCode() == 201 || created.statusCode() == 200, created.body());
        return (String) json(created).get("name");
    }

    /**
     * Waits until the app's completion route marked the job's end, the last write the app makes of its own to a job:
     * from then on every write to it is one a request caused.
     */
    private void awaitHandledEnd(String job) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (System.nanoTime() < deadline) {
            Map<String, String> annotations = client.resources(TrainJob.class)
                    .inNamespace("default")
                    .withName(job)
                    .get()
                    .getMetadata()
                    .getAnnotations();
            if (annotations != null
                    && annotations.keySet().stream().anyMatch(k -> k.startsWith("camelkubeflow.io/handled-"))) {
                return;
            }
            Thread.sleep(100);
        }
        throw new AssertionError("the completion route never marked the end of " + job);
    }

    @Test
    void noQueryParameterOrHeaderGivesACallerAnotherGroup() throws Exception {
        String job = createdByAlice("hostile-groups");
        awaitHandledEnd(job);
        long since = localSandbox.sandbox().requestCount();
        Map<String, String> forgedHeaders = Map.of(
                "X-Kubeflow-Trainer-Caller-Groups",
                "system:masters",
                "X-Kubeflow-Trainer-Caller-User",
                "developer",
                "camelkubeflowtrainercalleruser",
                "developer",
                "CamelVertxPlatformHttpAuthenticatedUser",
                "developer");
        for (String[] attempt : List.of(
                new String[] {"GET", ""},
                new String[] {"POST", ""},
                new String[] {"GET", "/" + job},
                new String[] {"DELETE", "/" + job},
                new String[] {"POST", "/" + job + "/suspend"},
                new String[] {"POST", "/" + job + "/resume"},
                new String[] {"GET", "/" + job + "/logs"})) {
            for (String query : List.of(
                    GROUPS_QUERY,
                    GROUPS_QUERY.toLowerCase(),
                    "CamelKubeflowTrainerCallerGroups=system:masters&CamelKubeflowTrainerCallerUser=developer",
                    "CamelVertxPlatformHttpAuthenticatedUser=developer")) {
                HttpResponse<String> refused = send(
                        attempt[0],
                        attempt[1] + "?" + query,
                        "POST".equals(attempt[0]) && attempt[1].isEmpty() ? SCRIPT : null,
                        mallory,
                        forgedHeaders);
                assertTrue(
                        refused.statusCode() == 403 || refused.statusCode() == 401,
                        attempt[0] + " " + attempt[1] + "?" + query + " by mallory: " + refused.statusCode() + " "
                                + refused.body());
                assertNotNull(json(refused).get("detail"), refused.body());
            }
        }
        assertEquals(List.of(), writesSince(since));
        assertNotNull(client.resources(TrainJob.class)
                .inNamespace("default")
                .withName(job)
                .get());
    }

    @Test
    void aGroupNameWithACommaGivesNoOtherGroup() throws Exception {
        long since = localSandbox.sandbox().requestCount();
        String oidcEve = OidcProviderResource.provider.token("eve", List.of("dev,system:masters"));
        for (String token : List.of(eve, oidcEve)) {
            HttpResponse<String> listed = send("GET", "", null, token);
            assertEquals(403, listed.statusCode(), listed.body());
            HttpResponse<String> created = send("POST", "", SCRIPT, token);
            assertEquals(403, created.statusCode(), created.body());
            assertTrue(String.valueOf(json(created).get("detail")).contains("dev,system:masters"), created.body());
        }
        assertEquals(List.of(), writesSince(since));
    }

    @Test
    void aNameFromThePathThatIsNoTrainJobNameIs400BeforeAnyReviewOrRequest() throws Exception {
        String traversal = "..%2F..%2F..%2F..%2Fapi%2Fv1%2Fnamespaces%2Fdefault%2Fsecrets%2Fdb-credentials";
        long since = localSandbox.sandbox().requestCount();
        for (String[] attempt : List.of(
                new String[] {"DELETE", "/" + traversal},
                new String[] {"GET", "/" + traversal},
                new String[] {"POST", "/" + traversal + "/suspend"},
                new String[] {"POST", "/" + traversal + "/resume"},
                new String[] {"GET", "/" + traversal + "/logs"},
                new String[] {"GET", "/UPPER"},
                new String[] {"GET", "/" + "a".repeat(64)})) {
            HttpResponse<String> refused = send(attempt[0], attempt[1], null, alice);
            assertEquals(400, refused.statusCode(), attempt[0] + " " + attempt[1] + ": " + refused.body());
            assertEquals("name", json(refused).get("field"), refused.body());
        }
        for (String[] attempt : List.of(
                new String[] {"GET", "?namespace=..%2Fkube-system"},
                new String[] {"GET", "/some-job?namespace=a%2Fb"},
                new String[] {"DELETE", "/some-job?namespace=A"},
                new String[] {"GET", "/some-job/logs?namespace=..%2F.."})) {
            HttpResponse<String> refused = send(attempt[0], attempt[1], null, alice);
            assertEquals(400, refused.statusCode(), attempt[0] + " " + attempt[1] + ": " + refused.body());
            assertEquals("namespace", json(refused).get("field"), refused.body());
        }
        // the emulated controller goes on writing the jobs of other tests: only reviews and requests naming what was
        // refused count
        List<String> reviewsOrRequests = localSandbox.sandbox().requestsSince(since).stream()
                .map(RecordedRequest::getPath)
                .filter(path -> path.contains("/subjectaccessreviews")
                        || path.contains("secrets")
                        || path.contains("some-job")
                        || path.contains("UPPER")
                        || path.contains("aaaaaaaa")
                        || path.contains("kube-system")
                        || path.contains(".."))
                .toList();
        assertEquals(List.of(), reviewsOrRequests, "a refused name reached the API server");
        assertNotNull(client.secrets()
                .inNamespace("default")
                .withName("db-credentials")
                .get());
    }

    @Test
    void aCallerCannotTakeTheNameAnotherCallersKeyWillMake() throws Exception {
        long since = localSandbox.sandbox().requestCount();
        HttpResponse<String> refused =
                send("POST", "", "{\"script\": \"print(1)\", \"jobName\":" + " \"trainjob-0123456789ab\"}", alice);
        assertEquals(400, refused.statusCode(), refused.body());
        assertEquals("jobName", json(refused).get("field"), refused.body());
        assertEquals(List.of(), writesSince(since));
    }

    @Test
    void aCallerWithNoRightsLearnsNothingOfTheRuntimes() throws Exception {
        HttpResponse<String> missing =
                send("POST", "", "{\"script\": \"print(1)\", \"runtime\": \"no-such-runtime\"}", mallory);
        HttpResponse<String> existing =
                send("POST", "", "{\"script\": \"print(1)\", \"runtime\":" + " \"torch-distributed\"}", mallory);
        assertEquals(403, missing.statusCode(), missing.body());
        assertEquals(existing.statusCode(), missing.statusCode());
        assertEquals(json(existing), json(missing));
    }

    @Test
    void anOidcNameWithControlCharactersIs401() throws Exception {
        long since = localSandbox.sandbox().requestCount();
        for (String token : List.of(
                OidcProviderResource.provider.token("alice\r\nX-Forged: 1", List.of()),
                OidcProviderResource.provider.token("alice", List.of("ml\r\nteam")))) {
            HttpResponse<String> refused = send("GET", "", null, token);
            assertEquals(401, refused.statusCode(), refused.body());
            assertTrue(String.valueOf(json(refused).get("detail")).contains("control characters"), refused.body());
        }
        assertEquals(List.of(), writesSince(since));
    }

    @Test
    void noRequestHeaderOrQueryParameterComesBackAsAResponseHeader() throws Exception {
        HttpResponse<String> listed = send(
                "GET",
                "?Set-Cookie=session%3Devil&Access-Control-Allow-Origin=https%3A%2F"
                        + "%2Fevil.example&Location=https%3A%2F%2Fevil.example",
                null,
                alice,
                Map.of("X-Api-Key", "k", "Content-Type", "text/html"));
        assertEquals(200, listed.statusCode(), listed.body());
        for (String header :
                List.of("Set-Cookie", "Access-Control-Allow-Origin", "Location", "X-Api-Key", "Authorization")) {
            assertTrue(listed.headers().firstValue(header).isEmpty(), header + " came back: " + listed.headers());
        }
        assertEquals(
                "application/json", listed.headers().firstValue("Content-Type").orElseThrow());
        // a control character in a parameter once failed the answer after the job was made: now it is just ignored
        long since = localSandbox.sandbox().requestCount();
        HttpResponse<String> created = send(
                "POST",
                "?junk=a%0Ab%0D%1B",
                "{\"script\": \"print(1)\"}",
                alice,
                Map.of("Idempotency-Key", "control-in-query"));
        assertEquals(201, created.statusCode(), created.body());
        assertEquals(
                1, writesSince(since).stream().filter(w -> w.startsWith("POST")).count());
    }

    @Test
    void anOptionShapedPythonFileIsRefusedAsNoFile() throws Exception {
        long since = localSandbox.sandbox().requestCount();
        for (String body : List.of(
                "{\"pythonFile\": \"--no-python\", \"args\": [\"bash\", \"-c\", \"id\"]}",
                "{\"launcher\": \"python\", \"pythonFile\": \"-c\", \"args\": [\"print(1)\"]}")) {
            HttpResponse<String> refused = send("POST", "", body, alice);
            assertEquals(400, refused.statusCode(), refused.body());
            assertEquals("pythonFile", json(refused).get("field"), refused.body());
        }
        assertEquals(List.of(), writesSince(since));
    }

    @Test
    void aBodyIsOneJsonObjectOfWholeCharacters() throws Exception {
        long since = localSandbox.sandbox().requestCount();
        for (String body :
                List.of("{\"script\": \"print(1)\"} {\"x\": 1}", "{\"script\": \"print(\\\"\\ud800\\\")\"}")) {
            HttpResponse<String> refused = send("POST", "", body, alice);
            assertEquals(400, refused.statusCode(), body + ": " + refused.body());
        }
        assertEquals(List.of(), writesSince(since));
    }

    @Test
    void aConflictDoesNotTellAnotherCallersKey() throws Exception {
        HttpResponse<String> first = send(
                "POST",
                "",
                "{\"script\": \"print(1)\", \"jobName\": \"alices-named\"}",
                alice,
                Map.of("Idempotency-Key", "alices-secret-key"));
        assertTrue(first.statusCode() == 201 || first.statusCode() == 200, first.body());
        HttpResponse<String> conflict = send(
                "POST",
                "",
                "{\"script\": \"print(1)\", \"jobName\":" + " \"alices-named\"}",
                HttpRoutesTest.localToken(),
                Map.of("Idempotency-Key", "developers-key"));
        assertEquals(409, conflict.statusCode(), conflict.body());
        assertTrue(!conflict.body().contains("alices-secret-key"), conflict.body());
    }

    @Test
    void theMetricsTellNoJobNameOfARefusedRequest() throws Exception {
        HttpRequest unauthenticated = HttpRequest.newBuilder(URI.create(trainjobs + "/name-only-mallory-knows"))
                .GET()
                .build();
        assertEquals(
                401,
                HTTP.send(unauthenticated, HttpResponse.BodyHandlers.ofString()).statusCode());
        String scraped = HTTP.send(
                        HttpRequest.newBuilder(URI.create(trainjobs.toString().replace("/trainjobs", "/q/metrics")))
                                .header("Authorization", "Bearer " + HttpRoutesTest.localToken())
                                .GET()
                                .build(),
                        HttpResponse.BodyHandlers.ofString())
                .body();
        assertTrue(scraped.contains("uri=\"/trainjobs/{name}\""), "no templated path in the metrics");
        assertTrue(!scraped.contains("name-only-mallory-knows"), "the metrics name a refused request's job");
    }

    /**
     * A caller who may read pod logs but not get TrainJobs learns nothing of a job from its log endpoint: the same 403
     * for a job that exists (and is suspended) and for one that does not, and the app looks neither up.
     */
    @Test
    void aCallerWhoMayOnlyReadPodLogsGetsTheSame403ForAJobThatExistsAndOneThatDoesNot() throws Exception {
        bind("lena", "logs");
        String lena = localSandbox.sandbox().issueToken("lena");
        String job = createdByAlice("oracle-exists");
        assertEquals(200, send("POST", "/" + job + "/suspend", null, alice).statusCode());
        String missing = "oracle-missing-" + job.substring(job.length() - 6);
        long since = localSandbox.sandbox().requestCount();
        Map<String, String> bodies = new LinkedHashMap<>();
        for (String name : List.of(job, missing)) {
            for (String query : List.of("", "?follow=true", "?step=all")) {
                HttpResponse<String> refused = send("GET", "/" + name + "/logs" + query, null, lena);
                assertEquals(403, refused.statusCode(), name + query + ": " + refused.body());
                assertEquals(
                        "https://camelkubeflow.io/problems/access-denied",
                        json(refused).get("type"),
                        refused.body());
                bodies.put(name + query, refused.body().replace(name, "<name>"));
            }
        }
        assertEquals(1, new HashSet<>(bodies.values()).size(), "answers differ: " + bodies);
        assertTrue(
                bodies.values().iterator().next().contains("may not get trainjobs.trainer.kubeflow.org '<name>'"),
                bodies.toString());
        // nothing was looked up for her: no read of either job by the app (the emulated controller's own left out)
        assertEquals(
                List.of(),
                localSandbox.sandbox().requestsSince(since).stream()
                        .filter(r -> !TrainJobControllerEmulation.USER_AGENT.equals(r.getHeader("User-Agent")))
                        .map(r -> r.getMethod() + " " + r.getPath())
                        .filter(call -> call.contains("/trainjobs/" + job) || call.contains(missing))
                        .toList());
        // positive control: alice, who may get the job, is told it is suspended
        HttpResponse<String> told = send("GET", "/" + job + "/logs", null, alice);
        assertEquals(409, told.statusCode(), told.body());
        assertEquals("https://camelkubeflow.io/problems/suspended", json(told).get("type"), told.body());
        assertEquals(200, send("DELETE", "/" + job, null, alice).statusCode());
    }

    @Test
    void anAllowedCallerGetsListsSuspendsResumesReadsLogsAndDeletes() throws Exception {
        String job = createdByAlice("positive-control");
        assertEquals(200, send("GET", "/" + job, null, alice).statusCode());
        assertEquals(200, send("GET", "/" + job, null, carol).statusCode(), "carol may get");
        assertEquals(403, send("POST", "/" + job + "/suspend", null, carol).statusCode(), "carol may only get");
        HttpResponse<String> listed = send("GET", "", null, alice);
        assertEquals(200, listed.statusCode(), listed.body());
        assertTrue(listed.body().contains(job), listed.body());
        assertEquals(200, send("POST", "/" + job + "/suspend", null, alice).statusCode());
        assertEquals(200, send("POST", "/" + job + "/resume", null, alice).statusCode());
        // a follow: just resumed, its pods may not have started, and a plain read would answer 409 not-started
        HttpResponse<String> logs = send("GET", "/" + job + "/logs?follow=true", null, alice);
        assertEquals(200, logs.statusCode(), logs.body());
        assertEquals(200, send("DELETE", "/" + job, null, alice).statusCode());
    }
}
