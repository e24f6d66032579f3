package io.camelkubeflow.trainer.routes;

import static io.camelkubeflow.trainer.routes.HttpRoutesTest.HTTP;
import static io.camelkubeflow.trainer.routes.HttpRoutesTest.json;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.camelkubeflow.trainer.api.TrainJob;
import io.camelkubeflow.trainer.quarkus.LocalTrainerSandbox;
import io.fabric8.kubernetes.api.model.rbac.PolicyRuleBuilder;
import io.fabric8.kubernetes.api.model.rbac.RoleBindingBuilder;
import io.fabric8.kubernetes.api.model.rbac.RoleBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.net.URI;
import java.net.URL;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Every HTTP request is authenticated (a Kubernetes bearer token, reviewed by the API server) and acts within its
 * caller's rights (reviewed as that caller); each refusal writes nothing. The sandbox reviews tokens and access from
 * the RBAC objects it holds, as a cluster does.
 */
@QuarkusTest
@QuarkusTestResource(FreshFolders.class)
@QuarkusTestResource(OidcProviderResource.class)
class HttpAuthenticationTest {
    private static final String SCRIPT = "{\"script\": \"print(1)\"}";

    @TestHTTPResource("/trainjobs")
    URL trainjobs;

    @Inject
    KubernetesClient client;

    @Inject
    LocalTrainerSandbox localSandbox;

