package io.camelkubeflow.trainer.routes;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.camelkubeflow.trainer.api.RuntimePatch;
import io.camelkubeflow.trainer.api.TrainJob;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.net.URI;
import java.net.URL;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.eclipse.jgit.api.Git;
import org.eclipse.microprofile.config.ConfigProvider;
import org.junit.jupiter.api.Test;

/** The HTTP API of the app, on the sandbox (which runs staged scripts with the local python3). */
@QuarkusTest
@QuarkusTestResource(FreshFolders.class)
class HttpRoutesTest {
    static final ObjectMapper JSON = new ObjectMapper();
    static final HttpClient HTTP =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @TestHTTPResource("/trainjobs")
    URL trainjobs;

    /** The local developer's token the app wrote at start, read from its file as a user of the sandbox reads it. */
    static String localToken() throws Exception {
        return Files.readString(Path.of(ConfigProvider.getConfig().getValue("trainer.http.token-file", String.class)));
    }

    HttpResponse<String> post(String json, String idempotencyKey) throws Exception {
        return post(json, idempotencyKey, localToken());
    }

    HttpResponse<String> post(String json, String idempotencyKey, String token) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(trainjobs.toURI())
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(json));
        if (token != null) {
            request.header("Authorization", "Bearer " + token);
        }
        if (idempotencyKey != null) {
            request.header("Idempotency-Key", idempotencyKey);
        }
        return HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    HttpResponse<String> get(String path) throws Exception {
        return HTTP.send(
                HttpRequest.newBuilder(URI.create(trainjobs + path))
                        .timeout(Duration.ofSeconds(90))
                        .header("Authorization", "Bearer " + localToken())
                        .build(),
                HttpResponse.BodyHandlers.ofString());
    }

    static Map<?, ?> json(HttpResponse<String> response) throws Exception {
        return JSON.readValue(response.body(), Map.class);
    }

    @Test
    void aPostedScriptTrainsAndItsStatusAndLogCanBeRead() throws Exception {
        String request =
                "{\"script\": \"import sys\\nprint('hello from', sys.argv[1:])\\n\", \"args\": [\"--lr\", \"0.1\"],"
                        + " \"env\": {\"STAGE\": \"dev\"}, \"labels\": {\"team\": \"vision\"}}";
        HttpResponse<String> created = post(request, "http-request-1");
        assertEquals(201, created.statusCode(), created.body());
        Map<?, ?> job = json(created);
        assertEquals("torchrun", job.get("launcher"));
        assertEquals("torch-distributed", job.get("runtime"));
        String name = (String) job.get("name");

        HttpResponse<String> again = post(request, "http-request-1");
        assertEquals(200, again.statusCode(), again.body());
        assertEquals(name, json(again).get("name"));
        assertEquals(true, json(again).get("adopted"));

        HttpResponse<String> log = get("/" + name + "/logs?follow=true");
        assertEquals(200, log.statusCode(), log.body());
        assertTrue(log.body().contains("hello from ['--lr', '0.1']"), log.body());

        // the trainer pod has ended; the TrainJob's Complete condition follows a moment later
        HttpResponse<String> status = get("/" + name);
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (!"Complete".equals(json(status).get("status")) && System.nanoTime() < deadline) {
            Thread.sleep(100);
            status = get("/" + name);
        }
        assertEquals(200, status.statusCode());
        assertEquals("Complete", json(status).get("status"));
        assertEquals("AllJobsCompleted", json(status).get("reason"));
    }

    @Test
    void typedInitializerFieldsBecomeTheTrainJobsInitializers() throws Exception {
        HttpResponse<String> created = post(
                "{\"runtime\": \"torchtune-llama3.2-1b\", \"args\": [\"epochs=1\"],"
                        + " \"datasetKind\": \"hf\", \"datasetUri\": \"tatsu-lab/alpaca\", \"datasetIgnorePatterns\": [\"*.md\"],"
                        + " \"modelUri\": \"s3://models/llama\", \"modelEndpoint\": \"http://minio:9000\","
                        + " \"modelIgnorePatterns\": \"*.bin,*.pt\"}",
                null);
        assertEquals(201, created.statusCode(), created.body());
        TrainJob job = client.resources(TrainJob.class)
                .inNamespace("default")
                .withName((String) json(created).get("name"))
                .get();
        assertEquals(
                "hf://tatsu-lab/alpaca", job.getSpec().initializer().dataset().storageUri());
        assertEquals(
                List.of(new EnvVar("IGNORE_PATTERNS", "*.md", null)),
                job.getSpec().initializer().dataset().env());
        assertEquals(
                List.of(
                        new EnvVar("IGNORE_PATTERNS", "*.bin,*.pt", null),
                        new EnvVar("ENDPOINT", "http://minio:9000", null)),
                job.getSpec().initializer().model().env());
    }

    @Test
    void followingALogSendsEachLineWhileTheJobRuns() throws Exception {
        HttpResponse<String> created = post(
                "{\"pythonFile\": \"/app/train.py\", \"annotations\": {"
                        + "\"sandbox.camelkubeflow.io/log-lines\": \"6\", \"sandbox.camelkubeflow.io/run-millis\": \"3000\"}}",
                null);
        assertEquals(201, created.statusCode(), created.body());
        String name = (String) json(created).get("name");

        HttpResponse<Stream<String>> log = HTTP.send(
                HttpRequest.newBuilder(URI.create(trainjobs + "/" + name + "/logs?follow=true"))
                        .timeout(Duration.ofSeconds(90))
                        .header("Authorization", "Bearer " + localToken())
                        .build(),
                HttpResponse.BodyHandlers.ofLines());
        assertEquals(200, log.statusCode());
        assertEquals(
                "text/plain; charset=utf-8",
                log.headers().firstValue("Content-Type").orElseThrow());
        List<String> lines = new ArrayList<>();
        List<Long> arrivals = new ArrayList<>();
        log.body().forEach(line -> {
            lines.add(line);
            arrivals.add(System.nanoTime());
        });
        assertEquals(
                List.of(
                        "step=1 of 6",
                        "step=2 of 6",
                        "step=3 of 6",
                        "step=4 of 6",
                        "step=5 of 6",
                        "step=6 of 6",
                        "sandbox: exited with code 0"),
                lines.subList(1, lines.size()));
        long spreadMillis = (arrivals.get(arrivals.size() - 1) - arrivals.get(1)) / 1_000_000;
        assertTrue(
                spreadMillis > 1500,
                "the lines of a 3 s job arrived within " + spreadMillis
                        + " ms: they were held back instead of streamed");
    }

    @Test
    void badRequestsNameTheFieldAndUnknownJobsAre404() throws Exception {
        HttpResponse<String> quantity = post("{\"script\": \"print(1)\", \"cpu\": \"2 cores\"}", null);
        assertEquals(400, quantity.statusCode(), quantity.body());
        assertEquals("cpu", json(quantity).get("field"));

        HttpResponse<String> unknown = post("{\"script\": \"print(1)\", \"gpus\": 1}", null);
        assertEquals(400, unknown.statusCode(), unknown.body());
        assertEquals("gpus", json(unknown).get("field"));

        HttpResponse<String> notJson = post("{\"script\": ", null);
        assertEquals(400, notJson.statusCode(), notJson.body());
        assertEquals("body", json(notJson).get("field"));

        HttpResponse<String> neither = post("{\"runtime\": \"jax-distributed\"}", null);
        assertEquals(400, neither.statusCode(), neither.body());
        assertEquals("command/pythonFile/script", json(neither).get("field"));

        assertEquals(404, get("/no-such-job").statusCode());
        assertEquals(404, get("/no-such-job/logs").statusCode());
        HttpResponse<String> step = get("/no-such-job/logs?step=gpu-7");
        assertEquals(400, step.statusCode(), step.body());
        assertEquals("step", json(step).get("field"));
    }

    @Test
    void httpHeadersCannotSetComponentOptionsAndTheBodysSameFieldsAreHeldToThePolicy() throws Exception {
        HttpResponse<String> created = HTTP.send(
                HttpRequest.newBuilder(trainjobs.toURI())
                        .header("Content-Type", "application/json")
                        .header("Authorization", "Bearer " + localToken())
                        .header("CamelKubeflowTrainerImage", "attacker.example.com/miner:latest")
                        .header("CamelKubeflowTrainerNamespace", "kube-system")
                        .POST(HttpRequest.BodyPublishers.ofString("{\"pythonFile\": \"/app/t.py\"}"))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(201, created.statusCode(), created.body());
        assertEquals("default", json(created).get("namespace"));
        TrainJob job = client.resources(TrainJob.class)
                .inNamespace("default")
                .withName((String) json(created).get("name"))
                .get();
        assertEquals(null, job.getSpec().trainer().image());

        // the body may name the same fields: the request policy bounds them, whoever the caller is
        int jobs = client.resources(TrainJob.class)
                .inAnyNamespace()
                .list()
                .getItems()
                .size();
        for (String beyond : List.of(
                "{\"pythonFile\": \"/app/t.py\", \"image\": \"attacker.example.com/miner:latest\"}",
                "{\"pythonFile\": \"/app/t.py\", \"namespace\": \"kube-system\"}")) {
            HttpResponse<String> refused = post(beyond, null);
            assertEquals(403, refused.statusCode(), refused.body());
            assertTrue(String.valueOf(json(refused).get("detail")).contains("policy rule"), refused.body());
        }
        assertEquals(
                jobs,
                client.resources(TrainJob.class)
                        .inAnyNamespace()
                        .list()
                        .getItems()
                        .size());
    }

    @Test
    void podOptionsOfAMessageLandInThePatchAndThePolicyAndTheirFormsBoundThem() throws Exception {
        HttpResponse<String> created = post(
                "{\"pythonFile\": \"/app/t.py\", \"nodeSelector\": {\"accelerator\":"
                        + " \"a100\"}, \"tolerations\": [\"nvidia.com/gpu:NoSchedule\"], \"serviceAccountName\": \"trainer\","
                        + " \"volumes\": [\"pvc:datasets:/data:ro\", \"emptyDir:scratch:/scratch\"], \"securityContext\":"
                        + " {\"runAsNonRoot\": \"true\", \"dropCapabilities\": \"ALL\"}}",
                null);
        assertEquals(201, created.statusCode(), created.body());
        TrainJob job = client.resources(TrainJob.class)
                .inNamespace("default")
                .withName((String) json(created).get("name"))
                .get();
        RuntimePatch.PodSpecPatch pod =
                job.getSpec().runtimePatches().get(0).podSpecs().get(0);
        assertEquals(Map.of("accelerator", "a100"), pod.nodeSelector());
        assertEquals("trainer", pod.serviceAccountName());
        assertEquals("nvidia.com/gpu", pod.tolerations().get(0).getKey());
        assertEquals("datasets", pod.volumes().get(0).getPersistentVolumeClaim().getClaimName());
        assertEquals(
                List.of("/data", "/scratch"),
                pod.containers().get(0).volumeMounts().stream()
                        .map(VolumeMount::getMountPath)
                        .toList());
        assertEquals(Boolean.TRUE, pod.containers().get(0).securityContext().getRunAsNonRoot());

        int jobs = client.resources(TrainJob.class)
                .inAnyNamespace()
                .list()
                .getItems()
                .size();
        for (String[] beyond : new String[][] {
            {"{\"pythonFile\": \"/app/t.py\", \"nodeSelector\": {\"accelerator\": \"h100\"}}", "nodeSelectors"},
            {"{\"pythonFile\": \"/app/t.py\", \"serviceAccountName\": \"admin\"}", "serviceAccounts"},
            {"{\"pythonFile\": \"/app/t.py\", \"volumes\": [\"pvc:other:/data\"]}", "persistentVolumeClaims"},
            {"{\"pythonFile\": \"/app/t.py\", \"securityContext\": {\"runAsUser\": \"0\"}}", "runAsRoot"}
        }) {
            HttpResponse<String> refused = post(beyond[0], null);
            assertEquals(403, refused.statusCode(), refused.body());
            assertTrue(
                    String.valueOf(json(refused).get("detail")).contains("policy rule '" + beyond[1] + "'"),
                    refused.body());
        }
        for (String[] malformed : new String[][] {
            {"{\"pythonFile\": \"/app/t.py\", \"volumes\": [\"hostPath:root:/host\"]}", "volumes"},
            {"{\"pythonFile\": \"/app/t.py\", \"tolerations\": [{\"key\": \"x\"}]}", "tolerations"},
            {
                "{\"pythonFile\": \"/app/t.py\", \"securityContext\": {\"privileged\": \"true\"}}",
                "securityContext.privileged"
            }
        }) {
            HttpResponse<String> refused = post(malformed[0], null);
            assertEquals(400, refused.statusCode(), refused.body());
            assertEquals(malformed[1], json(refused).get("field"), refused.body());
        }
        assertEquals(
                jobs,
                client.resources(TrainJob.class)
                        .inAnyNamespace()
                        .list()
                        .getItems()
                        .size());
    }

    @Test
    void aRequestRunsAGitWorkspaceOnlyFromASourceThePolicyAllows() throws Exception {
        // the test profile allows git repositories under target/workspace-repos/ (trainer.policy.workspace-sources)
        Path repository =
                Path.of("target/workspace-repos/churn-" + System.nanoTime()).toAbsolutePath();
        Files.createDirectories(repository.resolve("churn"));
        try (Git git = Git.init()
                .setDirectory(repository.toFile())
                .setInitialBranch("main")
                .call()) {
            Files.writeString(repository.resolve("churn/__init__.py"), "NAME = 'churn model'\n");
            Files.writeString(
                    repository.resolve("train.py"),
                    "import sys\nfrom churn import NAME\nprint('from git:', NAME, sys.argv[1:])\n");
            git.add().addFilepattern(".").call();
            git.commit().setMessage("v1").setSign(false).call();
            git.tag().setName("v1").setSigned(false).setAnnotated(false).call();
        }
        String location = "git+" + repository.toUri() + "@v1";
        HttpResponse<String> created = post(
                "{\"workspace\": \"" + location + "\", \"pythonFile\": \"train.py\","
                        + " \"args\": [\"--epochs\", \"1\"]}",
                "git-workspace-1");
        assertEquals(201, created.statusCode(), created.body());
        HttpResponse<String> log = get("/" + json(created).get("name") + "/logs?follow=true");
        assertTrue(log.body().contains("from git: churn model ['--epochs', '1']"), log.body());

        int jobs = client.resources(TrainJob.class)
                .inAnyNamespace()
                .list()
                .getItems()
                .size();
        for (String beyond : List.of(
                "file:/etc/",
                "git+https://internal.example.com/secrets.git",
                "git+" + repository.toUri() + "../../../../etc@v1")) {
            HttpResponse<String> refused = post("{\"workspace\": \"" + beyond + "\", \"pythonFile\": \"t.py\"}", null);
            assertEquals(403, refused.statusCode(), refused.body());
            assertTrue(
                    String.valueOf(json(refused).get("detail")).contains("policy rule 'workspaceSources'"),
                    refused.body());
        }
        assertEquals(
                jobs,
                client.resources(TrainJob.class)
                        .inAnyNamespace()
                        .list()
                        .getItems()
                        .size());
    }

    @Inject
    KubernetesClient client;
}
