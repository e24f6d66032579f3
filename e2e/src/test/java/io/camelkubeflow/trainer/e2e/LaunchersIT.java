package io.camelkubeflow.trainer.e2e;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import io.camelkubeflow.trainer.api.TrainJob;
import io.camelkubeflow.trainer.testing.BoundedProcess;
import io.camelkubeflow.trainer.testing.Eventually;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.batch.v1.JobTemplateSpec;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.camel.Exchange;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

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
        cluster.deriveRuntime("torch-distributed", "torch-no-retries", true, RealCluster.backoffLimit(0));
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
        String output = runToCompletion(
                "runtime=torch-distributed&numNodes=2&command=python3 -c \"import os;"
                        + " print('command rank', os.environ['RANK'], 'of', os.environ['WORLD_SIZE'])\"",
                null);
        assertTrue(output.contains("command rank 0 of 2"), output);
        assertTrue(output.contains("command rank 1 of 2"), output);
    }

    @Test
    @Timeout(180)
    void aPythonFileOfTheImageRunsUnderTorchrunWithItsArguments() {
        String output = runToCompletion(
                "runtime=torch-distributed&numNodes=2&pythonFile=" + image.resolve("train.py") + "&args=--epochs 3",
                null);
        assertTrue(output.contains("file rank 0 of 2 args ['--epochs', '3']"), output);
        assertTrue(output.contains("file rank 1 of 2 args ['--epochs', '3']"), output);
    }

    @Test
    @Timeout(180)
    void anInlineScriptReachesThePodsThroughTheDownwardApi() throws IOException {
        Path script = image.resolve("inline.py");
        Files.writeString(script, "import os\nprint('inline script on', os.environ['PET_NNODES'], 'nodes')\n");
        // four nodes: the Job controller makes the pods in batches (1, 2, 1), so some start after others end
        String output = runToCompletion("runtime=torch-distributed&numNodes=4&script=file:" + script, null);
        assertEquals(
                4,
                output.lines()
                        .filter(line -> line.contains("inline script on 4 nodes"))
                        .count(),
                output);
    }

    @Test
    @Timeout(180)
    void aWorkspaceFolderIsUnpackedAndRunOnEveryNode() {
        String output = runToCompletion(
                "runtime=torch-distributed&numNodes=2&workspace=" + project + "&pythonFile=train.py", null);
        assertTrue(output.contains("workspace model lr=0.25 rank 0"), output);
        assertTrue(output.contains("workspace model lr=0.25 rank 1"), output);
    }

    @Test
    @Timeout(180)
    void aWorkspaceArchiveRuns(@TempDir Path archives) throws Exception {
        Path archive = archives.resolve("project.tar.gz");
        BoundedProcess.Result tar = BoundedProcess.run(
                Duration.ofSeconds(60), List.of("tar", "-czf", archive.toString(), "-C", project.toString(), "."));
        assertEquals(0, tar.exitCode(), tar.printed());
        String output =
                runToCompletion("runtime=torch-distributed&workspace=" + archive + "&pythonFile=train.py", null);
        assertTrue(output.contains("workspace model lr=0.25 rank 0"), output);
    }

    @Test
    @Timeout(180)
    void aWorkspaceFromGitRunsAtItsTag(@TempDir Path repository) throws Exception {
        copyTree(project, repository);
        for (List<String> git : List.of(
                List.of("init", "-q"),
                List.of("add", "."),
                List.of("-c", "user.name=e2e", "-c", "user.email=e2e@example.invalid", "commit", "-qm", "train"),
                List.of("tag", "v1"))) {
            List<String> command = new ArrayList<>(List.of("git", "-C", repository.toString()));
            command.addAll(git);
            BoundedProcess.Result run = BoundedProcess.run(Duration.ofSeconds(60), command);
            assertEquals(0, run.exitCode(), String.join(" ", command) + ": " + run.printed());
        }
        String output = runToCompletion(
                "runtime=torch-distributed&workspace=RAW(git+file://" + repository + "@v1)" + "&pythonFile=train.py",
                null);
        assertTrue(output.contains("workspace model lr=0.25 rank 0"), output);
    }

    @Test
    @Timeout(180)
    void theCodeOnEveryNodeSeesWhereToWriteAndTheAnswersCarryItWithTheCodesDigest() {
        Exchange trained = cluster.request(
                "kubeflow-trainer:train?runtime=torch-distributed&numNodes=2"
                        + "&outputUri=s3://models/fraud/e2e/&command=python3 -c \"import os;"
                        + " print('rank', os.environ['RANK'], 'writes to', os.environ['OUTPUT_URI'])\"",
                null);
        Exchange logs = cluster.then("kubeflow-trainer:logs?follow=true&logStep=all", trained);
        Exchange done = cluster.then("kubeflow-trainer:wait?waitFor=Complete&waitTimeout=120s", trained);
        String output = logs.getMessage().getBody(String.class);
        assertTrue(output.contains("rank 0 writes to s3://models/fraud/e2e/"), output);
        assertTrue(output.contains("rank 1 writes to s3://models/fraud/e2e/"), output);
        assertEquals("s3://models/fraud/e2e/", done.getMessage().getHeader("CamelKubeflowTrainerOutputUri"));
        String digest = done.getMessage().getHeader("CamelKubeflowTrainerCodeDigest", String.class);
        assertTrue(digest != null && digest.matches("sha256:[0-9a-f]{64}"), digest);
        assertEquals(digest, trained.getMessage().getHeader("CamelKubeflowTrainerCodeDigest"));
    }

    @Test
    @Timeout(180)
    void aFailingCommandEndsFailedWithTheContainerThatExited() {
        Exchange trained = cluster.request(
                "kubeflow-trainer:train?runtime=torch-no-retries&runtimeKind=TrainingRuntime"
                        + "&command=python3 -c \"import sys; print('about to fail'); sys.exit(3)\"",
                null);
        Exchange done = cluster.template.send(
                "kubeflow-trainer:wait?waitFor=Complete&waitTimeout=120s" + "&throwOnFailure=false", trained.copy());
        assertEquals(
                "Failed",
                done.getMessage().getHeader("CamelKubeflowTrainerStatus"),
                () -> String.valueOf(done.getMessage().getHeaders()));
        TrainJob job = done.getMessage().getBody(TrainJob.class);
        assertTrue(
                String.valueOf(done.getMessage().getHeader("CamelKubeflowTrainerPodFailure"))
                        .contains("exited"),
                () -> String.valueOf(done.getMessage().getHeaders()) + " " + job);
    }

    @Test
    @Timeout(180)
    void aPythonFileRunsWithPlainPythonOnJaxWithTheProcessIdsTheTrainerGives() throws IOException {
        Path file = image.resolve("jax_train.py");
        Files.writeString(
                file,
                "import os\nprint('jax process', os.environ['JAX_PROCESS_ID'], 'of',"
                        + " os.environ['JAX_NUM_PROCESSES'])\n");
        String output = runToCompletion("runtime=jax-distributed&numNodes=2&pythonFile=" + file, null);
        assertTrue(output.contains("jax process 0 of 2"), output);
        assertTrue(output.contains("jax process 1 of 2"), output);
    }

    @Test
    @Timeout(180)
    void aCommandRunsWithPlainPythonOnXgboostWithTheTrackerTheTrainerGives() {
        String output = runToCompletion(
                "runtime=xgboost-distributed&numNodes=2&command=python3 -c \"import os;"
                        + " print('xgboost task', os.environ['DMLC_TASK_ID'], 'of', os.environ['DMLC_NUM_WORKER'])\"",
                null);
        assertTrue(output.contains("xgboost task 0 of 2"), output);
        assertTrue(output.contains("xgboost task 1 of 2"), output);
    }

    /**
     * Under MPI the real Trainer runs the component's command in the launcher job, with the hostfile it makes and the
     * workspace the component's runtime patch mounts; what mpirun then does across the node pods is
     * {@link DistributedTrainingIT}'s.
     */
    @Test
    @Timeout(120)
    void anMpiJobIsAdmittedAndRenderedWithThePayloadInTheLauncherAndTheWorkspaceMountedAndTheOutputNamed() {
        Exchange trained = cluster.request(
                "kubeflow-trainer:train?runtime=deepspeed-distributed&workspace=" + project
                        + "&pythonFile=train.py&outputUri=s3://models/ds/",
                null);
        String job = trained.getMessage().getHeader("CamelKubeflowTrainerJobName", String.class);
        ResourceDefinitionContext jobSets = new ResourceDefinitionContext.Builder()
                .withGroup("jobset.x-k8s.io")
                .withVersion("v1alpha2")
                .withPlural("jobsets")
                .withNamespaced(true)
                .build();
        GenericKubernetesResource[] jobSet = new GenericKubernetesResource[1];
        assertDoesNotThrow(() -> Eventually.await(
                Duration.ofSeconds(60),
                () -> (jobSet[0] = cluster.admin
                                .genericKubernetesResources(jobSets)
                                .inNamespace(cluster.namespace)
                                .withName(job)
                                .get())
                        != null,
                () -> "no JobSet for " + job));
        JobSet rendered = Serialization.unmarshal(Serialization.asJson(jobSet[0]), JobSet.class);
        PodSpec launcher = rendered.podSpec("launcher");
        List<String> command = launcher.getContainers().get(0).getCommand();
        // the trainer's variable goes to every rank: a rank on a node pod has only what mpirun exports
        assertEquals(
                List.of("mpirun", "--hostfile", "/etc/mpi/hostfile", "-x", "OUTPUT_URI", "python3", "-c"),
                command.subList(0, 7));
        assertEquals(List.of("--", "python", "train.py"), command.subList(command.size() - 3, command.size()));
        assertTrue(
                launcher.getContainers().get(0).getVolumeMounts().stream()
                        .anyMatch(m -> m.getMountPath().equals("/opt/camel-kubeflow-trainer/archive")),
                launcher.toString());
        assertTrue(
                launcher.getVolumes().stream().anyMatch(v -> v.getName().equals("mpi-hostfile")), launcher.toString());
        // the code runs in the launcher: it is told where to write there
        assertTrue(
                launcher.getContainers().get(0).getEnv().stream()
                        .anyMatch(
                                env -> env.getName().equals("OUTPUT_URI") && "s3://models/ds/".equals(env.getValue())),
                launcher.toString());
        assertTrue(
                cluster.admin
                                .configMaps()
                                .inNamespace(cluster.namespace)
                                .withName(job + "-mpi-hostfile")
                                .get()
                        != null,
                "the Trainer's hostfile");
    }

    /** The part of a JobSet this suite reads: each replicated job's pod spec. */
    @JsonIgnoreProperties(ignoreUnknown = true)
    record JobSet(Spec spec) {
        @JsonIgnoreProperties(ignoreUnknown = true)
        record Spec(List<ReplicatedJob> replicatedJobs) {}

        @JsonIgnoreProperties(ignoreUnknown = true)
        record ReplicatedJob(String name, JobTemplateSpec template) {}

        PodSpec podSpec(String replicatedJob) {
            return spec.replicatedJobs().stream()
                    .filter(r -> r.name().equals(replicatedJob))
                    .findFirst()
                    .orElseThrow()
                    .template()
                    .getSpec()
                    .getTemplate()
                    .getSpec();
        }
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
