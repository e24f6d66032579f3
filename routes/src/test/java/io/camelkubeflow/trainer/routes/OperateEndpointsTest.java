package io.camelkubeflow.trainer.routes;

import static io.camelkubeflow.trainer.routes.HttpRoutesTest.HTTP;
import static io.camelkubeflow.trainer.routes.HttpRoutesTest.JSON;
import static io.camelkubeflow.trainer.routes.HttpRoutesTest.localToken;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.net.URI;
import java.net.URL;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.junit.jupiter.api.Test;

/**
 * What an operator reads: health and the API's description, open to probes (no token); the metrics, to a scraper
 * allowed to read them (here the local developer, in system:masters; MetricsAccessTest holds the refusals).
 */
@QuarkusTest
@QuarkusTestResource(FreshFolders.class)
class OperateEndpointsTest {
    @TestHTTPResource("/")
    URL root;

    @Inject
    KubernetesClient client;

    @ConfigProperty(name = "trainer.inbox")
    Path inbox;

    private HttpResponse<String> get(String path) throws Exception {
        return HTTP.send(
                HttpRequest.newBuilder(URI.create(root + path))
                        .timeout(Duration.ofSeconds(30))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
    }

    /** /q/metrics as the local developer. */
    private HttpResponse<String> scrape() throws Exception {
        return HTTP.send(
                HttpRequest.newBuilder(URI.create(root + "q/metrics"))
                        .timeout(Duration.ofSeconds(30))
                        .header("Authorization", "Bearer " + localToken())
                        .build(),
                HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void readinessIncludesTheComponentsCheckNamedForItsNamespace() throws Exception {
        // a readiness call on the event loop answers with the component's last probe (none before the first call):
        // polled as a kubelet polls it
        HttpResponse<String> ready = get("q/health/ready");
        for (long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
                ready.statusCode() != 200 && System.nanoTime() < deadline;
                ready = get("q/health/ready")) {
            Thread.sleep(100);
        }
        assertEquals(200, ready.statusCode(), ready.body());
        assertTrue(
                ready.body().contains("\"kubeflow-trainer:default\""),
                "no check kubeflow-trainer:default in " + ready.body());
        assertEquals("UP", JSON.readTree(ready.body()).path("status").asText());
        assertEquals(200, get("q/health/started").statusCode(), "the startup probe's path");
        HttpResponse<String> live = get("q/health/live");
        assertEquals(200, live.statusCode(), live.body());
        assertTrue(
                !live.body().contains("kubeflow-trainer:"),
                "an API server outage must not restart the app: " + live.body());
    }

    /**
     * The sandbox's address is its owner's (the app's log names it): what anyone may read from the app, without a
     * token, does not name it, nor do the metrics.
     */
    @Test
    void noOpenAnswerNamesTheSandboxsAddress() throws Exception {
        String address =
                client.getMasterUrl().getHost() + ":" + client.getMasterUrl().getPort();
        for (String path : List.of(
                "q/health",
                "q/health/ready",
                "q/health/live",
                "q/health/started",
                "q/openapi",
                "q/openapi?format=json",
                "q/metrics",
                "trainjobs",
                "trainjobs/any/logs")) {
            HttpResponse<String> answer = get(path);
            assertTrue(
                    !answer.body().contains(address), path + " names the sandbox at " + address + ": " + answer.body());
        }
        assertTrue(!scrape().body().contains(address), "the metrics name the sandbox at " + address);
        HttpResponse<String> refused = HTTP.send(
                HttpRequest.newBuilder(URI.create(root + "trainjobs"))
                        .header("Authorization", "Bearer forged")
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(401, refused.statusCode(), refused.body());
        assertTrue(!refused.body().contains(address), refused.body());
    }

    @Test
    void metricsCarryTheComponentsMetersAndCamelsRouteMeters() throws Exception {
        HttpResponse<String> created = HTTP.send(
                HttpRequest.newBuilder(URI.create(root + "trainjobs"))
                        .header("Authorization", "Bearer " + localToken())
                        .header("Content-Type", "application/json")
                        .POST(HttpRequest.BodyPublishers.ofString("{\"pythonFile\": \"/app/train.py\"}"))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(201, created.statusCode(), created.body());
        HttpResponse<String> metrics = scrape();
        assertEquals(200, metrics.statusCode());
        assertTrue(
                metrics.headers().firstValue("Content-Type").orElse("").startsWith("text/plain")
                        || metrics.headers()
                                .firstValue("Content-Type")
                                .orElse("")
                                .startsWith("application/openmetrics"),
                metrics.headers().toString());
        List<String> lines = metrics.body().lines().toList();
        assertTrue(
                lines.stream()
                        .anyMatch(l -> l.startsWith("kubeflow_trainer_trainjobs_total{")
                                && l.contains("outcome=\"created\"")
                                && l.contains("runtime=\"torch-distributed\"")),
                "no kubeflow_trainer_trainjobs_total for the create in\n" + metrics.body());
        assertTrue(lines.stream().anyMatch(l -> l.startsWith("kubeflow_trainer_waits_inflight")), metrics.body());
        assertTrue(
                lines.stream().anyMatch(l -> l.startsWith("camel_exchanges_total{") && l.contains("http-train")),
                "no Camel route meter of http-train in\n" + metrics.body());
    }

    /**
     * deploy/monitoring's Grafana dashboard asks Prometheus only for series the app exposes, by the names and labels
     * /q/metrics gives them: each metric of each query, and each label it groups or selects by (but the target labels
     * Prometheus adds, namespace and pod), is in a scrape taken after the app has done what the panels count (a script
     * from the inbox trained and waited for, an HTTP create, a refused token).
     */
    @Test
    void theDashboardQueriesOnlySeriesTheAppExposes() throws Exception {
        Path part = inbox.resolve("dashboard.py.part");
        Files.writeString(part, "print('for the dashboard')\n");
        Files.move(part, inbox.resolve("dashboard.py"));
        HttpResponse<String> created = HTTP.send(
                HttpRequest.newBuilder(URI.create(root + "trainjobs"))
                        .header("Authorization", "Bearer " + localToken())
                        .header("Content-Type", "application/json")
                        .POST(HttpRequest.BodyPublishers.ofString("{\"pythonFile\": \"/app/train.py\"}"))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(201, created.statusCode(), created.body());
        assertEquals(
                401,
                HTTP.send(
                                HttpRequest.newBuilder(URI.create(root + "trainjobs"))
                                        .header("Authorization", "Bearer forged")
                                        .build(),
                                HttpResponse.BodyHandlers.ofString())
                        .statusCode());
        Map<String, Set<String>> exposed = Map.of();
        for (long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos(); System.nanoTime() < deadline; ) {
            exposed = seriesLabels(scrape().body());
            if (exposed.containsKey("kubeflow_trainer_run_seconds_count")) {
                break;
            }
            Thread.sleep(200);
        }

        JsonNode dashboard = JSON.readTree(Files.readString(Path.of("../deploy/monitoring/grafana-dashboard.json")));
        Pattern metric = Pattern.compile("\\b(?:kubeflow_trainer|camel|http_server|jvm|process)_[a-z_]+\\b");
        Pattern labels = Pattern.compile("\\bby \\(([^)]*)\\)|[{,]\\s*([a-zA-Z_]+)\\s*(?:=~|!~|!=|=)");
        List<String> unknown = new ArrayList<>();
        int queried = 0;
        for (JsonNode panel : dashboard.path("panels")) {
            for (JsonNode target : panel.path("targets")) {
                String expr = target.path("expr").asText();
                Matcher names = metric.matcher(expr);
                Set<String> labelsOfExpr = new TreeSet<>();
                boolean any = false;
                while (names.find()) {
                    any = true;
                    queried++;
                    if (!exposed.containsKey(names.group())) {
                        unknown.add(panel.path("title").asText() + ": " + names.group());
                    } else {
                        labelsOfExpr.addAll(exposed.get(names.group()));
                    }
                }
                assertTrue(any, panel.path("title").asText() + " queries no metric of the app: " + expr);
                Matcher used = labels.matcher(expr);
                while (used.find()) {
                    for (String label : (used.group(1) != null ? used.group(1) : used.group(2)).split(",")) {
                        String name = label.trim();
                        if (!Set.of("namespace", "pod").contains(name) && !labelsOfExpr.contains(name)) {
                            unknown.add(panel.path("title").asText() + ": label " + name + " in " + expr);
                        }
                    }
                }
            }
        }
        assertTrue(queried >= 20, "the dashboard queries only " + queried + " metrics");
        assertEquals(List.of(), unknown, "not in /q/metrics:\n" + String.join("\n", exposed.keySet()));
    }

    /** Each series name of a Prometheus text exposition, with the label names it carries. */
    private static Map<String, Set<String>> seriesLabels(String exposition) {
        Map<String, Set<String>> series = new TreeMap<>();
        Pattern label = Pattern.compile("([a-zA-Z_][a-zA-Z0-9_]*)=\"");
        for (String line : exposition
                .lines()
                .filter(l -> !l.startsWith("#") && !l.isBlank())
                .toList()) {
            int brace = line.indexOf('{');
            String name = brace < 0 ? line.substring(0, line.indexOf(' ')) : line.substring(0, brace);
            Set<String> names = series.computeIfAbsent(name, n -> new TreeSet<>());
            if (brace >= 0) {
                Matcher labels = label.matcher(line.substring(brace, line.lastIndexOf('}')));
                while (labels.find()) {
                    names.add(labels.group(1));
                }
            }
        }
        return series;
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
        expected.forEach((path, methods) -> methods.forEach(
                method -> assertTrue(paths.path(path).has(method), method + " " + path + " is not in " + paths)));
        assertEquals(
                "camel-kubeflow-trainer HTTP API",
                JSON.readTree(openapi.body()).path("info").path("title").asText());
    }
}
