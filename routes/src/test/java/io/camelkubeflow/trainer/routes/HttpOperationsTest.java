package io.camelkubeflow.trainer.routes;

import static io.camelkubeflow.trainer.routes.HttpRoutesTest.HTTP;
import static io.camelkubeflow.trainer.routes.HttpRoutesTest.json;
import static io.camelkubeflow.trainer.routes.HttpRoutesTest.localToken;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.camelkubeflow.trainer.KubeflowTrainerComponent;
import io.camelkubeflow.trainer.api.TrainJob;
import io.camelkubeflow.trainer.api.TrainJobPhase;
import io.camelkubeflow.trainer.api.TrainJobRef;
import io.camelkubeflow.trainer.quarkus.LocalTrainerSandbox;
import io.camelkubeflow.trainer.sandbox.cluster.TrainJobControllerEmulation;
import io.camelkubeflow.trainer.watch.ClusterInformers;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.net.URI;
import java.net.URL;
import java.net.URLEncoder;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Collectors;
import org.apache.camel.CamelContext;
import org.junit.jupiter.api.Test;

/**
 * The component's operations over HTTP: list, suspend, resume, delete, reading a log of pods that have not started and
 * resuming one, reading one of an ended job whose pods are gone, each as the caller.
 */
@QuarkusTest
@QuarkusTestResource(FreshFolders.class)
class HttpOperationsTest {
    @TestHTTPResource("/trainjobs")
    URL trainjobs;

    @Inject
    KubernetesClient client;

    @Inject
    LocalTrainerSandbox localSandbox;

    @Inject
    CamelContext camel;

