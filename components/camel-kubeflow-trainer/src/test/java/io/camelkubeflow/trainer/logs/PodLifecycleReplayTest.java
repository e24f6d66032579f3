package io.camelkubeflow.trainer.logs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.camelkubeflow.trainer.api.JobSetLabels;
import io.camelkubeflow.trainer.api.TrainJob;
import io.camelkubeflow.trainer.api.TrainJobStatus;
import io.camelkubeflow.trainer.testing.Eventually;
import io.camelkubeflow.trainer.watch.WatchTestSupport;
import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.ContainerStatusBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The log reader driven through the pod lifecycles a real cluster produces, one order per test: the sandbox's API
 * server runs no controller, so the test writes each pod, container status, log line and TrainJob condition itself,
 * in the order under test, and waits for what the reader delivered before the next step (never a pause). What a
 * real cluster does that the sandbox's controller never does is here: pods made in batches, a node still Pending when
 * the others end, initializers before any node pod, a container whose end is written before its pod's phase (or never),
 * a failed pod the Job controller replaces (restart policy Never) or deletes at {@code backoffLimit}, JobSet deleting
 * a finished job's pods, an informer fabric8 stops and a watch dropped mid-read.
 */
class PodLifecycleReplayTest extends WatchTestSupport {
    /** A bound against a hang only: each read ends within milliseconds of the step that ends it. */
    private static final long HANG_SECONDS = 30;

    private static final Duration WAIT_LONG = Duration.ofMinutes(10);

    KubernetesClient client;
    ExecutorService executor;

    @BeforeEach
    void startExecutor() {
        client = sandbox.client();
        executor = Executors.newFixedThreadPool(2);
    }

    @AfterEach
    void stopExecutor() {
        executor.shutdownNow();
    }

    @Test
    void aWaitingReadOfAJobThatFailedWithItsPodDeletedFailsAtOnceAsGone() throws Exception {
        // the Job controller deleted the only pod at backoffLimit a second before the TrainJob turned Failed
        job("failed");
        Pod node = pod("failed", "node", 0, "failed-node-0-0-a", "OnFailure");
        running(node);
        log(node, "epoch 1");
        client.pods()
                .inNamespace(namespace)
                .withName(node.getMetadata().getName())
                .delete();
        ended("failed", "Failed");
        for (String step : List.of("trainer", "node-0", "all")) {
            Throwable failure = failure(read("failed", step, false, WAIT_LONG, TrainJobLogs.END_GRACE, new Lines()));
            assertInstanceOf(LogGoneException.class, failure, step);
            assertTrue(
                    failure.getMessage().contains("has ended (Failed) and no pod of step " + step + " is left"),
                    failure.getMessage());
        }
    }

    @Test
    void aFollowEndsWhenTheContainerEndsThoughThePodsPhaseIsNeverWritten() throws Exception {
        job("late-phase");
        Pod node = pod("late-phase", "node", 0, "late-phase-node-0-0-a", "OnFailure");
        running(node);
        Lines lines = new Lines();
        CompletableFuture<List<String>> read =
                read("late-phase", "node-0", true, WAIT_LONG, TrainJobLogs.END_GRACE, lines);
        log(node, "epoch 1");
        lines.await(1);
        // the kubelet wrote the container's end; the phase write was lost (the job does not end either)
        containerEnded(node, 0, null);
        assertEquals(List.of("node-0"), read.get(HANG_SECONDS, TimeUnit.SECONDS));
        assertEquals(List.of("[node-0] epoch 1"), lines.all());
    }

