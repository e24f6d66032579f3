package io.camelkubeflow.trainer.routes;

import static io.camelkubeflow.trainer.routes.HttpRoutesTest.HTTP;
import static io.camelkubeflow.trainer.routes.HttpRoutesTest.json;
import static io.camelkubeflow.trainer.routes.HttpRoutesTest.localToken;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.camelkubeflow.trainer.api.TrainJob;
import io.camelkubeflow.trainer.job.TrainJobMetadata;
import io.camelkubeflow.trainer.quarkus.LocalTrainerSandbox;
import io.camelkubeflow.trainer.sandbox.cluster.TrainJobControllerEmulation;
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
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * What the Kubeflow SDK reads, over HTTP: a job's steps in its answers, its Kubernetes Events, one runtime by name and
 * the jobs of one runtime; each through the component's operation as the caller, a name checked before it is used,
 * and no write.
 */
@QuarkusTest
@QuarkusTestResource(FreshFolders.class)
class HttpReadsTest {
    @TestHTTPResource("/")
    URL root;

    @Inject
    LocalTrainerSandbox localSandbox;

    @Inject
    KubernetesClient client;

    private HttpResponse<String> get(String path, String token) throws Exception {
        return HTTP.send(
                HttpRequest.newBuilder(URI.create(root + path.substring(1)))
                        .timeout(Duration.ofSeconds(30))
                        .header("Authorization", "Bearer " + token)
                        .GET()
                        .build(),
                HttpResponse.BodyHandlers.ofString());
    }

