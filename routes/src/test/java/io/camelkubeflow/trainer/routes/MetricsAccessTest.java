package io.camelkubeflow.trainer.routes;

import static io.camelkubeflow.trainer.routes.HttpRoutesTest.HTTP;
import static io.camelkubeflow.trainer.routes.HttpRoutesTest.json;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.camelkubeflow.trainer.quarkus.LocalTrainerSandbox;
import io.fabric8.kubernetes.api.model.rbac.PolicyRuleBuilder;
import io.fabric8.kubernetes.api.model.rbac.RoleBindingBuilder;
import io.fabric8.kubernetes.api.model.rbac.RoleBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
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
import org.junit.jupiter.api.Test;

/**
 * /q/metrics answers only a caller authenticated as the API's callers are and allowed get on the non-resource URL
 * /metrics (deploy/monitoring's ClusterRole, here as the sandbox's RBAC holds it): 401 without a token or with one the
 * API server does not vouch for, 403 without the right, both problem details; no other spelling of the path, method or
 * query reaches the meters.
 */
@QuarkusTest
@QuarkusTestResource(FreshFolders.class)
class MetricsAccessTest {
    /** deploy/monitoring's binding names kube-prometheus-stack's Prometheus account. */
    private static final String PROMETHEUS = "system:serviceaccount:monitoring:kube-prometheus-stack-prometheus";
    /** What a scrape shows and a refusal must not: the component's meters and the JVM's. */
    private static final List<String> METERS = List.of("kubeflow_trainer_", "jvm_", "camel_");

    @TestHTTPResource("/")
    URL root;

    @Inject
    KubernetesClient client;

    @Inject
    LocalTrainerSandbox localSandbox;