    @Test
    void aContainerThatFailedUnderOnFailureIsFollowedIntoItsRestart() throws Exception {
        job("restarts");
        Pod node = pod("restarts", "node", 0, "restarts-node-0-0-a", "OnFailure");
        running(node);
        Lines lines = new Lines();
        CompletableFuture<List<String>> read =
                read("restarts", "node-0", true, WAIT_LONG, TrainJobLogs.END_GRACE, lines);
        log(node, "attempt 1");
        lines.await(1);
        // exit 1 under OnFailure: the kubelet restarts the container, so its end is not the log's
        containerEnded(node, 1, null);
        sandbox.podLogs().restart(namespace, node.getMetadata().getName());
        containerRunning(node, 1);
        log(node, "attempt 2");
        lines.await(2);
        assertFalse(read.isDone(), "the follow ended at the first attempt's end");
        containerEnded(node, 0, "Succeeded");
        read.get(HANG_SECONDS, TimeUnit.SECONDS);
        assertEquals(List.of("[node-0] attempt 1", "[node-0] attempt 2"), lines.all());
    }

    @Test
    void aFollowWhosePodsEndIsNeverReportedFailsNamingThePodOnceTheJobHasEnded() throws Exception {
        job("lost-status");
        Pod node = pod("lost-status", "node", 0, "lost-status-node-0-0-a", "OnFailure");
        running(node);
        Lines lines = new Lines();
        CompletableFuture<List<String>> read = read("lost-status", "node-0", true, WAIT_LONG, Duration.ZERO, lines);
        log(node, "epoch 1");
        lines.await(1);
        // the container exited (its log stream ends) and no status of it was ever written
        sandbox.podLogs().end(namespace, node.getMetadata().getName());
        assertFalse(read.isDone(), "ended with the pod still running as far as the API server says");
        ended("lost-status", "Complete");
        Throwable failure = failure(read);
        assertInstanceOf(LogIncompleteException.class, failure);
        assertTrue(failure.getMessage().contains("step node-0 (pod lost-status-node-0-0-a)"), failure.getMessage());
        assertEquals(List.of("[node-0] epoch 1"), lines.all());
    }

    @Test
    void aFollowOfAllReadsANodeThatWasStillPendingWhenTheOthersEnded() throws Exception {
        // torchrun without a rendezvous lets node 0 finish first; the Job controller made node 1's pod in a later
        // batch, and the scheduler has not placed it yet
        job("batches");
        Pod node0 = pod("batches", "node", 0, "batches-node-0-0-a", "OnFailure");
        running(node0);
        log(node0, "rank 0 done");
        containerEnded(node0, 0, "Succeeded");
        Lines lines = new Lines();
        CompletableFuture<List<String>> read = read("batches", "all", true, WAIT_LONG, TrainJobLogs.END_GRACE, lines);
        lines.await(1);
        Pod node1 = pod("batches", "node", 1, "batches-node-0-1-b", "OnFailure");
        // node 0 was read to its end while node 1 is Pending: the read goes on, and reads node 1 once it runs
        running(node1);
        log(node1, "rank 1 done");
        lines.await(2);
        containerEnded(node1, 0, "Succeeded");
        ended("batches", "Complete");
        assertEquals(List.of("node-0", "node-1"), read.get(HANG_SECONDS, TimeUnit.SECONDS));
        assertEquals(List.of("[node-0] rank 0 done", "[node-1] rank 1 done"), lines.all());
    }

    @Test
    void aFollowOfAllWaitsThroughTheInitializersForTheNodesAndTheirPodsMadeLater() throws Exception {
        job("initialized");
        Pod dataset =
                pod("initialized", "dataset-initializer", 0, "initialized-dataset-initializer-0-0-a", "OnFailure");
        Lines lines = new Lines();
        CompletableFuture<List<String>> read =
                read("initialized", "all", true, WAIT_LONG, TrainJobLogs.END_GRACE, lines);
        running(dataset);
        log(dataset, "downloading");
        containerEnded(dataset, 0, "Succeeded");
        // JobSet makes the node job once the initializer is done: no node pod exists yet
        Pod node0 = pod("initialized", "node", 0, "initialized-node-0-0-b", "OnFailure");
        assertFalse(read.isDone(), "ended before any node pod was made");
        running(node0);
        log(node0, "training");
        lines.await(1);
        Pod node1 = pod("initialized", "node", 1, "initialized-node-0-1-c", "OnFailure");
        containerEnded(node0, 0, "Succeeded");
        running(node1);
        log(node1, "training too");
        lines.await(2);
        containerEnded(node1, 0, "Succeeded");
        ended("initialized", "Complete");
        assertEquals(List.of("node-0", "node-1"), read.get(HANG_SECONDS, TimeUnit.SECONDS));
        assertEquals(List.of("[node-0] training", "[node-1] training too"), lines.all());
    }

