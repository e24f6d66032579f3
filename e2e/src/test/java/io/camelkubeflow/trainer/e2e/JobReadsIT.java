package io.camelkubeflow.trainer.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.camelkubeflow.trainer.KubeflowTrainerConstants;
import io.camelkubeflow.trainer.api.TrainJob;
import io.camelkubeflow.trainer.runtime.RuntimeCatalog.RuntimeLauncher;
import io.camelkubeflow.trainer.testing.RuntimeYaml;
import io.camelkubeflow.trainer.watch.TrainJobObjectEvent;
import io.camelkubeflow.trainer.watch.TrainJobStep;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import org.apache.camel.Exchange;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * What the Kubeflow SDK reads, read on the real control plane: the Events the real Trainer, JobSet, Job controller
 * and node agent record about a job, with their steps; the steps of a running job from the pods JobSet made; one
 * runtime by name, a namespaced one before the cluster's; the jobs of one runtime.
 */
class JobReadsIT {
    private static RealCluster cluster;

    @BeforeAll
    static void start() throws Exception {
        cluster = RealCluster.start(JobReadsIT.class);
        // two restarts, the second after the kubelet's first back-off (10 s), then the Job gives up
        cluster.deriveRuntime("torch-distributed", "torch-two-restarts", true, RealCluster.backoffLimit(2));
    }

    @AfterAll
    static void stop() {
        cluster.close();
    }

    @SuppressWarnings("unchecked")
    private static List<TrainJobStep> steps(Exchange exchange) {
        return exchange.getMessage().getHeader(KubeflowTrainerConstants.STEPS, List.class);
    }

    private static Instant second(TrainJobObjectEvent event) {
        return Instant.parse(event.firstTimestamp()).truncatedTo(ChronoUnit.SECONDS);
    }

    @Test
    @Timeout(180)
    void theEventsOfAFailedJobAreTheRealControllersInTimeOrderWithTheirSteps() {
        Exchange trained = cluster.request(
                "kubeflow-trainer:train?runtime=torch-two-restarts"
                        + "&runtimeKind=TrainingRuntime&command=python3 -c"
                        + " \"import sys; print('failing', flush=True); sys.exit(3)\"",
                null);
        String job = trained.getMessage().getHeader(KubeflowTrainerConstants.JOB_NAME, String.class);
        Exchange failed = cluster.then("kubeflow-trainer:wait?throwOnFailure=false&waitTimeout=150s", trained);
        assertEquals("Failed", failed.getMessage().getHeader(KubeflowTrainerConstants.STATUS));

        Exchange read = cluster.then("kubeflow-trainer:events", trained);
        @SuppressWarnings("unchecked")
        List<TrainJobObjectEvent> events = read.getMessage().getBody(List.class);
        List<String> seen = events.stream()
                .map(e -> e.kind() + " " + e.reason() + " " + e.step())
                .toList();
        System.out.println("JobReadsIT events of " + job + ": " + seen);
        for (int i = 1; i < events.size(); i++) {
            // by the second, the precision of firstTimestamp (the scheduler's eventTime has microseconds)
            assertTrue(
                    !Instant.parse(events.get(i - 1).firstTimestamp())
                            .truncatedTo(ChronoUnit.SECONDS)
                            .isAfter(Instant.parse(events.get(i).firstTimestamp())
                                    .truncatedTo(ChronoUnit.SECONDS)),
                    events.toString());
        }
        // the real controllers' reasons, which the sandbox's emulation records too: the Job made the pod, the node
        // backed off its failing container, the Job gave up, JobSet failed
        assertTrue(seen.contains("Job SuccessfulCreate node-0"), seen.toString());
        assertTrue(seen.contains("Pod BackOff node-0"), seen.toString());
        assertTrue(seen.indexOf("Pod Scheduled node-0") < seen.indexOf("Pod Started node-0"), seen.toString());
        assertTrue(seen.contains("Job BackoffLimitExceeded node-0"), seen.toString());
        // JobSet fails last, to the second: it acts on the Job's Failed condition; within one second the two
        // controllers' Events are written in either order (each records its Events on a thread of its own; seen once
        // in ten runs with JobSet's first)
        int jobSetFailed = seen.indexOf("JobSet FailedJobs null");
        assertTrue(jobSetFailed >= 0, seen.toString());
        assertEquals(second(events.get(events.size() - 1)), second(events.get(jobSetFailed)), seen.toString());
        assertTrue(
                seen.indexOf("Job SuccessfulCreate node-0") < seen.indexOf("Job BackoffLimitExceeded node-0"),
                seen.toString());
        for (TrainJobObjectEvent event : events) {
            switch (event.kind()) {
                case "Pod" -> {
                    assertEquals("node-0", event.step(), event.toString());
                    assertTrue(event.name().startsWith(job + "-node-0-0-"), event.toString());
                }
                case "Job" -> assertEquals(job + "-node-0", event.name(), event.toString());
                default -> assertNull(event.step(), event.toString());
            }
        }
    }

