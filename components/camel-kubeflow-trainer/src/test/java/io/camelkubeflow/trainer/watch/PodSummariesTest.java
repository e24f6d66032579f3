package io.camelkubeflow.trainer.watch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.camelkubeflow.trainer.api.JobSetLabels;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.InputStream;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A pod as the real control plane keeps it (JobSet's labels, the Trainer's env, the node agent's status; given a GPU
 * limit and a container that was OOM-killed once), summarized: what the cache's readers make of it is what they make
 * of the whole pod, and the rest is gone.
 */
class PodSummariesTest {
    /** A pod as the real control plane wrote it (resource trainer-pod.json). */
    static Pod trainerPod() throws Exception {
        try (InputStream json = PodSummariesTest.class.getResourceAsStream("trainer-pod.json")) {
            return Serialization.unmarshal(json, Pod.class);
        }
    }

    @Test
    void theReadersOfTheCacheReadTheSameFromASummary() throws Exception {
        Pod whole = trainerPod();
        Pod summary = trainerPod();
        PodSummaries.summarize(summary);

        assertEquals(FailedPodDetail.describe(whole), FailedPodDetail.describe(summary));
        assertTrue(FailedPodDetail.describe(summary).contains("exited with code 137 (OOMKilled)"));
        assertEquals(TrainJobProgress.ofPods(List.of(whole)), TrainJobProgress.ofPods(List.of(summary)));
        assertEquals(TrainJobSteps.fromPods(List.of(whole), false), TrainJobSteps.fromPods(List.of(summary), false));
        assertEquals(
                "gpu", TrainJobSteps.fromPods(List.of(summary), false).get(0).device());
        for (String label : JobSetLabels.ALL) {
            assertEquals(
                    whole.getMetadata().getLabels().get(label),
                    summary.getMetadata().getLabels().get(label));
        }
        assertEquals(whole.getSpec().getRestartPolicy(), summary.getSpec().getRestartPolicy());
        assertEquals(
                whole.getStatus()
                        .getContainerStatuses()
                        .get(0)
                        .getState()
                        .getTerminated()
                        .getExitCode(),
                summary.getStatus()
                        .getContainerStatuses()
                        .get(0)
                        .getState()
                        .getTerminated()
                        .getExitCode());
        assertEquals(
                whole.getMetadata().getCreationTimestamp(),
                summary.getMetadata().getCreationTimestamp());
    }

    @Test
    void whatNoReaderReadsIsNotKept() throws Exception {
        Pod summary = trainerPod();
        PodSummaries.summarize(summary);
        assertEquals(JobSetLabels.ALL.size(), summary.getMetadata().getLabels().size());
        assertEquals(Map.of(), summary.getMetadata().getAnnotations());
        assertEquals(List.of(), summary.getMetadata().getOwnerReferences());
        assertEquals(List.of(), summary.getSpec().getVolumes());
        assertNull(summary.getSpec().getContainers().get(0).getImage());
        assertEquals(
                List.of("PET_NPROC_PER_NODE"),
                summary.getSpec().getContainers().get(0).getEnv().stream()
                        .map(env -> env.getName())
                        .toList());
        assertEquals(
                Map.of(),
                summary.getSpec().getContainers().get(0).getResources().getRequests());
        assertNull(summary.getStatus().getContainerStatuses().get(0).getImage());
        assertNull(summary.getStatus().getPodIP());
        assertEquals(
                List.of("Ready"),
                summary.getStatus().getConditions().stream()
                        .map(c -> c.getType())
                        .toList());
        assertNull(summary.getStatus()
                .getContainerStatuses()
                .get(0)
                .getState()
                .getTerminated()
                .getFinishedAt());
    }
}