    /** A job of the app's default runtime that ran to its end. */
    private String finishedJob(String team) throws Exception {
        HttpResponse<String> created = HTTP.send(
                HttpRequest.newBuilder(URI.create(root + "trainjobs"))
                        .header("Authorization", "Bearer " + localToken())
                        .header("Content-Type", "application/json")
                        .POST(HttpRequest.BodyPublishers.ofString("{\"pythonFile\": \"/app/train.py\", \"numNodes\": 2,"
                                + " \"labels\": {\"team\": \"" + team + "\"}, \"annotations\": {"
                                + "\"sandbox.camelkubeflow.io/run-millis\": \"100\"}}"))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(201, created.statusCode(), created.body());
        String name = (String) json(created).get("name");
        Instant deadline = Instant.now().plusSeconds(30);
        // complete, and its end handled by the completion route (which marks it: a write of the app's own)
        while (!handled(name)) {
            assertTrue(Instant.now().isBefore(deadline), "the job did not complete");
            Thread.sleep(50);
        }
        return name;
    }

    private boolean handled(String name) {
        Map<String, String> annotations = client.resources(TrainJob.class)
                .inNamespace("default")
                .withName(name)
                .get()
                .getMetadata()
                .getAnnotations();
        return annotations != null && annotations.containsKey(TrainJobMetadata.handledAnnotation("completion"));
    }

    /**
     * Writes the API server saw since {@code since}, other than the emulated controller's and the reviews.
     */
    private List<String> writesSince(long since) {
        return localSandbox.sandbox().requestsSince(since).stream()
                .filter(r -> !"GET".equals(r.getMethod()))
                .filter(r -> !TrainJobControllerEmulation.USER_AGENT.equals(r.getHeader("User-Agent")))
                .filter(r -> !r.getPath().startsWith("/apis/authorization.k8s.io/")
                        && !r.getPath().startsWith("/apis/authentication.k8s.io/"))
                .map(r -> r.getMethod() + " " + r.getPath())
                .toList();
    }

    @Test
    void aJobsAnswerCarriesItsStepsAndItsEventsComeInOrderWithTheirSteps() throws Exception {
        String name = finishedJob("reads-steps");
        long since = localSandbox.sandbox().requestCount();
        Map<?, ?> status = json(get("/trainjobs/" + name, localToken()));
        List<?> steps = (List<?>) status.get("steps");
        assertEquals(
                List.of("node-0", "node-1"),
                steps.stream().map(s -> ((Map<?, ?>) s).get("name")).toList());
        assertEquals("Succeeded", ((Map<?, ?>) steps.get(0)).get("status"));
        assertTrue(
                ((String) ((Map<?, ?>) steps.get(1)).get("podName")).startsWith(name + "-node-0-1-"), steps.toString());

        HttpResponse<String> events = get("/trainjobs/" + name + "/events", localToken());
        assertEquals(200, events.statusCode(), events.body());
        List<?> items = (List<?>) json(events).get("items");
        List<String> seen = items.stream()
                .map(e -> ((Map<?, ?>) e).get("kind") + " " + ((Map<?, ?>) e).get("reason") + " "
                        + ((Map<?, ?>) e).get("step"))
                .toList();
        assertEquals("Job SuccessfulCreate null", seen.get(0), seen.toString());
        assertTrue(
                seen.containsAll(List.of("Pod Started node-0", "Pod Started node-1", "JobSet AllJobsCompleted null")),
                seen.toString());
        assertEquals("JobSet AllJobsCompleted null", seen.get(seen.size() - 1), seen.toString());
        assertEquals(List.of(), writesSince(since));
    }

    @Test
    void listByRuntimeAnswersItsJobsWithTheirSteps() throws Exception {
        String name = finishedJob("reads-list");
        HttpResponse<String> listed =
                get("/trainjobs?labelSelector=team%3Dreads-list&runtime=torch-distributed", localToken());
        assertEquals(200, listed.statusCode(), listed.body());
        List<?> items = (List<?>) json(listed).get("items");
        assertEquals(
                List.of(name),
                items.stream().map(i -> ((Map<?, ?>) i).get("name")).toList());
        assertEquals(2, ((List<?>) ((Map<?, ?>) items.get(0)).get("steps")).size());
        assertEquals(
                List.of(),
                json(get("/trainjobs?labelSelector=team%3Dreads-list&runtime=deepspeed-distributed", localToken()))
                        .get("items"));
    }

    @Test
    void aRuntimeByNameWithItsLauncherAndAMissingOneIs404() throws Exception {
        HttpResponse<String> runtime = get("/runtimes/torch-distributed", localToken());
        assertEquals(200, runtime.statusCode(), runtime.body());
        assertEquals("ClusterTrainingRuntime", json(runtime).get("kind"));
        assertEquals("torchrun", json(runtime).get("launcher"));
        HttpResponse<String> missing = get("/runtimes/no-such-runtime", localToken());
        assertEquals(404, missing.statusCode(), missing.body());
        assertEquals("runtime", json(missing).get("field"));
    }

    @Test
    void badNamesAre400NamingTheParameterBeforeAnyRequest() throws Exception {
        long since = localSandbox.sandbox().requestCount();
        for (String[] call : new String[][] {
            {"/trainjobs/Not_A_Name/events", "name"},
            {"/trainjobs/x/events?namespace=..", "namespace"},
            {"/runtimes/Bad_Runtime", "runtime"},
            {"/trainjobs?runtime=..%2Fsecrets", "runtime"}
        }) {
            HttpResponse<String> refused = get(call[0], localToken());
            assertEquals(400, refused.statusCode(), call[0] + ": " + refused.body());
            assertEquals(call[1], json(refused).get("field"), refused.body());
        }
        // the app goes on with other work meanwhile (its informers, other tests' reads still answering): what must
        // not happen is a request naming what a refused request named
        assertEquals(
                List.of(),
                localSandbox.sandbox().requestsSince(since).stream()
                        .map(r -> r.getPath())
                        .filter(path -> path.contains("Not_A_Name")
                                || path.contains("/trainjobs/x")
                                || path.contains("..")
                                || path.contains("%2E")
                                || path.contains("%2e")
                                || path.contains("Bad_Runtime")
                                || path.contains("secrets"))
                        .toList(),
                "nothing is read with a bad name");
        assertEquals(List.of(), writesSince(since));
    }

    @Test
    void aCallerWithoutRightsIs403ForEveryReadAndWritesNothing() throws Exception {
        String name = finishedJob("reads-denied");
        String mallory = localSandbox.sandbox().issueToken("mallory");
        long since = localSandbox.sandbox().requestCount();
        for (String path : List.of(
                "/trainjobs/" + name,
                "/trainjobs/" + name + "/events",
                "/trainjobs?runtime=torch-distributed",
                "/runtimes/torch-distributed")) {
            HttpResponse<String> refused = get(path, mallory);
            assertEquals(403, refused.statusCode(), path + ": " + refused.body());
            assertTrue(((String) json(refused).get("detail")).startsWith("caller 'mallory' may not "), refused.body());
        }
        assertEquals(List.of(), writesSince(since));
    }
}
