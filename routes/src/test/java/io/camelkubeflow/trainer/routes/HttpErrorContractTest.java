package io.camelkubeflow.trainer.routes;

import java.net.URI;
import java.net.URL;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.camelkubeflow.trainer.api.TrainJob;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

import static io.camelkubeflow.trainer.routes.HttpRoutesTest.HTTP;
import static io.camelkubeflow.trainer.routes.HttpRoutesTest.json;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The HTTP API's error contract: every refusal is a 4xx with a JSON body {error, field, fix} naming the field as the
 * caller wrote it, and no request, however bad, gets an empty answer or a 500; nothing is written for any of them.
 */
@QuarkusTest
@QuarkusTestResource(FreshFolders.class)
@QuarkusTestResource(OidcProviderResource.class)
class HttpErrorContractTest {
    @TestHTTPResource("/trainjobs")
    URL trainjobs;

    @Inject
    KubernetesClient client;

    @Inject
    KubernetesClientProducer clients;

    private HttpResponse<String> send(String method, String path, HttpRequest.BodyPublisher body, String idempotencyKey)
            throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(trainjobs + path))
                .timeout(Duration.ofSeconds(30))
                .header("Authorization", "Bearer " + HttpRoutesTest.localToken())
                .header("Content-Type", "application/json").method(method, body);
        if (idempotencyKey != null) {
            request.header("Idempotency-Key", idempotencyKey);
        }
        return HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    private HttpResponse<String> post(String body) throws Exception {
        return send("POST", "", HttpRequest.BodyPublishers.ofString(body), null);
    }

    @Test
    void everyBadRequestIsA4xxWithAJsonBodyNamingTheFieldAndNothingIsWritten() throws Exception {
        int before = client.resources(TrainJob.class).inAnyNamespace().list().getItems().size();
        Map<String, String> wantedField = new LinkedHashMap<>();
        wantedField.put("", "body");
        wantedField.put("   ", "body");
        wantedField.put("null", "body");
        wantedField.put("[1, 2]", "body");
        wantedField.put("{\"script\": ", "body");
        wantedField.put("{\"pythonFile\": \"/a.py\", \"numNodes\": \"many\"}", "numNodes");
        wantedField.put("{\"pythonFile\": \"/a.py\", \"nodes\": 2}", "nodes");
        wantedField.put("{\"script\": 42}", "script");
        wantedField.put("{\"pythonFile\": \"/a.py\", \"numNodes\": 1.5}", "numNodes");
        wantedField.put("{\"pythonFile\": \"/a.py\", \"numNodes\": 4294967298}", "numNodes");
        wantedField.put("{\"pythonFile\": \"/a.py\", \"args\": {\"lr\": 0.1}}", "args");
        wantedField.put("{\"pythonFile\": \"/a.py\", \"args\": [\"--lr\", 0.1]}", "args");
        wantedField.put("{\"script\": \"print(1)\", \"packages\": [{\"name\": \"numpy\"}]}", "packages");
        wantedField.put("{\"pythonFile\": \"/a.py\", \"env\": {\"LR\": {\"v\": 1}}}", "env");
        wantedField.put("{\"pythonFile\": \"/a.py\", \"resources\": {\"cpu\": 4}}", "resources");
        wantedField.put("{\"pythonFile\": \"/a.py\", \"suspend\": \"yes\"}", "suspend");
        wantedField.put("{\"script\": \"print(1)\", \"scriptFileName\": \"..\"}", "scriptFileName");
        wantedField.put("{\"script\": \"print(1)\", \"scriptFileName\": \".\"}", "scriptFileName");
        wantedField.put("{\"script\": \"print(1)\\u0000\"}", "script");
        wantedField.put("{\"pythonFile\": \"/a.py\", \"args\": [\"a\\u0000b\"]}", "args");
        wantedField.put("{\"command\": [\"python\", \"-c\", \"\\u0000\"]}", "command");
        List<String> faults = new ArrayList<>();
        for (Map.Entry<String, String> attempt : wantedField.entrySet()) {
            HttpResponse<String> answer = post(attempt.getKey());
            if (answer.statusCode() < 400 || answer.statusCode() >= 500 || answer.body().isBlank()
                    || !attempt.getValue().equals(json(answer).get("field"))) {
                faults.add(attempt.getKey() + " -> " + answer.statusCode() + " " + answer.body());
            }
        }
        assertEquals(List.of(), faults);
        assertEquals(before, client.resources(TrainJob.class).inAnyNamespace().list().getItems().size());
    }

    @Test
    void aBodyOverTheLimitIs413WithAJsonBody() throws Exception {
        // over HTTP/1.1 as curl sends it (an HTTP/2 upgrade carrying 11 MB is refused before any answer)
        HttpRequest tooLarge = HttpRequest.newBuilder(trainjobs.toURI())
                .header("Authorization", "Bearer " + HttpRoutesTest.localToken())
                .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(
                        "{\"script\": \"" + "#".repeat(11 * 1024 * 1024) + "\"}")).build();
        HttpResponse<String> answer = java.net.http.HttpClient.newBuilder()
                .version(java.net.http.HttpClient.Version.HTTP_1_1).build()
                .send(tooLarge, HttpResponse.BodyHandlers.ofString());
        assertEquals(413, answer.statusCode(), answer.body());
        assertEquals("body", json(answer).get("field"), answer.body());
    }

    @Test
    void theSameKeyWithADifferentRequestIs422NamingWhatDiffers() throws Exception {
        HttpResponse<String> first = send("POST", "", HttpRequest.BodyPublishers.ofString(
                "{\"pythonFile\": \"/a.py\", \"numNodes\": 1}"), "contract-1");
        assertEquals(201, first.statusCode(), first.body());
        HttpResponse<String> other = send("POST", "", HttpRequest.BodyPublishers.ofString(
                "{\"pythonFile\": \"/a.py\", \"numNodes\": 2}"), "contract-1");
        assertEquals(422, other.statusCode(), other.body());
        assertTrue(String.valueOf(json(other).get("error")).contains("differs in spec.trainer.numNodes"), other.body());
        HttpResponse<String> same = send("POST", "", HttpRequest.BodyPublishers.ofString(
                "{\"pythonFile\": \"/a.py\", \"numNodes\": 1}"), "contract-1");
        assertEquals(200, same.statusCode(), same.body());
    }

    @Test
    void theKubernetesApisRefusalsKeepTheirMeaningAndAnUnavailableApiIs503() throws Exception {
        String request = "{\"pythonFile\": \"/a.py\"}";
        clients.sandbox().refuseNextTrainJobCreates(1, 403);
        HttpResponse<String> denied = post(request);
        assertEquals(403, denied.statusCode(), denied.body());
        assertTrue(String.valueOf(json(denied).get("error")).startsWith("the Kubernetes API refused the request (403)"),
                denied.body());

        clients.sandbox().refuseNextTrainJobCreates(1, 422);
        HttpResponse<String> invalid = post(request);
        assertEquals(422, invalid.statusCode(), invalid.body());

        // more 500s than the component's retries: unavailable, try again; never an empty 500
        clients.sandbox().refuseNextTrainJobCreates(10, 500);
        HttpResponse<String> unavailable = post(request);
        assertEquals(503, unavailable.statusCode(), unavailable.body());
        assertTrue(String.valueOf(json(unavailable).get("error")).contains("unavailable"), unavailable.body());
        clients.sandbox().refuseNextTrainJobCreates(0, 500);
    }

    @Test
    void anUnreachableApiIs503InSecondsAndTheAppRecoversWhenItIsBack() throws Exception {
        String request = "{\"pythonFile\": \"/a.py\"}";
        // an OIDC token is checked without the API server, so the request gets as far as its access review
        String oidc = "Bearer " + OidcProviderResource.provider.token("outage", List.of());
        clients.sandbox().stopApiServer();
        HttpResponse<String> tokenReview;
        HttpResponse<String> accessReview;
        long took;
        try {
            tokenReview = post(request);
            long started = System.nanoTime();
            accessReview = HTTP.send(HttpRequest.newBuilder(URI.create(trainjobs.toString()))
                    .timeout(Duration.ofSeconds(30)).header("Authorization", oidc)
                    .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(request))
                    .build(), HttpResponse.BodyHandlers.ofString());
            took = (System.nanoTime() - started) / 1_000_000;
        } finally {
            clients.sandbox().startApiServer();
        }
        for (HttpResponse<String> during : List.of(tokenReview, accessReview)) {
            assertEquals(503, during.statusCode(), during.body());
            assertTrue(String.valueOf(json(during).get("error")).startsWith("Kubernetes API unreachable"),
                    during.body());
        }
        // the component's bounded retries (about 3 s), not fabric8's on top of them (19.5 s before)
        assertTrue(took < 10_000, "answered after " + took + " ms");
        HttpResponse<String> after = null;
        for (long deadline = System.nanoTime() + 30_000_000_000L; System.nanoTime() < deadline; Thread.sleep(200)) {
            after = send("POST", "", HttpRequest.BodyPublishers.ofString(request), "outage-1");
            if (after.statusCode() != 503) {
                break;
            }
        }
        assertEquals(201, after.statusCode(), after.body());
    }

    @Test
    void concurrentRetriesOfOneKeyWithAScriptAllAnswerCreatedOrAdopted() throws Exception {
        int attempts = 50;
        java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(16);
        List<java.util.concurrent.Future<HttpResponse<String>>> answers = new ArrayList<>();
        for (int i = 0; i < attempts; i++) {
            answers.add(pool.submit(() -> send("POST", "", HttpRequest.BodyPublishers.ofString(
                    "{\"script\": \"print('once')\"}"), "concurrent-1")));
        }
        Map<Integer, Integer> statuses = new java.util.TreeMap<>();
        for (java.util.concurrent.Future<HttpResponse<String>> answer : answers) {
            statuses.merge(answer.get().statusCode(), 1, Integer::sum);
        }
        pool.shutdown();
        assertEquals(Map.of(201, 1, 200, attempts - 1), statuses);
    }
}