    private HttpResponse<String> send(String method, String path, String body, String token) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(trainjobs + path))
                .timeout(Duration.ofSeconds(30))
                .header("Authorization", "Bearer " + token)
                .method(
                        method,
                        body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        if (body != null) {
            request.header("Content-Type", "application/json");
        }
        return HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    private String train(String team) throws Exception {
        HttpResponse<String> created = send(
                "POST",
                "",
                "{\"pythonFile\": \"/app/train.py\", \"labels\": {\"team\": \"" + team
                        + "\"}, \"annotations\": {\"sandbox.camelkubeflow.io/run-millis\": \"60000\"}}",
                localToken());
        assertEquals(201, created.statusCode(), created.body());
        return (String) json(created).get("name");
    }

    private TrainJob stored(String name) {
        return client.resources(TrainJob.class)
                .inNamespace("default")
                .withName(name)
                .get();
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
        assertEquals(
                List.of(vision),
                items.stream().map(item -> ((Map<?, ?>) item).get("name")).toList());
        assertEquals("torch-distributed", ((Map<?, ?>) items.get(0)).get("runtime"));
        List<?> all = (List<?>) json(send("GET", "", null, localToken())).get("items");
        assertTrue(
                all.stream()
                        .map(item -> ((Map<?, ?>) item).get("name"))
                        .toList()
                        .containsAll(List.of(vision, nlp)),
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
        assertEquals(
                404, send("POST", "/no-such-job/suspend", null, localToken()).statusCode());
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
        assertTrue(
                ((String) json(selector).get("detail")).startsWith("Invalid 'labelSelector': 'team>1'"),
                selector.body());
        HttpResponse<String> propagation = send("DELETE", "/" + name + "?propagation=Sideways", null, localToken());
        assertEquals(400, propagation.statusCode(), propagation.body());
        assertEquals("propagation", json(propagation).get("field"));
        assertTrue(((String) json(propagation).get("detail")).contains("use Background"), propagation.body());
        assertEquals(name, stored(name).getMetadata().getName(), "a refused delete deleted the job");
    }

    @Test
    void aFollowerResumesFromTheLinesItHasWithOffset() throws Exception {
        HttpResponse<String> created = send(
                "POST",
                "",
                "{\"pythonFile\": \"/app/train.py\", \"annotations\": {"
                        + "\"sandbox.camelkubeflow.io/log-lines\": \"8\", \"sandbox.camelkubeflow.io/run-millis\": \"800\"}}",
                localToken());
        assertEquals(201, created.statusCode(), created.body());
        String name = (String) json(created).get("name");
        List<String> all = send("GET", "/" + name + "/logs?follow=true", null, localToken())
                .body()
                .lines()
                .toList();
        assertTrue(all.size() >= 9, all.toString());
        HttpResponse<String> rest = send("GET", "/" + name + "/logs?follow=true&offset=3", null, localToken());
        assertEquals(200, rest.statusCode(), rest.body());
        assertEquals(all.subList(3, all.size()), rest.body().lines().toList());
        assertEquals(
                List.of(),
                send("GET", "/" + name + "/logs?offset=" + all.size(), null, localToken())
                        .body()
                        .lines()
                        .toList());

        for (String bad : List.of("offset=-1", "offset=three", "offset=2&step=all")) {
            HttpResponse<String> refused = send("GET", "/" + name + "/logs?" + bad, null, localToken());
            assertEquals(400, refused.statusCode(), bad + ": " + refused.body());
            assertEquals("offset", json(refused).get("field"), refused.body());
        }
    }

    /**
     * follow is the document's boolean, true or false: another spelling is refused naming it, never read as false (a
     * client that wrote follow=TRUE meant to wait, and would be told 409 "add follow=true" for a job not yet started).
     */
    @Test
    void aFollowThatIsNeitherTrueNorFalseIsRefusedNamingIt() throws Exception {
        String name = trainMounting("never-made");
        try {
            for (String bad : List.of("follow=TRUE", "follow=1", "follow=", "follow=yes")) {
                HttpResponse<String> refused =
                        HTTP.send(logRead(name, "?" + bad), HttpResponse.BodyHandlers.ofString());
                assertEquals(400, refused.statusCode(), bad + ": " + refused.body());
                assertEquals("follow", json(refused).get("field"), refused.body());
            }
            HttpResponse<String> plain =
                    HTTP.send(logRead(name, "?follow=false"), HttpResponse.BodyHandlers.ofString());
            assertEquals(409, plain.statusCode(), "follow=false reads what there is: " + plain.body());
        } finally {
            client.resources(TrainJob.class)
                    .inNamespace("default")
                    .withName(name)
                    .delete();
        }
    }

    /**
     * A job whose pods mount the ConfigMap {@code configMap}: until it exists they wait, Pending, as a kubelet keeps a
     * pod whose volume it cannot mount.
     */
    private String trainMounting(String configMap) throws Exception {
        HttpResponse<String> created = send(
                "POST",
                "",
                "{\"pythonFile\": \"/app/train.py\", \"volumes\": [\"configMap:" + configMap + ":/settings\"]}",
                localToken());
        assertEquals(201, created.statusCode(), created.body());
        return (String) json(created).get("name");
    }

    /**
     * A log read; its only bound is one against a hang (the test profile's follow waits an hour for a pod to start, so
     * a read that waits when it should not hangs instead of answering late).
     */
    private HttpRequest logRead(String name, String query) throws Exception {
        return HttpRequest.newBuilder(URI.create(trainjobs + "/" + name + "/logs" + query))
                .timeout(Duration.ofMinutes(5))
                .header("Authorization", "Bearer " + localToken())
                .GET()
                .build();
    }

    @Test
    void aPlainReadOfAJobWhosePodsHaveNotStartedIs409NotStartedWithTheFix() throws Exception {
        String name = trainMounting("never-made");
        try {
            for (String query : List.of("", "?step=all", "?step=node-0")) {
                HttpResponse<String> read = HTTP.send(logRead(name, query), HttpResponse.BodyHandlers.ofString());
                assertEquals(409, read.statusCode(), query + ": " + read.body());
                assertEquals(
                        "application/problem+json",
                        read.headers().firstValue("Content-Type").orElse(null));
                Map<?, ?> problem = json(read);
                assertEquals("https://camelkubeflow.io/problems/not-started", problem.get("type"), read.body());
                assertTrue(
                        String.valueOf(problem.get("detail"))
                                .startsWith("no pod of TrainJob default/" + name + " matching"),
                        read.body());
                assertTrue(String.valueOf(problem.get("detail")).endsWith("has started yet"), read.body());
                assertTrue(String.valueOf(problem.get("fix")).contains("add follow=true to wait"), read.body());
            }
        } finally {
            // the sandbox stops looking for the ConfigMap once the job is gone
            client.resources(TrainJob.class)
                    .inNamespace("default")
                    .withName(name)
                    .delete();
        }

        HttpResponse<String> created =
                send("POST", "", "{\"pythonFile\": \"/app/train.py\", \"suspend\": true}", localToken());
        assertEquals(201, created.statusCode(), created.body());
        // suspended by its spec, whether or not the controller has written its Suspended condition yet
        HttpResponse<String> suspended = HTTP.send(
                logRead((String) json(created).get("name"), "?follow=true"), HttpResponse.BodyHandlers.ofString());
        assertEquals(409, suspended.statusCode(), suspended.body());
        assertEquals(
                "https://camelkubeflow.io/problems/suspended", json(suspended).get("type"), suspended.body());
    }

    /**
     * step=all reads the nodes and the launcher, never the initializers: a job whose initializers have run and ended
     * while its node pod waits is one of whose pods to read none has started (before, the ended initializer counted as
     * started, and the read answered 200 with no line).
     */
    @Test
    void aPlainReadOfAllStepsIs409WhenOnlyTheInitializersHaveRun() throws Exception {
        HttpResponse<String> created = send(
                "POST",
                "",
                "{\"runtime\": \"torchtune-llama3.2-1b\", \"args\":"
                        + " [\"epochs=1\"], \"volumes\": [\"configMap:never-made:/settings\"]}",
                localToken());
        assertEquals(201, created.statusCode(), created.body());
        String name = (String) json(created).get("name");
        try {
            // a bound against a hang only: the sandbox runs the initializers at once, then makes the node pod
            long giveUp = System.nanoTime() + Duration.ofMinutes(2).toNanos();
            while (!initializersEndedAndNodesPending(name)) {
                assertTrue(System.nanoTime() < giveUp, "the initializers never ended with the node pod pending");
                Thread.sleep(20);
            }
            HttpResponse<String> read = HTTP.send(logRead(name, "?step=all"), HttpResponse.BodyHandlers.ofString());
            assertEquals(409, read.statusCode(), read.body());
            assertEquals(
                    "https://camelkubeflow.io/problems/not-started", json(read).get("type"), read.body());
        } finally {
            client.resources(TrainJob.class)
                    .inNamespace("default")
                    .withName(name)
                    .delete();
        }
    }

    private boolean initializersEndedAndNodesPending(String name) {
        Map<Boolean, List<String>> phases = client
                .pods()
                .inNamespace("default")
                .withLabel("jobset.sigs.k8s.io/jobset-name", name)
                .list()
                .getItems()
                .stream()
                .collect(Collectors.partitioningBy(
                        pod -> pod.getMetadata()
                                .getLabels()
                                .get("jobset.sigs.k8s.io/replicatedjob-name")
                                .endsWith("-initializer"),
                        Collectors.mapping(pod -> pod.getStatus().getPhase(), Collectors.toList())));
        return !phases.get(true).isEmpty()
                && phases.get(true).stream().allMatch("Succeeded"::equals)
                && !phases.get(false).isEmpty()
                && phases.get(false).stream().allMatch("Pending"::equals);
    }

    /**
     * A job that completed and whose pods were deleted after (JobSet after success, a TTL, garbage collection): its
     * log is gone, and a read says so at once, with or without follow, instead of "not started yet" (before: 409
     * not-started for a plain read, and a follow waited for a pod that never comes).
     */
    @Test
    void aReadOfACompletedJobWhosePodsAreGoneIs410LogGoneAtOnceFollowOrNot() throws Exception {
        HttpResponse<String> created = send(
                "POST",
                "",
                "{\"pythonFile\": \"/app/train.py\", \"annotations\": {"
                        + "\"sandbox.camelkubeflow.io/run-millis\": \"100\"}}",
                localToken());
        assertEquals(201, created.statusCode(), created.body());
        String name = (String) json(created).get("name");
        try {
            // a bound against a hang only
            long giveUp = System.nanoTime() + Duration.ofMinutes(2).toNanos();
            while (TrainJobPhase.of(stored(name)) != TrainJobPhase.COMPLETE) {
                assertTrue(System.nanoTime() < giveUp, "the job never completed");
                Thread.sleep(20);
            }
            // positive control: while its pods are there, its log is read
            HttpResponse<String> read = HTTP.send(logRead(name, ""), HttpResponse.BodyHandlers.ofString());
            assertEquals(200, read.statusCode(), read.body());
            assertTrue(read.body().contains("sandbox: exited with code 0"), read.body());

            client.pods()
                    .inNamespace("default")
                    .withLabel("jobset.sigs.k8s.io/jobset-name", name)
                    .delete();
            // gone as the app's pod informer, which log reads look at, has it
            ClusterInformers informers = camel.getComponent("kubeflow-trainer", KubeflowTrainerComponent.class)
                    .informersFor(client);
            while (!informers
                    .podsOf("default", new TrainJobRef("default", name))
                    .isEmpty()) {
                assertTrue(System.nanoTime() < giveUp, "the pods were never deleted");
                Thread.sleep(20);
            }
            // the test profile's follow waits an hour for a pod: one that waited would hang here, not answer
            for (String query : List.of("", "?follow=true", "?step=all", "?step=node-0&follow=true")) {
                HttpResponse<String> gone = HTTP.send(logRead(name, query), HttpResponse.BodyHandlers.ofString());
                assertEquals(410, gone.statusCode(), query + ": " + gone.body());
                Map<?, ?> problem = json(gone);
                assertEquals("https://camelkubeflow.io/problems/log-gone", problem.get("type"), gone.body());
                String step = query.contains("node-0") ? "node-0" : query.contains("all") ? "all" : "trainer";
                assertEquals(
                        "TrainJob default/" + name + " has ended (Complete) and no pod of step " + step
                                + " is left with a log: it went with its pod, or no pod of it ever started",
                        problem.get("detail"),
                        gone.body());
                assertTrue(String.valueOf(problem.get("fix")).contains("follow=true"), gone.body());
            }
        } finally {
            client.resources(TrainJob.class)
                    .inNamespace("default")
                    .withName(name)
                    .delete();
        }
    }

    @Test
    void aFollowWaitsForThePodsToStartAndDeliversTheirLog() throws Exception {
        String name = trainMounting("made-later");
        long since = localSandbox.sandbox().requestCount();
        CompletableFuture<HttpResponse<String>> follow =
                HTTP.sendAsync(logRead(name, "?follow=true"), HttpResponse.BodyHandlers.ofString());
        // the app has looked the job up for the read (is it suspended?), so it reads while no pod can start (the
        // emulated controller's own GETs of it, looking for the ConfigMap, left out)
        String jobPath = "/namespaces/default/trainjobs/" + name;
        while (localSandbox.sandbox().requestsSince(since).stream()
                .filter(r -> !TrainJobControllerEmulation.USER_AGENT.equals(r.getHeader("User-Agent")))
                .noneMatch(r -> "GET".equals(r.getMethod()) && r.getPath().endsWith(jobPath))) {
            assertFalse(
                    follow.isDone(),
                    () -> "answered before the job was looked up: "
                            + follow.join().body());
            Thread.sleep(20);
        }
        assertTrue(
                client
                        .pods()
                        .inNamespace("default")
                        .withLabel("jobset.sigs.k8s.io/jobset-name", name)
                        .list()
                        .getItems()
                        .stream()
                        .allMatch(pod -> "Pending".equals(pod.getStatus().getPhase())),
                "the pods wait for their ConfigMap");
        assertFalse(
                follow.isDone(),
                () -> "a follow answered while the pods were pending: "
                        + follow.join().body());
        client.configMaps()
                .inNamespace("default")
                .resource(new ConfigMapBuilder()
                        .withNewMetadata()
                        .withName("made-later")
                        .endMetadata()
                        .addToData("lr", "0.1")
                        .build())
                .create();
        HttpResponse<String> log = follow.get();
        assertEquals(200, log.statusCode(), log.body());
        List<String> lines = log.body().lines().toList();
        assertTrue(lines.size() > 2 && lines.get(0).contains("started"), log.body());
        assertEquals("sandbox: exited with code 0", lines.get(lines.size() - 1), log.body());
    }

    @Test
    void aCallerWithoutRightsIs403ForEveryOperationAndChangesNothing() throws Exception {
        String name = train("ops-denied");
        String mallory = localSandbox.sandbox().issueToken("mallory");
        Boolean suspendedBefore = stored(name).getSpec().suspend();
        for (String[] call : new String[][] {
            {"GET", ""}, {"DELETE", "/" + name}, {"POST", "/" + name + "/suspend"}, {"POST", "/" + name + "/resume"}
        }) {
            HttpResponse<String> refused = send(call[0], call[1], null, mallory);
            assertEquals(403, refused.statusCode(), call[0] + " " + call[1] + ": " + refused.body());
            assertTrue(((String) json(refused).get("detail")).startsWith("caller 'mallory' may not "), refused.body());
        }
        assertEquals(suspendedBefore, stored(name).getSpec().suspend(), "not suspended, resumed nor deleted");
    }
}