    @Test
    void aFollowOfAllFailsNamingANodeWhosePodNeverStartedBeforeTheJobEnded() throws Exception {
        job("never-started");
        Pod node0 = pod("never-started", "node", 0, "never-started-node-0-0-a", "OnFailure");
        pod("never-started", "node", 1, "never-started-node-0-1-b", "OnFailure");
        running(node0);
        Lines lines = new Lines();
        CompletableFuture<List<String>> read =
                read("never-started", "all", true, WAIT_LONG, TrainJobLogs.END_GRACE, lines);
        log(node0, "rank 0 failed");
        lines.await(1);
        containerEnded(node0, 1, "Failed");
        // JobSet fails the job and deletes its pods, node 1's still Pending
        client.pods()
                .inNamespace(namespace)
                .withLabel(JobSetLabels.JOBSET_NAME, "never-started")
                .delete();
        ended("never-started", "Failed");
        Throwable failure = failure(read);
        assertInstanceOf(LogGoneException.class, failure);
        assertTrue(failure.getMessage().contains("no pod of step node-1 is left"), failure.getMessage());
        assertEquals(List.of("[node-0] rank 0 failed"), lines.all());
    }

    @Test
    void aFollowReadsThePodTheJobControllerMadeInPlaceOfAFailedOne() throws Exception {
        job("replaced");
        Pod first = pod("replaced", "node", 0, "replaced-node-0-0-a", "Never");
        running(first);
        Lines lines = new Lines();
        CompletableFuture<List<String>> read =
                read("replaced", "node-0", true, WAIT_LONG, TrainJobLogs.END_GRACE, lines);
        log(first, "try 1");
        lines.await(1);
        containerEnded(first, 1, "Failed");
        // restart policy Never: the Job controller makes a new pod for index 0 (backoffLimit not reached)
        Pod second = pod("replaced", "node", 0, "replaced-node-0-0-b", "Never");
        running(second);
        log(second, "try 2");
        lines.await(2);
        containerEnded(second, 0, "Succeeded");
        assertEquals(List.of("node-0"), read.get(HANG_SECONDS, TimeUnit.SECONDS));
        assertEquals(List.of("[node-0] try 1", "[node-0] try 2"), lines.all());
    }

    @Test
    void aFollowOfAFailedPodEndsWhenTheJobFailsWithoutAReplacement() throws Exception {
        job("no-retry");
        Pod node = pod("no-retry", "node", 0, "no-retry-node-0-0-a", "Never");
        running(node);
        Lines lines = new Lines();
        CompletableFuture<List<String>> read =
                read("no-retry", "node-0", true, WAIT_LONG, TrainJobLogs.END_GRACE, lines);
        log(node, "exit 3");
        lines.await(1);
        containerEnded(node, 3, "Failed");
        ended("no-retry", "Failed");
        assertEquals(List.of("node-0"), read.get(HANG_SECONDS, TimeUnit.SECONDS));
    }