    private HttpResponse<String> metrics(String token) throws Exception {
        HttpRequest.Builder request =
                HttpRequest.newBuilder(URI.create(root + "q/metrics")).timeout(Duration.ofSeconds(30));
        if (token != null) {
            request.header("Authorization", "Bearer " + token);
        }
        return HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    /** deploy/monitoring's ClusterRole and binding, applied as kubectl apply -k would, on the app's sandbox. */
    private String prometheusToken() throws Exception {
        String manifests = Files.readString(Path.of("../deploy/monitoring/metrics-reader.yaml"));
        client.load(new ByteArrayInputStream(manifests.getBytes(StandardCharsets.UTF_8)))
                .items()
                .forEach(object -> client.resource(object).createOr(existing -> existing.update()));
        return localSandbox.sandbox().issueToken(PROMETHEUS);
    }

    /** The user may get TrainJobs in default, and nothing else. */
    private String tokenOfAnApiCaller(String user) {
        client.resource(new RoleBuilder()
                        .withNewMetadata()
                        .withName("reads-trainjobs")
                        .withNamespace("default")
                        .endMetadata()
                        .withRules(new PolicyRuleBuilder()
                                .withApiGroups("trainer.kubeflow.org")
                                .withResources("trainjobs")
                                .withVerbs("get")
                                .build())
                        .build())
                .createOr(r -> r.update());
        client.resource(new RoleBindingBuilder()
                        .withNewMetadata()
                        .withName(user + "-reads")
                        .withNamespace("default")
                        .endMetadata()
                        .addNewSubject()
                        .withKind("User")
                        .withName(user)
                        .endSubject()
                        .withNewRoleRef()
                        .withApiGroup("rbac.authorization.k8s.io")
                        .withKind("Role")
                        .withName("reads-trainjobs")
                        .endRoleRef()
                        .build())
                .createOr(r -> r.update());
        return localSandbox.sandbox().issueToken(user);
    }

    private static void assertNoMeters(String body) {
        METERS.forEach(meter -> assertFalse(body.contains(meter), "a refusal shows " + meter + ": " + body));
    }

    @Test
    void withoutATokenOrWithOneNobodyVouchesForTheMetricsAre401() throws Exception {
        for (String token : new String[] {null, "made-up-token"}) {
            HttpResponse<String> refused = metrics(token);
            assertEquals(401, refused.statusCode(), refused.body());
            assertEquals(
                    "Bearer", refused.headers().firstValue("WWW-Authenticate").orElseThrow());
            assertEquals(
                    ErrorAnswer.MEDIA_TYPE,
                    refused.headers().firstValue("Content-Type").orElseThrow());
            Map<?, ?> problem = json(refused);
            assertEquals(ErrorAnswer.Problem.UNAUTHENTICATED.type(), problem.get("type"));
            assertEquals("Authorization", problem.get("field"));
            assertEquals("/q/metrics", problem.get("instance"));
            assertNoMeters(refused.body());
        }
    }

    @Test
    void aCallerWithRightsOnTheApiButNotOnTheMetricsIs403() throws Exception {
        String token = tokenOfAnApiCaller("reader");
        HttpResponse<String> refused = metrics(token);
        assertEquals(403, refused.statusCode(), refused.body());
        assertEquals(
                ErrorAnswer.MEDIA_TYPE,
                refused.headers().firstValue("Content-Type").orElseThrow());
        Map<?, ?> problem = json(refused);
        assertEquals(ErrorAnswer.Problem.ACCESS_DENIED.type(), problem.get("type"));
        assertEquals("caller 'reader' may not get /metrics", problem.get("detail"));
        assertTrue(
                String.valueOf(problem.get("fix")).contains("camel-kubeflow-trainer-metrics-reader"), refused.body());
        assertNoMeters(refused.body());
        // the same token still does what its rights allow on the API
        HttpResponse<String> read = HTTP.send(
                HttpRequest.newBuilder(URI.create(root + "trainjobs/no-such-job"))
                        .header("Authorization", "Bearer " + token)
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(404, read.statusCode(), read.body());
    }

    @Test
    void prometheusAllowedGetOnMetricsReadsTheComponentsMetersAndNothingOfTheApi() throws Exception {
        String token = prometheusToken();
        HttpResponse<String> scraped = metrics(token);
        assertEquals(200, scraped.statusCode(), scraped.body());
        assertTrue(
                scraped.body().lines().anyMatch(line -> line.startsWith("kubeflow_trainer_waits_inflight")),
                scraped.body());
        assertTrue(scraped.body().contains("kubeflow_trainer_http_refusals_total"), "no refusals counted");
        // its right to the metrics is none to the TrainJobs
        HttpResponse<String> refused = HTTP.send(
                HttpRequest.newBuilder(URI.create(root + "trainjobs"))
                        .header("Authorization", "Bearer " + token)
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(403, refused.statusCode(), refused.body());
    }

    /**
     * Every other way to Quarkus's Prometheus routes (the path and all under it): a trailing slash, a query, dot
     * segments, doubled or percent-encoded slashes and letters, another method. Sent as written, byte for byte, with no
     * token and with one of a caller without the right: none shows a meter.
     */
    @Test
    void noOtherSpellingOrMethodReachesTheMetricsWithoutTheRight() throws Exception {
        String reader = tokenOfAnApiCaller("spelling-reader");
        List<String> targets = List.of(
                "/q/metrics",
                "/q/metrics/",
                "/q/metrics?x",
                "/q/metrics/?name[]=jvm",
                "/q/metrics/anything",
                "//q/metrics",
                "/q//metrics",
                "/q/../q/metrics",
                "/q/./metrics",
                "/q/metrics/.",
                "/x/../q/metrics",
                "/q/metrics/../metrics",
                "/q/%6detrics",
                "/q%2Fmetrics",
                "/%71/metrics",
                "/q/metrics;x",
                "/q/metrics%2F",
                "/Q/METRICS",
                "/metrics",
                "http://localhost/q/metrics");
        List<String> leaks = new ArrayList<>();
        for (String target : targets) {
            for (String method : List.of("GET", "HEAD", "POST", "OPTIONS")) {
                for (String token : new String[] {null, reader}) {
                    String answer = raw(method, target, token);
                    int status = Integer.parseInt(answer.substring(9, 12));
                    boolean shown = METERS.stream().anyMatch(answer::contains);
                    if (status == 200 || shown) {
                        leaks.add(method + " " + target + (token == null ? "" : " (no right)") + ": " + status);
                    }
                }
            }
        }
        assertEquals(List.of(), leaks);
        // the control: the right token on the same raw requests does see the meters
        String prometheus = prometheusToken();
        for (String target : List.of("/q/metrics", "/q/metrics?x", "/q/./metrics", "/q/../q/metrics")) {
            String answer = raw("GET", target, prometheus);
            assertTrue(
                    answer.startsWith("HTTP/1.1 200") && answer.contains("kubeflow_trainer_"),
                    target + ": " + answer.lines().findFirst().orElse(""));
        }
    }

    /** One HTTP/1.1 request with exactly this request line; the whole answer, status line first. */
    private String raw(String method, String target, String token) throws Exception {
        try (Socket socket = new Socket(root.getHost(), root.getPort())) {
            socket.setSoTimeout(30_000);
            OutputStream out = socket.getOutputStream();
            out.write((method + " " + target + " HTTP/1.1\r\nHost: " + root.getHost() + ":" + root.getPort()
                            + "\r\n" + (token == null ? "" : "Authorization: Bearer " + token + "\r\n")
                            + "Content-Length: 0\r\nConnection: close\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = socket.getInputStream();
            ByteArrayOutputStream answer = new ByteArrayOutputStream();
            in.transferTo(answer);
            return answer.toString(StandardCharsets.UTF_8);
        }
    }
}
