package io.camelkubeflow.trainer.job;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.camelkubeflow.trainer.api.TrainJob;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Which Workload is a job's own: the one Kueue makes, in the job's namespace and controlled by it; not one anyone
 * else labels with the job's uid, names the job as a mere owner of, or makes in a namespace of their own.
 */
class KueueWorkloadsTest {
    private static final TrainJob JOB = Serialization.unmarshal("""
            {"apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "TrainJob",
             "metadata": {"name": "j", "namespace": "ml", "uid": "u-1", "labels": {"kueue.x-k8s.io/queue-name": "a"}},
             "spec": {"runtimeRef": {"name": "torch-distributed"}}}
            """, TrainJob.class);

    private static GenericKubernetesResource workload(
            String name, String namespace, String ownerKind, boolean controller, String created) {
        return Serialization.unmarshal(
                """
                {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "Workload",
                 "metadata": {"name": "%s", "namespace": "%s", "creationTimestamp": "%s",
                              "labels": {"kueue.x-k8s.io/job-uid": "u-1"},
                              "ownerReferences": [{"apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "%s",
                                                   "name": "j", "uid": "u-1", "controller": %s}]},
                 "spec": {"queueName": "a"}}
                """.formatted(name, namespace, created, ownerKind, controller), GenericKubernetesResource.class);
    }

    @Test
    void theJobsOwnWorkloadIsTheOneItControlsInItsNamespace() {
        GenericKubernetesResource own = workload("own", "ml", "TrainJob", true, "2026-01-01T00:00:00Z");
        // newer, but not Kueue's making: another namespace, an owner that does not control, another kind
        List<GenericKubernetesResource> spoofs = List.of(
                workload("elsewhere", "attacker", "TrainJob", true, "2026-01-02T00:00:00Z"),
                workload("not-controlled", "ml", "TrainJob", false, "2026-01-02T00:00:00Z"),
                workload("other-kind", "ml", "JobSet", true, "2026-01-02T00:00:00Z"));
        List<GenericKubernetesResource> all = new ArrayList<>(spoofs);
        all.add(own);
        assertEquals(
                "own",
                KueueWorkloads.ownOf(JOB, all).orElseThrow().getMetadata().getName());
        assertTrue(KueueWorkloads.ownOf(JOB, spoofs).isEmpty());
    }
}