    @Test
    void aFollowOfAllEndsWhenJobSetDeletesTheRunningNodesOfAFinishedJob() throws Exception {
        // MPI: the launcher's success ends the job, and JobSet deletes the node pods (sshd) still running
        job("mpi");
        Pod node0 = pod("mpi", "node", 0, "mpi-node-0-0-a", "OnFailure");
        Pod launcher = pod("mpi", "launcher", 0, "mpi-launcher-0-0-b", "OnFailure");
        running(node0);
        running(launcher);
        Lines lines = new Lines();
        CompletableFuture<List<String>> read = read("mpi", "all", true, WAIT_LONG, TrainJobLogs.END_GRACE, lines);
        log(node0, "Server listening on 0.0.0.0 port 2222.");
        log(launcher, "world size 2");
        lines.await(2);
        containerEnded(launcher, 0, "Succeeded");
        ended("mpi", "Complete");
        sandbox.podLogs().end(namespace, node0.getMetadata().getName());
        client.pods()
                .inNamespace(namespace)
                .withName(node0.getMetadata().getName())
                .delete();
        assertEquals(
                List.of("launcher", "node-0"),
                read.get(HANG_SECONDS, TimeUnit.SECONDS).stream().sorted().toList());
    }

    @Test
    void aFollowOfAllGoesOnThroughAStoppedInformerAndADroppedWatch() throws Exception {
        job("faults");
        Pod node0 = pod("faults", "node", 0, "faults-node-0-0-a", "OnFailure");
        running(node0);
        Lines lines = new Lines();
        CompletableFuture<List<String>> read = read("faults", "all", true, WAIT_LONG, TrainJobLogs.END_GRACE, lines);
        log(node0, "before");
        lines.await(1);
        stopAsFabric8Does(() -> informers.trainJobPods(namespace));
        stopAsFabric8Does(() -> informers.trainJobs(namespace, null));
        Pod node1 = pod("faults", "node", 1, "faults-node-0-1-b", "OnFailure");
        running(node1);
        log(node1, "after the informers were replaced");
        lines.await(2);
        sandbox.dropWatches();
        containerEnded(node0, 0, "Succeeded");
        containerEnded(node1, 0, "Succeeded");
        ended("faults", "Complete");
        assertEquals(List.of("node-0", "node-1"), read.get(HANG_SECONDS, TimeUnit.SECONDS));
    }

    @Test
    void aTrainerReadOfAnMpiJobReadsTheLauncherThoughTheNodesStartFirst() throws Exception {
        // the launcher job dependsOn the nodes being Ready: its pod is made only once sshd runs on them
        job("mpi-trainer", "{camelkubeflow.io/launcher: mpirun}");
        Pod node0 = pod("mpi-trainer", "node", 0, "mpi-trainer-node-0-0-a", "OnFailure");
        running(node0);
        log(node0, "Server listening on 0.0.0.0 port 2222.");
        Lines lines = new Lines();
        CompletableFuture<List<String>> read =
                read("mpi-trainer", "trainer", true, WAIT_LONG, TrainJobLogs.END_GRACE, lines);
        Pod launcher = pod("mpi-trainer", "launcher", 0, "mpi-trainer-launcher-0-0-b", "OnFailure");
        running(launcher);
        log(launcher, "world size 2");
        containerEnded(launcher, 0, "Succeeded");
        assertEquals(List.of("launcher"), read.get(HANG_SECONDS, TimeUnit.SECONDS));
        assertEquals(List.of("world size 2"), lines.texts());
    }

    @Test
    void aFollowOfAllEndsWhenItsJobWasDeletedBeforeTheReadThoughItsPodsAreLeft() throws Exception {
        // deleted with --cascade=orphan, or a background delete whose pods are not gone yet: no delete event will come
        job("orphaned");
        Pod node = pod("orphaned", "node", 0, "orphaned-node-0-0-a", "OnFailure");
        running(node);
        log(node, "done");
        containerEnded(node, 0, "Succeeded");
        client.resources(TrainJob.class)
                .inNamespace(namespace)
                .withName("orphaned")
                .delete();
        Lines lines = new Lines();
        assertEquals(
                List.of("node-0"),
                read("orphaned", "all", true, WAIT_LONG, TrainJobLogs.END_GRACE, lines)
                        .get(HANG_SECONDS, TimeUnit.SECONDS));
        assertEquals(List.of("[node-0] done"), lines.all());
    }

