package io.camelkubeflow.trainer.routes;

import static io.camelkubeflow.trainer.routes.HttpRoutesTest.HTTP;
import static io.camelkubeflow.trainer.routes.HttpRoutesTest.json;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.camelkubeflow.trainer.quarkus.LocalTrainerSandbox;
import io.fabric8.kubernetes.api.model.rbac.PolicyRuleBuilder;
import io.fabric8.kubernetes.api.model.rbac.RoleBindingBuilder;
import io.fabric8.kubernetes.api.model.rbac.RoleBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import jakarta.inject.Inject;
import java.net.URI;
import java.net.URL;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * With the app's caches and rate limit on (the other tests turn them off): a caller repeating a request costs the API
 * server one TokenReview and one SubjectAccessReview (counted at the server), and a caller past its rate is answered
 * 429 with Retry-After and a JSON body before anything is reviewed or written, and so is an address sending more new
 * tokens than its budget (each would cost a TokenReview); the metrics say both.
 */
@QuarkusTest
@TestProfile(CachedReviewsAndRateLimitTest.CachedAndLimited.class)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class CachedReviewsAndRateLimitTest {
    public static class CachedAndLimited implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            // a TTL no test run outlasts, and a rate no test run refills
            return Map.of(
                    "trainer.http.token-cache-ttl",
                    "1h",
                    "camel.component.kubeflow-trainer.access-review-cache-ttl",
                    "1h",
                    "trainer.http.rate-limit.per-second",
                    "0.001",
                    "trainer.http.rate-limit.burst",
                    "5");
        }

        @Override
        public List<TestResourceEntry> testResources() {
            return List.of(new TestResourceEntry(FreshFolders.class));
        }

        @Override
        public boolean disableGlobalTestResources() {
            return true;
        }
    }

    @TestHTTPResource("/trainjobs")
    URL trainjobs;

    @TestHTTPResource("/q/metrics")
    URL metrics;

    @Inject
    KubernetesClient client;

    @Inject
    LocalTrainerSandbox localSandbox;

    private HttpResponse<String> get(String path, String token) throws Exception {
        return HTTP.send(
                HttpRequest.newBuilder(URI.create(trainjobs + path))
                        .timeout(Duration.ofSeconds(30))
                        .header("Authorization", "Bearer " + token)
                        .GET()
                        .build(),
                HttpResponse.BodyHandlers.ofString());
    }

    /** /q/metrics as the token's caller. */
    private HttpResponse<String> scrape(String token) throws Exception {
        return HTTP.send(
                HttpRequest.newBuilder(metrics.toURI())
                        .timeout(Duration.ofSeconds(30))
                        .header("Authorization", "Bearer " + token)
                        .GET()
                        .build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private long reviewsSince(long since, String kind) {
        return localSandbox.sandbox().requestsSince(since).stream()
                .filter(r -> r.getPath().contains("/" + kind))
                .count();
    }

    private void mayGet(String user) {
        client.resource(new RoleBuilder()
                        .withNewMetadata()
                        .withName("gets")
                        .withNamespace("default")
                        .endMetadata()
                        .withRules(new PolicyRuleBuilder()
                                .withApiGroups("trainer.kubeflow.org")
                                .withResources("trainjobs")
                                .withVerbs("get", "list")
                                .build())
                        .build())
                .createOr(r -> r.update());
        client.resource(new RoleBindingBuilder()
                        .withNewMetadata()
                        .withName(user + "-gets")
                        .withNamespace("default")
                        .endMetadata()
                        .addNewSubject()
                        .withKind("User")
                        .withName(user)
                        .endSubject()
                        .withNewRoleRef()
                        .withApiGroup("rbac.authorization.k8s.io")
                        .withKind("Role")
                        .withName("gets")
                        .endRoleRef()
                        .build())
                .createOr(r -> r.update());
    }

    @Test
    void aCallerRepeatingARequestCostsOneTokenReviewAndOneAccessReview() throws Exception {
        mayGet("repeater");
        String token = localSandbox.sandbox().issueToken("repeater");
        long since = localSandbox.sandbox().requestCount();
        for (int i = 0; i < 4; i++) {
            assertEquals(404, get("/no-such-job", token).statusCode());
        }
        assertEquals(1, reviewsSince(since, "tokenreviews"));
        assertEquals(1, reviewsSince(since, "subjectaccessreviews"));
        String scraped = scrape(HttpRoutesTest.localToken()).body();
        assertTrue(scraped.contains("kubeflow_trainer_http_token_reviews_total{result=\"cached\"}"), scraped);
        assertTrue(scraped.contains("kubeflow_trainer_access_reviews_total{result=\"cached\"}"), scraped);
    }

    /**
     * /q/metrics is checked with the API's kept answers: the token's review is the API's, and the access review of
     * the metrics is kept beside the TrainJobs' (each by its own access, so a right to one is none to the other).
     */
    @Test
    void theMetricsShareTheApisKeptAnswersButNotItsRights() throws Exception {
        mayGet("watcher");
        String token = localSandbox.sandbox().issueToken("watcher");
        long since = localSandbox.sandbox().requestCount();
        assertEquals(404, get("/no-such-job", token).statusCode());
        assertEquals(403, scrape(token).statusCode(), "a right to TrainJobs is none to the metrics");
        assertEquals(403, scrape(token).statusCode(), "a kept denial is still a denial");
        assertEquals(
                404, get("/no-such-job", token).statusCode(), "the metrics' denial took nothing of the API's right");
        assertEquals(1, reviewsSince(since, "tokenreviews"), "the metrics reviewed a token the API had reviewed");
        assertEquals(
                2,
                reviewsSince(since, "subjectaccessreviews"),
                "one review for the TrainJob, one for the" + " metrics, each kept");
    }

    /**
     * Last: the made-up tokens spend what is left of this machine's address budget for new tokens (5; the other tests
     * spent one for each caller's first token: repeater, hurried, patient, watcher and the developer's scrapes).
     */
    @Test
    @Order(Integer.MAX_VALUE)
    void madeUpTokensCostAtMostTheAddresssBudgetInTokenReviews() throws Exception {
        long since = localSandbox.sandbox().requestCount();
        int limited = 0;
        for (int i = 0; i < 10; i++) {
            int status = get("", "made-up-token-" + i).statusCode();
            assertTrue(status == 401 || status == 429, "answered " + status);
            limited += status == 429 ? 1 : 0;
        }
        assertTrue(limited >= 5, limited + " of 10 made-up tokens limited");
        assertTrue(reviewsSince(since, "tokenreviews") <= 5, reviewsSince(since, "tokenreviews") + " TokenReviews");
    }

    @Test
    void aCallerPastItsRateGets429WithRetryAfterBeforeAnyReview() throws Exception {
        mayGet("hurried");
        String token = localSandbox.sandbox().issueToken("hurried");
        for (int i = 0; i < 5; i++) {
            assertEquals(200, get("", token).statusCode(), "within the burst");
        }
        long since = localSandbox.sandbox().requestCount();
        HttpResponse<String> limited = get("", token);
        assertEquals(429, limited.statusCode(), limited.body());
        assertTrue(Long.parseLong(limited.headers().firstValue("Retry-After").orElseThrow()) >= 1);
        assertTrue(
                String.valueOf(json(limited).get("detail")).startsWith("too many requests from caller 'hurried'"),
                limited.body());
        assertEquals(0, reviewsSince(since, "subjectaccessreviews"), "a limited request is not reviewed");
        // another caller has a budget of its own
        mayGet("patient");
        assertEquals(200, get("", localSandbox.sandbox().issueToken("patient")).statusCode());
        String scraped = scrape(HttpRoutesTest.localToken()).body();
        assertTrue(scraped.contains("kubeflow_trainer_http_refusals_total{status=\"429\"}"), scraped);
    }
}
