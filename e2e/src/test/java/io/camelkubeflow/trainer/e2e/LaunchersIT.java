package io.camelkubeflow.trainer.e2e;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import io.camelkubeflow.trainer.api.TrainJob;
import org.apache.camel.Exchange;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every payload the component builds, on the launcher the runtime chooses, admitted by the Trainer's real webhooks,
 * rendered by the real Trainer controller into a JobSet, its Jobs and pods made by the real JobSet and Job
 * controllers, scheduled by the real scheduler and run by the node agent: the output comes back through the API
 * server's pods/log proxy, the outcome through the status the real controllers write.
 */
class LaunchersIT {
    private static RealCluster cluster;
    /** Stands for the image: the node agent runs containers on this machine, so the image's files are its files. */
    @TempDir
    static Path image;
    @TempDir
    static Path project;

    @BeforeAll
    static void start() throws Exception {
        cluster = RealCluster.start(LaunchersIT.class);
        Files.writeString(image.resolve("train.py"), """
                import os, sys
                print("file rank", os.environ["RANK"], "of", os.environ["WORLD_SIZE"], "args", sys.argv[1:])
                """);
        Files.writeString(project.resolve("train.py"), """
                import os
                from trainer_pkg.model import describe
                print(describe(open("config.txt").read().strip()), "rank", os.environ["RANK"])
                """);
        Files.createDirectories(project.resolve("trainer_pkg"));
        Files.writeString(project.resolve("trainer_pkg/__init__.py"), "");
        Files.writeString(project.resolve("trainer_pkg/model.py"), """
                def describe(setting):
                    return "workspace model " + setting
                """);
        Files.writeString(project.resolve("config.txt"), "lr=0.25\n");
    }

    @AfterAll
    static void stop() {
        cluster.close();
    }

    /** Trains, then follows every step's logs to the end and waits for Complete: the output of all nodes. */
    private static String runToCompletion(String options, Object body) {
        Exchange trained = cluster.request("kubeflow-trainer:train?" + options, body);
        Exchange logs = cluster.then("kubeflow-trainer:logs?follow=true&logStep=all", trained);
        Exchange done = cluster.then("kubeflow-trainer:wait?waitFor=Complete&waitTimeout=120s", trained);
        assertEquals("Complete", done.getMessage().getHeader("CamelKubeflowTrainerStatus"));
        return logs.getMessage().getBody(String.class);
    }

    @Test
    @Timeout(180)
    void aCommandRunsUnderTorchrunOnEveryNode() {
        String output = runToCompletion("runtime=torch-distributed&numNodes=2&command=python3 -c \"import os;"
                + " print('command rank', os.environ['RANK'], 'of', os.environ['WORLD_SIZE'])\"", null);
        assertTrue(output.contains("command rank 0 of 2"), output);
        assertTrue(output.contains("command rank 1 of 2"), output);
    }

    @Test
    @Timeout(180)
    void aPythonFileOfTheImageRunsUnderTorchrunWithItsArguments() {
        String output = runToCompletion("runtime=torch-distributed&numNodes=2&pythonFile=" + image.resolve("train.py")
                + "&args=--epochs 3", null);
        assertTrue(output.contains("file rank 0 of 2 args ['--epochs', '3']"), output);
        assertTrue(output.contains("file rank 1 of 2 args ['--epochs', '3']"), output);
    }

    @Test
    @Timeout(180)
    void anInlineScriptReachesThePodsThroughTheDownwardApi() throws IOException {
        Path script = image.resolve("inline.py");
        Files.writeString(script, "import os\nprint('inline script on', os.environ['PET_NNODES'], 'nodes')\n");
        String output = runToCompletion("runtime=torch-distributed&numNodes=2&script=file:" + script, null);
        assertEquals(2, output.lines().filter(line -> line.contains("inline script on 2 nodes")).count(), output);
    }

    @Test
    @Timeout(180)
    void aWorkspaceFolderIsUnpackedAndRunOnEveryNode() {
        String output = runToCompletion("runtime=torch-distributed&numNodes=2&workspace=" + project
                + "&pythonFile=train.py", null);
        assertTrue(output.contains("workspace model lr=0.25 rank 0"), output);
        assertTrue(output.contains("workspace model lr=0.25 rank 1"), output);
    }

    @Test
    @Timeout(180)
    void aWorkspaceArchiveRuns(@TempDir Path archives) throws Exception {
        Path archive = archives.resolve("project.tar.gz");
        Process tar = new ProcessBuilder("tar", "-czf", archive.toString(), "-C", project.toString(), ".")
                .inheritIO().start();
        assertEquals(0, tar.waitFor());
        String output = runToCompletion("runtime=torch-distributed&workspace=" + archive + "&pythonFile=train.py",
                null);
        assertTrue(output.contains("workspace model lr=0.25 rank 0"), output);
    }

    @Test
    @Timeout(180)
    void aWorkspaceFromGitRunsAtItsTag(@TempDir Path repository) throws Exception {
        copyTree(project, repository);
        for (List<String> git : List.of(List.of("init", "-q"), List.of("add", "."),
                List.of("-c", "user.name=e2e", "-c", "user.email=e2e@example.invalid", "commit", "-qm", "train"),
                List.of("tag", "v1"))) {
            List<String> command = new java.util.ArrayList<>(List.of("git", "-C", repository.toString()));
            command.addAll(git);
            assertEquals(0, new ProcessBuilder(command).inheritIO().start().waitFor(), String.join(" ", command));
        }
        String output = runToCompletion("runtime=torch-distributed&workspace=RAW(git+file://" + repository + "@v1)"
                + "&pythonFile=train.py", null);
        assertTrue(output.contains("workspace model lr=0.25 rank 0"), output);
    }

    @Test
    @Timeout(180)
    void aFailingCommandEndsFailedWithTheContainerThatExited() {
        Exchange trained = cluster.request("kubeflow-trainer:train?runtime=torch-distributed&command=python3 -c"
                + " \"import sys; print('about to fail'); sys.exit(3)\"", null);
        Exchange done = cluster.template.send("kubeflow-trainer:wait?waitFor=Complete&waitTimeout=120s"
                + "&throwOnFailure=false", trained.copy());
        assertEquals("Failed", done.getMessage().getHeader("CamelKubeflowTrainerStatus"),
                () -> String.valueOf(done.getMessage().getHeaders()));
        TrainJob job = done.getMessage().getBody(TrainJob.class);
        assertTrue(String.valueOf(done.getMessage().getHeader("CamelKubeflowTrainerPodFailure")).contains("exited"),
                () -> String.valueOf(done.getMessage().getHeaders()) + " " + job);
    }

    private static void copyTree(Path from, Path to) throws IOException {
        try (var paths = Files.walk(from)) {
            for (Path path : (Iterable<Path>) paths::iterator) {
                Path target = to.resolve(from.relativize(path).toString());
                if (Files.isDirectory(path)) {
                    Files.createDirectories(target);
                } else {
                    Files.copy(path, target);
                }
            }
        }
    }
}