    @Test
    void aNodePendingLongerThanTheStartTimeoutDoesNotFailAFollowOfAllWhileTheJobRuns() throws Exception {
        // the start timeout bounds the wait for the read's first pod; a node made later waits as long as the job runs
        // (a GPU node the autoscaler brings up after minutes): a start timeout of 1 ms, long over when node 1 starts
        job("slow-node");
        Pod node0 = pod("slow-node", "node", 0, "slow-node-node-0-0-a", "OnFailure");
        running(node0);
        Lines lines = new Lines();
        CompletableFuture<List<String>> read =
                read("slow-node", "all", true, Duration.ofMillis(1), TrainJobLogs.END_GRACE, lines);
        log(node0, "rank 0");
        lines.await(1);
        Pod node1 = pod("slow-node", "node", 1, "slow-node-node-0-1-b", "OnFailure");
        log(node0, "rank 0 still training");
        lines.await(2);
        running(node1);
        log(node1, "rank 1");
        lines.await(3);
        containerEnded(node0, 0, "Succeeded");
        containerEnded(node1, 0, "Succeeded");
        ended("slow-node", "Complete");
        assertEquals(List.of("node-0", "node-1"), read.get(HANG_SECONDS, TimeUnit.SECONDS));
    }

    @Test
    void aStreamStillOpenWithoutALineAfterTheJobEndedFailsNamingItsPodAfterTheGrace() throws Exception {
        // a pod stuck terminating (its node partitioned): the log stream stays open and says nothing
        job("stuck");
        Pod node = pod("stuck", "node", 0, "stuck-node-0-0-a", "OnFailure");
        running(node);
        Lines lines = new Lines();
        CompletableFuture<List<String>> read = read("stuck", "node-0", true, WAIT_LONG, Duration.ZERO, lines);
        log(node, "epoch 1");
        lines.await(1);
        ended("stuck", "Failed");
        Throwable failure = failure(read);
        assertInstanceOf(LogIncompleteException.class, failure);
        assertTrue(failure.getMessage().contains("step node-0 (pod stuck-node-0-0-a)"), failure.getMessage());
    }

    // ---- the cluster, step by step

    private void job(String name) {
        job(name, "{}");
    }

    private void job(String name, String annotations) {
        client.resources(TrainJob.class)
                .inNamespace(namespace)
                .resource(Serialization.unmarshal("""
                apiVersion: trainer.kubeflow.org/v1alpha1
                kind: TrainJob
                metadata: {name: %s, annotations: %s}
                spec: {runtimeRef: {name: torch-distributed}}
                """.formatted(name, annotations), TrainJob.class))
                .create();
    }

    /** The Trainer's terminal condition on the job ({@code Complete} or {@code Failed}). */
    private void ended(String name, String type) {
        TrainJob job = client.resources(TrainJob.class)
                .inNamespace(namespace)
                .withName(name)
                .get();
        job.setStatus(Serialization.unmarshal(
                "conditions: [{type: %s, status: \"True\", reason: Replayed,".formatted(type)
                        + " message: replayed, lastTransitionTime: \"" + Instant.now() + "\"}]",
                TrainJobStatus.class));
        client.resources(TrainJob.class).inNamespace(namespace).resource(job).updateStatus();
    }

    /** A pod as the Job controller makes it for a replicated job's index: Pending, its container not started. */
    private Pod pod(String job, String replicatedJob, int index, String name, String restartPolicy) {
        String container = "node".equals(replicatedJob) || "launcher".equals(replicatedJob) ? "node" : replicatedJob;
        return client.pods()
                .inNamespace(namespace)
                .resource(new PodBuilder()
                        .withNewMetadata()
                        .withName(name)
                        .withCreationTimestamp(Instant.now().toString())
                        .addToLabels(JobSetLabels.JOBSET_NAME, job)
                        .addToLabels(JobSetLabels.REPLICATED_JOB, replicatedJob)
                        .addToLabels(JobSetLabels.COMPLETION_INDEX, Integer.toString(index))
                        .endMetadata()
                        .withNewSpec()
                        .withRestartPolicy(restartPolicy)
                        .addNewContainer()
                        .withName(container)
                        .withImage("example")
                        .endContainer()
                        .endSpec()
                        .withNewStatus()
                        .withPhase("Pending")
                        .endStatus()
                        .build())
                .create();
    }

