package io.camelkubeflow.trainer.routes;

import io.camelkubeflow.trainer.quarkus.LocalTrainerSandbox;
import java.net.URI;
import java.net.URL;
import java.net.URLEncoder;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
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
import static io.camelkubeflow.trainer.routes.HttpRoutesTest.localToken;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The component's operations over HTTP: list, suspend, resume, delete and resuming a log, each as the caller. */
@QuarkusTest
@QuarkusTestResource(FreshFolders.class)
class HttpOperationsTest {
    @TestHTTPResource("/trainjobs")
    URL trainjobs;

    @Inject
    KubernetesClient client;

    @Inject
    LocalTrainerSandbox localSandbox;

    private HttpResponse<String> send(String method, String path, String body, String token) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(trainjobs + path))
                .timeout(Duration.ofSeconds(30)).header("Authorization", "Bearer " + token)
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody()
                        : HttpRequest.BodyPublishers.ofString(body));
        if (body != null) {
            request.header("Content-Type", "application/json");
        }
        return HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    private String train(String team) throws Exception {
        HttpResponse<String> created = send("POST", "", "{\"pythonFile\": \"/app/train.py\", \"labels\": {\"team\": \""
                + team + "\"}, \"annotations\": {\"sandbox.camelkubeflow.io/run-millis\": \"60000\"}}", localToken());
        assertEquals(201, created.statusCode(), created.body());
        return (String) json(created).get("name");
    }

    private TrainJob stored(String name) {
        return client.resources(TrainJob.class).inNamespace("default").withName(name).get();
    }

    private static String query(String value) {
        return URLEncoder.encode(value, StandardCharsets.UTF_8);
    }

    @Test
    void listSelectsByLabelAndNamesEachJobsStatus() throws Exception {
        String vision = train("ops-vision");
        String nlp = train("ops-nlp");
        HttpResponse<String> listed = send("GET", "?labelSelector=" + query("team=ops-vision"), null, localToken());
        assertEquals(200, listed.statusCode(), listed.body());
        assertEquals("default", json(listed).get("namespace"));
        List<?> items = (List<?>) json(listed).get("items");
        assertEquals(List.of(vision), items.stream().map(item -> ((Map<?, ?>) item).get("name")).toList());
        assertEquals("torch-distributed", ((Map<?, ?>) items.get(0)).get("runtime"));
        List<?> all = (List<?>) json(send("GET", "", null, localToken())).get("items");
        assertTrue(all.stream().map(item -> ((Map<?, ?>) item).get("name")).toList().containsAll(List.of(vision, nlp)),
                all.toString());
    }

    @Test
    void suspendAndResumeSetTheJobsSpecAndAnswerItsSummary() throws Exception {
        String name = train("ops-suspend");
        HttpResponse<String> suspended = send("POST", "/" + name + "/suspend", null, localToken());
        assertEquals(200, suspended.statusCode(), suspended.body());
        assertEquals(name, json(suspended).get("name"));
        assertEquals(true, stored(name).getSpec().suspend());
        HttpResponse<String> resumed = send("POST", "/" + name + "/resume", null, localToken());
        assertEquals(200, resumed.statusCode(), resumed.body());
        assertEquals(false, stored(name).getSpec().suspend());
        assertEquals(404, send("POST", "/no-such-job/suspend", null, localToken()).statusCode());
    }

    @Test
    void deleteRemovesTheJobOnceAndThenItIsNotFound() throws Exception {
        String name = train("ops-delete");
        HttpResponse<String> deleted = send("DELETE", "/" + name + "?propagation=Foreground", null, localToken());
        assertEquals(200, deleted.statusCode(), deleted.body());
        assertEquals(Map.of("name", name, "namespace", "default", "deleted", true), json(deleted));
        assertNull(stored(name));
        HttpResponse<String> again = send("DELETE", "/" + name, null, localToken());
        assertEquals(404, again.statusCode(), again.body());
        assertEquals("TrainJob default/" + name + " does not exist", json(again).get("detail"));
    }

    @Test
    void badQueryParametersAre400NamingTheParameterAndChangeNothing() throws Exception {
        String name = train("ops-bad");
        HttpResponse<String> selector = send("GET", "?labelSelector=" + query("team>1"), null, localToken());
        assertEquals(400, selector.statusCode(), selector.body());
        assertEquals("labelSelector", json(selector).get("field"));
        assertTrue(((String) json(selector).get("detail")).startsWith("Invalid 'labelSelector': 'team>1'"),
                selector.body());
        HttpResponse<String> propagation = send("DELETE", "/" + name + "?propagation=Sideways", null, localToken());
        assertEquals(400, propagation.statusCode(), propagation.body());
        assertEquals("propagation", json(propagation).get("field"));
        assertTrue(((String) json(propagation).get("detail")).contains("use Background"), propagation.body());
        assertEquals(name, stored(name).getMetadata().getName(), "a refused delete deleted the job");
    }

    @Test
    void aFollowerResumesFromTheLinesItHasWithOffset() throws Exception {
        HttpResponse<String> created = send("POST", "", "{\"pythonFile\": \"/app/train.py\", \"annotations\": {"
                + "\"sandbox.camelkubeflow.io/log-lines\": \"8\", \"sandbox.camelkubeflow.io/run-millis\": \"800\"}}",
                localToken());
        assertEquals(201, created.statusCode(), created.body());
        String name = (String) json(created).get("name");
        List<String> all = send("GET", "/" + name + "/logs?follow=true", null, localToken()).body().lines().toList();
        assertTrue(all.size() >= 9, all.toString());
        HttpResponse<String> rest = send("GET", "/" + name + "/logs?follow=true&offset=3", null, localToken());
        assertEquals(200, rest.statusCode(), rest.body());
        assertEquals(all.subList(3, all.size()), rest.body().lines().toList());
        assertEquals(List.of(), send("GET", "/" + name + "/logs?offset=" + all.size(), null, localToken()).body()
                .lines().toList());

        for (String bad : List.of("offset=-1", "offset=three", "offset=2&step=all")) {
            HttpResponse<String> refused = send("GET", "/" + name + "/logs?" + bad, null, localToken());
            assertEquals(400, refused.statusCode(), bad + ": " + refused.body());
            assertEquals("offset", json(refused).get("field"), refused.body());
        }
    }

    @Test
    void aCallerWithoutRightsIs403ForEveryOperationAndChangesNothing() throws Exception {
        String name = train("ops-denied");
        String mallory = localSandbox.sandbox().issueToken("mallory");
        Boolean suspendedBefore = stored(name).getSpec().suspend();
        for (String[] call : new String[][] {{"GET", ""}, {"DELETE", "/" + name}, {"POST", "/" + name + "/suspend"},
                {"POST", "/" + name + "/resume"}}) {
            HttpResponse<String> refused = send(call[0], call[1], null, mallory);
            assertEquals(403, refused.statusCode(), call[0] + " " + call[1] + ": " + refused.body());
            assertTrue(((String) json(refused).get("detail")).startsWith("caller 'mallory' may not "), refused.body());
        }
        assertEquals(suspendedBefore, stored(name).getSpec().suspend(), "not suspended, resumed nor deleted");
    }
}
