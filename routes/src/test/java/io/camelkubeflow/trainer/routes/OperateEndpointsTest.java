package io.camelkubeflow.trainer.routes;

import java.net.URI;
import java.net.URL;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

import static io.camelkubeflow.trainer.routes.HttpRoutesTest.HTTP;
import static io.camelkubeflow.trainer.routes.HttpRoutesTest.JSON;
import static io.camelkubeflow.trainer.routes.HttpRoutesTest.localToken;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** What an operator reads: health, metrics and the API's description, open to probes and scrapers (no token). */
@QuarkusTest
@QuarkusTestResource(FreshFolders.class)
class OperateEndpointsTest {
    @TestHTTPResource("/")
    URL root;

    @Inject
    KubernetesClient client;

    private HttpResponse<String> get(String path) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(URI.create(root + path)).timeout(Duration.ofSeconds(30)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void readinessIncludesTheComponentsCheckNamedForItsNamespace() throws Exception {
        // a readiness call on the event loop answers with the component's last probe (none before the first call):
        // polled as a kubelet polls it
        HttpResponse<String> ready = get("q/health/ready");
        for (long deadline = System.nanoTime() + java.time.Duration.ofSeconds(30).toNanos();
                ready.statusCode() != 200 && System.nanoTime() < deadline; ready = get("q/health/ready")) {
            Thread.sleep(100);
        }
        assertEquals(200, ready.statusCode(), ready.body());
        assertTrue(ready.body().contains("\"kubeflow-trainer:default\""), "no check kubeflow-trainer:default in "
                + ready.body());
        assertEquals("UP", JSON.readTree(ready.body()).path("status").asText());
        assertEquals(200, get("q/health/started").statusCode(), "the startup probe's path");
        HttpResponse<String> live = get("q/health/live");
        assertEquals(200, live.statusCode(), live.body());
        assertTrue(!live.body().contains("kubeflow-trainer:"), "an API server outage must not restart the app: "
                + live.body());
    }

    /**
     * The sandbox's address is its owner's (the app's log names it): what anyone may read from the app, without a
     * token, does not name it.
     */
    @Test
    void noOpenAnswerNamesTheSandboxsAddress() throws Exception {
        String address = client.getMasterUrl().getHost() + ":" + client.getMasterUrl().getPort();
        for (String path : List.of("q/health", "q/health/ready", "q/health/live", "q/health/started", "q/openapi",
                "q/openapi?format=json", "q/metrics", "trainjobs", "trainjobs/any/logs")) {
            HttpResponse<String> answer = get(path);
            assertTrue(!answer.body().contains(address), path + " names the sandbox at " + address + ": "
                    + answer.body());
        }
        HttpResponse<String> refused = HTTP.send(HttpRequest.newBuilder(URI.create(root + "trainjobs"))
                .header("Authorization", "Bearer forged").build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(401, refused.statusCode(), refused.body());
        assertTrue(!refused.body().contains(address), refused.body());
    }

    @Test
    void metricsCarryTheComponentsMetersAndCamelsRouteMeters() throws Exception {
        HttpResponse<String> created = HTTP.send(HttpRequest.newBuilder(URI.create(root + "trainjobs"))
                .header("Authorization", "Bearer " + localToken()).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{\"pythonFile\": \"/app/train.py\"}")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(201, created.statusCode(), created.body());
        HttpResponse<String> metrics = get("q/metrics");
        assertEquals(200, metrics.statusCode());
        assertTrue(metrics.headers().firstValue("Content-Type").orElse("").startsWith("text/plain")
                || metrics.headers().firstValue("Content-Type").orElse("").startsWith("application/openmetrics"),
                metrics.headers().toString());
        List<String> lines = metrics.body().lines().toList();
        assertTrue(lines.stream().anyMatch(l -> l.startsWith("kubeflow_trainer_trainjobs_total{")
                && l.contains("outcome=\"created\"") && l.contains("runtime=\"torch-distributed\"")),
                "no kubeflow_trainer_trainjobs_total for the create in\n" + metrics.body());
        assertTrue(lines.stream().anyMatch(l -> l.startsWith("kubeflow_trainer_waits_inflight")), metrics.body());
        assertTrue(lines.stream().anyMatch(l -> l.startsWith("camel_exchanges_total{") && l.contains("http-train")),
                "no Camel route meter of http-train in\n" + metrics.body());
    }

    @Test
    void theOpenApiDocumentDescribesEveryOperationOfTheHttpApi() throws Exception {
        HttpResponse<String> openapi = get("q/openapi?format=json");
        assertEquals(200, openapi.statusCode(), openapi.body());
        JsonNode paths = JSON.readTree(openapi.body()).path("paths");
        Map<String, List<String>> expected = Map.of(
                "/trainjobs", List.of("get", "post"),
                "/trainjobs/{name}", List.of("get", "delete"),
                "/trainjobs/{name}/suspend", List.of("post"),
                "/trainjobs/{name}/resume", List.of("post"),
                "/trainjobs/{name}/logs", List.of("get"));
        expected.forEach((path, methods) -> methods.forEach(method -> assertTrue(paths.path(path).has(method),
                method + " " + path + " is not in " + paths)));
        assertEquals("camel-kubeflow-trainer HTTP API", JSON.readTree(openapi.body()).path("info").path("title")
                .asText());
    }
}