    private void running(Pod pod) {
        sandbox.podLogs().create(namespace, pod.getMetadata().getName());
        containerRunning(pod, 0);
    }

    private void containerRunning(Pod pod, int restarts) {
        status(
                pod,
                "Running",
                new ContainerStatusBuilder()
                        .withName(container(pod))
                        .withRestartCount(restarts)
                        .withNewState()
                        .withNewRunning()
                        .withStartedAt(Instant.now().toString())
                        .endRunning()
                        .endState()
                        .build());
    }

    /**
     * The container exited with {@code exitCode}: its log ends, and the kubelet writes its terminated state, with the
     * pod's phase ({@code phase} null: that write is late or lost).
     */
    private void containerEnded(Pod pod, int exitCode, String phase) {
        sandbox.podLogs().end(namespace, pod.getMetadata().getName());
        Pod now = client.pods()
                .inNamespace(namespace)
                .withName(pod.getMetadata().getName())
                .get();
        status(
                pod,
                phase == null ? now.getStatus().getPhase() : phase,
                new ContainerStatusBuilder()
                        .withName(container(pod))
                        .withRestartCount(
                                now.getStatus().getContainerStatuses().get(0).getRestartCount())
                        .withNewState()
                        .withNewTerminated()
                        .withExitCode(exitCode)
                        .endTerminated()
                        .endState()
                        .build());
    }

    private void status(Pod pod, String phase, ContainerStatus container) {
        Pod now = client.pods()
                .inNamespace(namespace)
                .withName(pod.getMetadata().getName())
                .get();
        now.getStatus().setPhase(phase);
        now.getStatus().setContainerStatuses(List.of(container));
        client.pods().inNamespace(namespace).resource(now).updateStatus();
    }

    private void log(Pod pod, String line) {
        sandbox.podLogs().append(namespace, pod.getMetadata().getName(), line);
    }

    private static String container(Pod pod) {
        return pod.getSpec().getContainers().get(0).getName();
    }

    private CompletableFuture<List<String>> read(
            String job, String step, boolean follow, Duration startTimeout, Duration endGrace, Lines lines) {
        return new TrainJobLogs(client, informers, executor, endGrace)
                .read(
                        new TrainJobLogs.Request(
                                namespace, job, LogStep.parse("step", step), follow, null, null, startTimeout),
                        lines);
    }

    private static Throwable failure(CompletableFuture<?> read) throws Exception {
        try {
            read.get(HANG_SECONDS, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            return e.getCause();
        }
        return fail("the read completed; it was to fail");
    }

    /** A sink that keeps every line as {@code [step] text}, and lets the test wait for a count of them. */
    static final class Lines implements LogSink {
        private final List<String> lines = new CopyOnWriteArrayList<>();
        private final List<String> texts = new CopyOnWriteArrayList<>();

        @Override
        public void line(String step, String text) {
            texts.add(text);
            lines.add(LogStep.prefixed(step, text));
        }

        /** The lines' texts, without their steps. */
        List<String> texts() {
            return List.copyOf(texts);
        }

        @Override
        public void idle() {}

        @Override
        public boolean ready(Runnable resume) {
            return true;
        }

        List<String> all() {
            return List.copyOf(lines);
        }

        void await(int count) throws InterruptedException {
            Eventually.await(
                    Duration.ofSeconds(HANG_SECONDS), () -> lines.size() >= count, () -> "lines so far: " + lines);
        }
    }
}