    @Test
    @Timeout(240)
    void aRunningJobsStepsARuntimeByNameAndTheJobsOfARuntime() {
        Exchange trained = cluster.request(
                "kubeflow-trainer:train?runtime=torch-distributed&numNodes=2&command=python3"
                        + " -c \"import time; print('started', flush=True); time.sleep(600)\"",
                null);
        String job = trained.getMessage().getHeader(KubeflowTrainerConstants.JOB_NAME, String.class);
        Exchange running = cluster.then("kubeflow-trainer:wait?waitFor=Running&waitTimeout=150s", trained);
        List<TrainJobStep> steps = steps(cluster.then("kubeflow-trainer:get", running));
        assertEquals(
                List.of("node-0", "node-1"),
                steps.stream().map(TrainJobStep::name).toList(),
                steps.toString());
        for (TrainJobStep step : steps) {
            assertTrue(
                    step.podName().startsWith(job + "-node-0-" + step.name().substring("node-".length()) + "-"),
                    step.toString());
        }
        assertTrue(steps.stream().anyMatch(step -> "Running".equals(step.status())), steps.toString());

        Exchange listed = cluster.request("kubeflow-trainer:list?runtime=torch-distributed", null);
        assertTrue(listed.getMessage().getBody(List.class).stream()
                .anyMatch(j -> ((TrainJob) j).getMetadata().getName().equals(job)));
        assertEquals(
                2,
                ((List<?>) listed.getMessage()
                                .getHeader(KubeflowTrainerConstants.STEPS, Map.class)
                                .get(cluster.namespace + "/" + job))
                        .size());
        assertEquals(
                List.of(),
                cluster.request("kubeflow-trainer:list?runtime=deepspeed-distributed", null)
                        .getMessage()
                        .getBody(List.class));

        RuntimeLauncher clusters = cluster.request("kubeflow-trainer:runtimes?runtime=torch-distributed", null)
                .getMessage()
                .getBody(RuntimeLauncher.class);
        assertEquals("ClusterTrainingRuntime", clusters.kind());
        assertEquals("torchrun", clusters.launcher());
        cluster.admin
                .load(new ByteArrayInputStream(RuntimeYaml.of(
                                "torch-distributed", cluster.namespace, "deepspeed", "{mpi: {}}", "example.com/ds:1")
                        .getBytes(StandardCharsets.UTF_8)))
                .create();
        RuntimeLauncher own = cluster.request("kubeflow-trainer:runtimes?runtime=torch-distributed", null)
                .getMessage()
                .getBody(RuntimeLauncher.class);
        assertEquals("TrainingRuntime", own.kind());
        assertEquals(cluster.namespace, own.namespace());
        assertEquals("mpirun", own.launcher());
        cluster.then("kubeflow-trainer:delete", trained);
    }
}
