package io.camelkubeflow.trainer.routes;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.camelkubeflow.trainer.api.TrainJob;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipOutputStream;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * The app as users run it, on the local sandbox: each script dropped in the inbox becomes a TrainJob, which the
 * sandbox runs with the local python3; the route waits for it and writes its log and final state to the outbox.
 */
@QuarkusTest
@QuarkusTestResource(FreshFolders.class)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class InboxRouteTest {
    @ConfigProperty(name = "trainer.inbox")
    Path inbox;

    @ConfigProperty(name = "trainer.outbox")
    Path outbox;

    @Inject
    KubernetesClient client;

    @Test
    @Order(1)
    void droppedScriptsBecomeTrainJobsThatRunAndReportTheirOutcome() throws Exception {
        LogCapture.install();
        String good = "import os, sys\nprint('epoch 1 loss=0.5', sys.argv[1:], 'rank', os.environ['RANK'])\n";
        String broken = "print('starting')\nraise SystemExit(3)\n";
        drop("mnist.py", good);
        drop("broken.py", broken);
        drop("empty.py", "  \n");
        // over the request policy's script size (100 000 bytes in tests): refused like any request, whatever its door
        drop("too-big.py", "#".repeat(150_000) + "\nprint(1)\n");

        Map<String, String> logs = awaitOutbox(".log", 2);
        Map<String, String> yamls = awaitOutbox(".yaml", 2);
        String goodJob = jobWhoseLogContains(logs, "epoch 1 loss=0.5 [] rank 0\n");
        // torchrun launched it: its worker's 3 is in the log, the container exits 1, as torchrun does
        String brokenJob = jobWhoseLogContains(logs, "worker exited with code 3; torchrun exits 1");
        assertTrue(logs.get(brokenJob).contains("sandbox: exited with code 1\n"), logs.get(brokenJob));
        assertTrue(yamls.get(goodJob).contains("reason: \"AllJobsCompleted\""), yamls.get(goodJob));
        assertTrue(yamls.get(brokenJob).contains("reason: \"FailedJobs\""), yamls.get(brokenJob));

        // the component's line about the job names it in the MDC, for log pipelines to select by
        // (created, or adopted when the app already made it for an earlier test of the same app)
        List<Map<String, String>> created =
                new ArrayList<>(LogCapture.mdcOfLinesContaining("Created TrainJob default/" + goodJob + " "));
        created.addAll(LogCapture.mdcOfLinesContaining("Adopted existing TrainJob default/" + goodJob + " "));
        assertEquals(1, created.size(), "one line telling of the job's creation or adoption");
        assertEquals(goodJob, created.get(0).get("CamelKubeflowTrainerJobName"));
        assertEquals("default", created.get(0).get("CamelKubeflowTrainerNamespace"));

        TrainJob job = client.resources(TrainJob.class)
                .inNamespace("default")
                .withName(goodJob)
                .get();
        assertEquals("torch-distributed", job.getSpec().runtimeRef().name());
        assertEquals(
                List.of("torchrun", "/opt/camel-kubeflow-trainer/train.py"),
                job.getSpec().trainer().command());
        assertTrue(goodJob.startsWith("inbox-"), goodJob);
        assertEquals(
                good,
                job.getSpec()
                        .runtimePatches()
                        .get(0)
                        .trainingRuntimeSpec()
                        .template()
                        .spec()
                        .replicatedJobs()
                        .get(0)
                        .template()
                        .spec()
                        .template()
                        .metadata()
                        .annotations()
                        .get("camelkubeflow.io/script"));

        // a script that can never train is parked; the trained ones are done
        awaitFile(inbox.resolve(".failed/empty.py"));
        awaitFile(inbox.resolve(".failed/too-big.py"));
        assertTrue(
                client.resources(TrainJob.class).inAnyNamespace().list().getItems().stream()
                        .noneMatch(j -> String.valueOf(
                                        j.getMetadata().getAnnotations().get("camelkubeflow.io/idempotency-key"))
                                .contains("too-big.py")),
                "a script the policy refuses made a TrainJob");
        assertTrue(Files.exists(inbox.resolve(".done/mnist.py")) && Files.exists(inbox.resolve(".done/broken.py")));

        // the completion route chained an event for each ended job
        String ready = awaitFile(completions().resolve(goodJob + ".json"));
        assertTrue(ready.contains("\"event\":\"model-ready\""), ready);
        Contracts.assertHolds(Contracts.COMPLETION, ready);
        String failed = awaitFile(completions().resolve(brokenJob + ".json"));
        assertTrue(failed.contains("\"event\":\"training-failed\""), failed);
        Contracts.assertHolds(Contracts.COMPLETION, failed);
    }

    @Test
    // after the scripts' test, which counts the outbox's files
    @Order(2)
    void aDroppedProjectArchiveOrFolderRunsAsAWorkspaceAndAHostileOneIsParked() throws Exception {
        ByteArrayOutputStream project = new ByteArrayOutputStream();
        try (ZipOutputStream zip = new ZipOutputStream(project)) {
            for (String[] file : new String[][] {
                {"kubeflow-trainer.yaml", "pythonFile: src/main.py\nargs: [\"--from\", \"inbox\"]\n"},
                {"src/main.py", "import sys\nfrom helpers import greeting\nprint(greeting(), sys.argv[1:])\n"},
                {"src/helpers.py", "def greeting():\n    return 'inbox project'\n"}
            }) {
                zip.putNextEntry(new ZipEntry(file[0]));
                zip.write(file[1].getBytes(StandardCharsets.UTF_8));
                zip.closeEntry();
            }
        }
        ByteArrayOutputStream hostile = new ByteArrayOutputStream();
        try (ZipOutputStream zip = new ZipOutputStream(hostile)) {
            zip.putNextEntry(new ZipEntry("../outside.py"));
            zip.closeEntry();
        }
        dropBytes("project.zip", project.toByteArray());
        dropBytes("hostile.zip", hostile.toByteArray());
        // a folder, made elsewhere and moved in whole
        Path folder = Files.createTempDirectory(inbox.getParent(), "made-elsewhere");
        Files.writeString(
                folder.resolve("train.py"),
                "import os\nprint('folder project in', os.path.basename(os.getcwd())[:7])\n");
        Files.move(folder, inbox.resolve("my-project"));

        String log = awaitOutboxContaining("inbox project ['--from', 'inbox']");
        assertTrue(log.contains("workspace: sha256 "), log);
        String folderLog = awaitOutboxContaining("folder project in ");
        assertTrue(folderLog.contains("workspace: sha256 "), folderLog);
        for (Path moved : List.of(
                inbox.resolve(".done/project.zip"),
                inbox.resolve(".failed/hostile.zip"),
                inbox.resolve(".done/my-project"))) {
            Instant deadline = Instant.now().plus(Duration.ofSeconds(30));
            while (!Files.exists(moved) && Instant.now().isBefore(deadline)) {
                Thread.sleep(100);
            }
            assertTrue(Files.exists(moved), moved + " is not there");
        }
        assertTrue(
                client.resources(TrainJob.class).inAnyNamespace().list().getItems().stream()
                        .noneMatch(j -> String.valueOf(
                                        j.getMetadata().getAnnotations().get("camelkubeflow.io/idempotency-key"))
                                .contains("hostile.zip")),
                "a hostile archive made a TrainJob");
    }

    private void dropBytes(String name, byte[] content) throws Exception {
        Path part = inbox.resolve(name + ".part");
        Files.write(part, content);
        Files.move(part, inbox.resolve(name));
    }

    /** The outbox log that contains the text, once one does. */
    private String awaitOutboxContaining(String text) throws Exception {
        Instant deadline = Instant.now().plus(Duration.ofSeconds(60));
        while (Instant.now().isBefore(deadline)) {
            if (Files.isDirectory(outbox)) {
                try (Stream<Path> files = Files.list(outbox)) {
                    Optional<String> found = files.filter(f -> f.toString().endsWith(".log"))
                            .map(InboxRouteTest::read)
                            .filter(content -> content.contains(text))
                            .findFirst();
                    if (found.isPresent()) {
                        return found.get();
                    }
                }
            }
            Thread.sleep(200);
        }
        throw new AssertionError("no outbox log contains [" + text + "]");
    }

    @ConfigProperty(name = "trainer.completion.uri")
    String completionUri;

    private Path completions() {
        return Path.of(completionUri.substring("file:".length(), completionUri.indexOf('?')));
    }

    private static String awaitFile(Path file) throws Exception {
        Instant deadline = Instant.now().plus(Duration.ofSeconds(30));
        while (!Files.exists(file) && Instant.now().isBefore(deadline)) {
            Thread.sleep(100);
        }
        return Files.readString(file);
    }

    private void drop(String name, String script) throws Exception {
        Path part = inbox.resolve(name + ".part");
        Files.writeString(part, script);
        // renamed into place so the consumer never reads a half-written file
        Files.move(part, inbox.resolve(name));
    }

    private static String jobWhoseLogContains(Map<String, String> logs, String text) {
        List<String> jobs = logs.entrySet().stream()
                .filter(e -> e.getValue().contains(text))
                .map(Map.Entry::getKey)
                .toList();
        assertEquals(1, jobs.size(), "logs containing [" + text + "]: " + logs);
        return jobs.get(0);
    }

    /** job name -> content of the outbox files with that suffix, once there are {@code count} of them. */
    private Map<String, String> awaitOutbox(String suffix, int count) throws Exception {
        Instant deadline = Instant.now().plus(Duration.ofSeconds(60));
        while (Instant.now().isBefore(deadline)) {
            if (Files.isDirectory(outbox)) {
                try (Stream<Path> files = Files.list(outbox)) {
                    List<Path> found =
                            files.filter(f -> f.toString().endsWith(suffix)).toList();
                    if (found.size() >= count) {
                        return found.stream()
                                .collect(Collectors.toMap(
                                        f -> f.getFileName().toString().replace(suffix, ""), InboxRouteTest::read));
                    }
                }
            }
            Thread.sleep(100);
        }
        throw new AssertionError("the outbox never held " + count + " " + suffix + " files");
    }

    private static String read(Path file) {
        try {
            return Files.readString(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