    private HttpResponse<String> send(String method, String path, String body, String token, Map<String, String> extra)
            throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(trainjobs + path))
                .timeout(Duration.ofSeconds(30))
                .header("Content-Type", "application/json")
                .method(
                        method,
                        body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        if (token != null) {
            request.header("Authorization", "Bearer " + token);
        }
        extra.forEach(request::header);
        return HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    private int trainJobs() {
        return client.resources(TrainJob.class)
                .inNamespace("default")
                .list()
                .getItems()
                .size();
    }

    @Test
    void withoutATokenTheAnswerIs401SayingHowToAuthenticateAndNothingIsWritten() throws Exception {
        int before = trainJobs();
        for (HttpResponse<String> refused : List.of(
                send("POST", "", SCRIPT, null, Map.of()),
                send("POST", "", SCRIPT, "forged-token", Map.of()),
                send("GET", "/some-job", null, null, Map.of()),
                send("GET", "/some-job/logs", null, null, Map.of()))) {
            assertEquals(401, refused.statusCode(), refused.body());
            assertEquals(
                    "Bearer", refused.headers().firstValue("WWW-Authenticate").orElseThrow());
            Map<?, ?> answer = json(refused);
            assertEquals("Authorization", answer.get("field"));
            assertTrue(String.valueOf(answer.get("fix")).contains("Authorization: Bearer <token>"), refused.body());
        }
        assertEquals(before, trainJobs());
    }

    @Test
    void aCallerWithoutCreateRightsIs403NamingWhatWasDenied() throws Exception {
        String mallory = localSandbox.sandbox().issueToken("mallory");
        int before = trainJobs();
        // a client cannot name another caller: the headers HttpAuthentication sets are replaced
        HttpResponse<String> refused = send(
                "POST",
                "",
                SCRIPT,
                mallory,
                Map.of(
                        "X-Kubeflow-Trainer-Caller-User",
                        "developer",
                        "X-Kubeflow-Trainer-Caller-Groups",
                        "system:masters"));
        assertEquals(403, refused.statusCode(), refused.body());
        assertEquals(
                "caller 'mallory' may not create trainjobs.trainer.kubeflow.org in namespace default",
                json(refused).get("detail"));
        assertEquals(before, trainJobs());
        assertEquals(403, send("GET", "/some-job", null, mallory, Map.of()).statusCode());
        assertEquals(403, send("GET", "/some-job/logs", null, mallory, Map.of()).statusCode());
    }

    /** carol may create and get TrainJobs in default, and read no Secret. */
    private String carolsToken() {
        allowToTrain("carol");
        return localSandbox.sandbox().issueToken("carol");
    }

    /** The user may create and get TrainJobs in default, and read no Secret. */
    private void allowToTrain(String user) {
        client.resource(new RoleBuilder()
                        .withNewMetadata()
                        .withName("trains")
                        .withNamespace("default")
                        .endMetadata()
                        .withRules(new PolicyRuleBuilder()
                                .withApiGroups("trainer.kubeflow.org")
                                .withResources("trainjobs")
                                .withVerbs("create", "get")
                                .build())
                        .build())
                .createOr(r -> r.update());
        client.resource(new RoleBindingBuilder()
                        .withNewMetadata()
                        .withName(user.replace(':', '-'))
                        .withNamespace("default")
                        .endMetadata()
                        .addNewSubject()
                        .withKind("User")
                        .withName(user)
                        .endSubject()
                        .withNewRoleRef()
                        .withApiGroup("rbac.authorization.k8s.io")
                        .withKind("Role")
                        .withName("trains")
                        .endRoleRef()
                        .build())
                .createOr(r -> r.update());
    }

    @Test
    void aHumanWithAnOidcIdTokenActsWithinTheRightsRbacGivesTheirOidcName() throws Exception {
        String alice = OidcProviderResource.provider.token("alice", List.of("ml-team"));
        int before = trainJobs();
        HttpResponse<String> refused = send("POST", "", SCRIPT, alice, Map.of());
        assertEquals(403, refused.statusCode(), refused.body());
        assertTrue(
                String.valueOf(json(refused).get("detail"))
                        .startsWith("caller 'oidc:alice' (groups [oidc:ml-team])" + " may not create trainjobs"),
                refused.body());
        assertEquals(before, trainJobs());

        allowToTrain("oidc:alice");
        HttpResponse<String> created = send("POST", "", SCRIPT, alice, Map.of("Idempotency-Key", "alice-1"));
        assertEquals(201, created.statusCode(), created.body());
        assertEquals(
                200,
                send("GET", "/" + json(created).get("name"), null, alice, Map.of())
                        .statusCode());

        HttpResponse<String> forged =
                send("POST", "", SCRIPT, OidcProviderResource.provider.forgedToken("alice"), Map.of());
        assertEquals(401, forged.statusCode(), forged.body());
        assertTrue(
                String.valueOf(json(forged).get("fix"))
                        .contains("an ID token of " + OidcProviderResource.provider.issuer()),
                forged.body());
        assertEquals(before + 1, trainJobs());
    }

    @Test
    void aSecretTheCallerMayNotReadIs403() throws Exception {
        String carol = carolsToken();
        int before = trainJobs();
        HttpResponse<String> refused = send(
                "POST",
                "",
                "{\"script\": \"print(1)\", \"env\": {\"DB\":" + " \"secretKeyRef:db-credentials/password\"}}",
                carol,
                Map.of());
        assertEquals(403, refused.statusCode(), refused.body());
        assertTrue(
                String.valueOf(json(refused).get("detail"))
                        .contains("may not get secrets 'db-credentials' in namespace default"),
                refused.body());
        assertEquals(before, trainJobs());
        HttpResponse<String> allowed = send("POST", "", SCRIPT, carol, Map.of("Idempotency-Key", "carol-1"));
        assertEquals(201, allowed.statusCode(), allowed.body());
        assertEquals(before + 1, trainJobs());
    }

    @Test
    void oneCallersIdempotencyKeyNeverReachesAnothersJob() throws Exception {
        String carol = carolsToken();
        String developer = HttpRoutesTest.localToken();
        HttpResponse<String> first = send("POST", "", SCRIPT, developer, Map.of("Idempotency-Key", "shared-key"));
        HttpResponse<String> second = send("POST", "", SCRIPT, carol, Map.of("Idempotency-Key", "shared-key"));
        assertEquals(201, first.statusCode(), first.body());
        assertEquals(201, second.statusCode(), "carol's request adopted the developer's job: " + second.body());
        assertTrue(!json(first).get("name").equals(json(second).get("name")));
        HttpResponse<String> retry = send("POST", "", SCRIPT, carol, Map.of("Idempotency-Key", "shared-key"));
        assertEquals(200, retry.statusCode(), retry.body());
        assertEquals(json(second).get("name"), json(retry).get("name"));
    }

    @Test
    void theRequestPolicyHoldsEvenForACallerWithAllRights() throws Exception {
        String developer = HttpRoutesTest.localToken();
        int before = trainJobs();
        for (Map.Entry<String, String> attempt : Map.of(
                        "imageOverride",
                                "{\"pythonFile\": \"/a.py\", \"image\": \"attacker.example.com/miner:latest\"}",
                        "namespaces", "{\"pythonFile\": \"/a.py\", \"namespace\": \"kube-system\"}",
                        "maxNumNodes", "{\"pythonFile\": \"/a.py\", \"numNodes\": 100000}",
                        "maxGpu", "{\"pythonFile\": \"/a.py\", \"gpu\": \"1000\"}",
                        "secrets",
                                "{\"pythonFile\": \"/a.py\", \"env\": {\"X\": \"secretKeyRef:db-credentials/password\"}}",
                        "resources", "{\"pythonFile\": \"/a.py\", \"resources\": {\"amd.com/gpu\": \"1000\"}}",
                        "commandOverride", "{\"command\": [\"python\", \"-c\", \"print(1)\"]}")
                .entrySet()) {
            HttpResponse<String> refused = send("POST", "", attempt.getValue(), developer, Map.of());
            assertEquals(403, refused.statusCode(), refused.body());
            assertTrue(
                    String.valueOf(json(refused).get("detail")).contains("policy rule '" + attempt.getKey() + "'"),
                    refused.body());
        }
        assertEquals(before, trainJobs());
        HttpResponse<String> unbounded = send(
                "POST", "", "{\"pythonFile\": \"/a.py\"}", developer, Map.of("Idempotency-Key", "no-deadline-given"));
        assertEquals(201, unbounded.statusCode(), unbounded.body());
        assertEquals(
                86400L,
                client.resources(TrainJob.class)
                        .inNamespace("default")
                        .withName((String) json(unbounded).get("name"))
                        .get()
                        .getSpec()
                        .activeDeadlineSeconds(),
                "a request that gives no run time gets the policy's default");
    }
}
