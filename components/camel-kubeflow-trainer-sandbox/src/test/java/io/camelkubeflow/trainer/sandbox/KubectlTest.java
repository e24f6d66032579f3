package io.camelkubeflow.trainer.sandbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.camelkubeflow.trainer.sandbox.store.Discovery;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The real kubectl binary against the sandbox, with the kubeconfig the sandbox writes: each command a user would try
 * works as on a cluster. kubectl is required (on the PATH, or -Dkubectl=PATH): without it the tests fail, saying so,
 * and never skip.
 */
class KubectlTest {
    /** -Dkubectl=PATH, else the first kubectl on the PATH. */
    private static final Path KUBECTL = System.getProperty("kubectl") != null
            ? Path.of(System.getProperty("kubectl"))
            : Arrays.stream(System.getenv().getOrDefault("PATH", "").split(File.pathSeparator))
                    .map(dir -> Path.of(dir, "kubectl"))
                    .filter(Files::isExecutable)
                    .findFirst()
                    .orElse(Path.of("kubectl"));

    private static final String JOB = """
            apiVersion: trainer.kubeflow.org/v1alpha1
            kind: TrainJob
            metadata:
              name: %s
              annotations: {sandbox.camelkubeflow.io/run-millis: "%d", sandbox.camelkubeflow.io/log-lines: "5"}
            spec:
              runtimeRef: {name: torch-distributed}
              trainer: {numNodes: 2, command: [python, train.py], resourcesPerNode: {requests: {cpu: 1}}}
            """;

    @TempDir
    static Path work;

    private static TrainerSandbox sandbox;
    private static Path kubeconfig;

    @BeforeAll
    static void start() {
        if (!Files.isExecutable(KUBECTL)) {
            fail("kubectl is required on the PATH (or -Dkubectl=PATH): these tests run the real binary against the"
                    + " sandbox; install it (https://kubernetes.io/docs/tasks/tools/) and run again");
        }
        sandbox = TrainerSandbox.start(
                TrainerSandbox.Options.defaults().withController(Duration.ofMillis(100), Duration.ofMillis(1000)));
        kubeconfig = sandbox.writeKubeconfig(work.resolve("kubeconfig"));
    }

    @AfterAll
    static void stop() {
        sandbox.close();
    }

    @Test
    void versionAndApiResourcesComeFromDiscovery() {
        assertTrue(ok("version").contains("Server Version: " + Discovery.KUBERNETES_VERSION));
        String resources = ok("api-resources");
        for (String row : List.of("trainjobs", "clustertrainingruntimes", "pods", "events", "namespaces", "leases")) {
            assertTrue(resources.contains(row), row + " missing from:\n" + resources);
        }
        assertTrue(ok("get", "clustertrainingruntimes").contains("torch-distributed"));
    }

    @Test
    void createWritesBuiltInObjectsInProtobufAsOnACluster() {
        // kubectl writes a built-in object in protobuf (application/vnd.kubernetes.protobuf)
        assertTrue(ok("create", "namespace", "protobuf").contains("namespace/protobuf created"));
        assertTrue(ok("create", "configmap", "settings", "-n", "protobuf", "--from-literal=lr=0.5")
                .contains("configmap/settings created"));
        assertEquals(
                "{\"lr\":\"0.5\"}", ok("get", "configmap", "settings", "-n", "protobuf", "-o", "jsonpath={.data}"));
        ok("create", "secret", "generic", "token", "-n", "protobuf", "--from-literal=key=s3cret");
        assertEquals("czNjcmV0", ok("get", "secret", "token", "-n", "protobuf", "-o", "jsonpath={.data.key}"));
        Result unread = run("create", "serviceaccount", "robot", "-n", "protobuf");
        assertTrue(
                unread.output().contains("the body of the request was in an unknown format"),
                "a kind the sandbox reads as JSON only is refused as a media type it cannot read: " + unread.output());
    }

    @Test
    void applyOfABuiltInObjectIsValidatedOnTheServer() throws IOException {
        Path namespace = Files.writeString(
                work.resolve("namespace.yaml"), "apiVersion: v1\nkind: Namespace\nmetadata: {name: applied}\n");
        assertTrue(ok("apply", "-f", namespace.toString()).contains("namespace/applied created"));
        assertTrue(ok("apply", "-f", namespace.toString()).contains("namespace/applied unchanged"));
        // kubectl patches a built-in object with a strategic merge patch
        Files.writeString(namespace, "apiVersion: v1\nkind: Namespace\nmetadata: {name: applied, labels: {team: a}}\n");
        assertTrue(ok("apply", "-f", namespace.toString()).contains("namespace/applied configured"));
        assertEquals(
                "{\"kubernetes.io/metadata.name\":\"applied\",\"team\":\"a\"}",
                ok("get", "namespace", "applied", "-o", "jsonpath={.metadata.labels}"));
    }

    @Test
    void applyGetWaitLogsDescribeDelete() {
        apply(JOB.formatted("first", 1000));
        assertTrue(ok("get", "trainjobs").contains("first"));
        assertTrue(ok("get", "trainjob", "first", "-o", "yaml").contains("name: torch-distributed"));
        assertTrue(ok("wait", "--for=condition=Complete", "trainjob/first", "--timeout=30s")
                .contains("condition met"));
        // the server's tables: the CRD's printer columns, a pod's READY and STATUS
        assertTrue(
                ok("get", "trainjob", "first").lines().anyMatch(l -> l.matches("first\\s+Complete\\s+\\d+s")),
                ok("get", "trainjob", "first"));
        assertTrue(
                ok("get", "pods", "-l", "jobset.sigs.k8s.io/jobset-name=first").contains("0/1     Completed"),
                ok("get", "pods"));
        assertTrue(ok("get", "events").contains("Container started"));

        String pods = ok(
                "get",
                "pods",
                "-l",
                "jobset.sigs.k8s.io/jobset-name=first," + "jobset.sigs.k8s.io/replicatedjob-name in (launcher, node)",
                "-o",
                "name");
        assertEquals(2, pods.lines().count(), pods);
        String pod = pods.lines().findFirst().orElseThrow();
        assertTrue(ok("logs", pod).contains("sandbox: exited with code 0"));
        String described = ok("describe", pod);
        assertTrue(described.contains("Image:         pytorch/pytorch"), described);
        assertTrue(described.contains("PET_NNODES:"), described);
        assertTrue(described.contains("Container started"), "events listed:\n" + described);

        assertTrue(ok("get", "jobsets").contains("first"), "the TrainJob's JobSet");
        assertTrue(
                ok("get", "jobs", "-l", "jobset.sigs.k8s.io/jobset-name=first").contains("first-node-0"));
        assertTrue(ok("delete", "trainjob", "first").contains("deleted"));
        Eventually.until(() -> ok("get", "pods", "-l", "jobset.sigs.k8s.io/jobset-name=first", "-o", "name")
                .isBlank());
    }

    @Test
    void logsFollowStreamsARunningPodUntilItsContainerEnds() throws Exception {
        apply(JOB.formatted("followed", 3000));
        Eventually.until(() -> !ok("get", "pods", "-l", "jobset.sigs.k8s.io/jobset-name=followed", "-o", "name")
                .isBlank());
        String pod = ok("get", "pods", "-l", "jobset.sigs.k8s.io/jobset-name=followed", "-o", "name")
                .lines()
                .findFirst()
                .orElseThrow();
        String followed = ok("logs", "-f", pod);
        List<String> lines = followed.lines().toList();
        assertTrue(lines.get(0).contains("started"), followed);
        assertEquals(
                "sandbox: exited with code 0", lines.get(lines.size() - 1), "followed until the end:\n" + followed);
        assertEquals(7, lines.size(), followed);
    }

    @Test
    void explainReadsTheCrdSchema() {
        String explained = ok("explain", "trainjob.spec.trainer.numNodes");
        assertTrue(explained.contains("FIELD: numNodes <integer>"), explained);
    }

    @Test
    void selectorsAreTheApiServersGrammar() {
        apply(JOB.formatted("team-a", 100).replace("metadata:\n", "metadata:\n  labels: {team: a}\n"));
        apply(JOB.formatted("team-b", 100).replace("metadata:\n", "metadata:\n  labels: {team: b}\n"));
        apply(JOB.formatted("no-team", 100));
        assertEquals(List.of("team-a", "team-b"), names("team in (a, b)"));
        assertEquals(List.of("no-team", "team-b"), names("team notin (a)"));
        assertEquals(List.of("no-team"), names("!team"));
        assertEquals(List.of("team-a"), names("team,team!=b"));
        Result bad = run("get", "trainjobs", "-l", "team in (a");
        assertTrue(bad.code() != 0 && bad.output().contains("unable to parse requirement"), bad.output());
    }

    private static List<String> names(String selector) {
        return ok("get", "trainjobs", "-l", selector, "-o", "custom-columns=:metadata.name", "--sort-by=.metadata.name")
                .lines()
                .filter(l -> !l.isBlank())
                .toList();
    }

    private static void apply(String yaml) {
        try {
            Path file = Files.createTempFile(work, "job", ".yaml");
            Files.writeString(file, yaml);
            assertTrue(ok("apply", "-f", file.toString()).contains("created"));
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    record Result(int code, String output) {}

    private static String ok(String... args) {
        Result result = run(args);
        assertEquals(0, result.code(), "kubectl " + String.join(" ", args) + " failed:\n" + result.output());
        return result.output();
    }

    private static Result run(String... args) {
        List<String> command = new ArrayList<>(List.of(
                KUBECTL.toString(),
                "--kubeconfig",
                kubeconfig.toString(),
                "--cache-dir",
                work.resolve("cache").toString()));
        command.addAll(List.of(args));
        try {
            Process process =
                    new ProcessBuilder(command).redirectErrorStream(true).start();
            if (!process.waitFor(60, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                fail("kubectl " + String.join(" ", args) + " did not end within 60 s");
            }
            return new Result(
                    process.exitValue(), new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new IllegalStateException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
