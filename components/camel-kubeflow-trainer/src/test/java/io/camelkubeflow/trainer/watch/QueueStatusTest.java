package io.camelkubeflow.trainer.watch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.camelkubeflow.trainer.api.TrainJob;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A Workload's conditions as Kueue v0.17 writes them (pkg/workload: quota reserved, admitted, evicted by preemption,
 * evicted and reset on re-admission) read as the status a job Kueue holds is reported in.
 */
@SuppressWarnings("unchecked")
class QueueStatusTest {
    private static GenericKubernetesResource workload(String conditions) {
        return Serialization.unmarshal("""
                {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "Workload",
                 "metadata": {"name": "trainjob-x-1", "namespace": "ml"},
                 "spec": {"queueName": "team-a"},
                 "status": {"conditions": [%s]}}
                """.formatted(conditions), GenericKubernetesResource.class);
    }

    private static String condition(String type, String status, String reason, String message) {
        return """
                {"type": "%s", "status": "%s", "reason": "%s", "message": "%s"}""".formatted(type, status, reason, message);
    }

    @Test
    void aWorkloadWithoutQuotaIsQueuedWithKueuesReason() {
        String insufficient = "couldn't assign flavors to pod set node: insufficient unused quota for cpu in flavor"
                + " default, 1 more needed";
        assertEquals(
                new QueueStatus("Queued", "team-a", "Pending", insufficient),
                QueueStatus.of(workload(condition("QuotaReserved", "False", "Pending", insufficient))));
        assertEquals(
                new QueueStatus("Queued", "team-a", null, null),
                QueueStatus.of(workload("")),
                "Kueue has not looked at it yet");
    }

    @Test
    void anAdmittedWorkloadIsAdmitted() {
        assertEquals(
                "Admitted",
                QueueStatus.of(workload(
                                condition("QuotaReserved", "True", "QuotaReserved", "Quota reserved in ClusterQueue cq")
                                        + "," + condition("Admitted", "True", "Admitted", "The workload is admitted")))
                        .status());
        assertEquals(
                "Queued",
                QueueStatus.of(workload(condition(
                                "QuotaReserved", "True", "QuotaReserved", "Quota reserved in ClusterQueue cq")))
                        .status(),
                "quota reserved, admission checks pending");
    }

    @Test
    void anEvictionForAHigherPriorityIsPreemptedAndAnyOtherEvicted() {
        String preempted = "Preempted to accommodate a workload (UID: 1, JobUID: 2) due to prioritization in the"
                + " ClusterQueue";
        QueueStatus status = QueueStatus.of(workload(condition("Evicted", "True", "Preempted", preempted) + ","
                + condition("Preempted", "True", "InClusterQueue", preempted) + ","
                + condition("QuotaReserved", "False", "Pending", "waiting")));
        assertEquals(new QueueStatus("Preempted", "team-a", "Preempted", preempted), status);
        assertEquals(
                "Evicted",
                QueueStatus.of(workload(
                                condition("Evicted", "True", "PodsReadyTimeout", "Exceeded the PodsReady timeout")))
                        .status());
        assertEquals(
                "Preempted",
                QueueStatus.of(workload(condition("Admitted", "True", "Admitted", "") + ","
                                + condition("Evicted", "True", "Preempted", preempted)))
                        .status(),
                "evicted while still admitted: Kueue takes the admission back after it suspends the job");
    }

    @Test
    void aReadmittedWorkloadIsAdmittedAgain() {
        // SetQuotaReservation resets Evicted and Preempted to False with reason QuotaReserved
        assertEquals(
                "Admitted",
                QueueStatus.of(workload(condition("Evicted", "False", "QuotaReserved", "") + ","
                                + condition("Admitted", "True", "Admitted", "The workload is admitted")))
                        .status());
    }

    @Test
    void onlyAJobInAQueueThatHasNotEndedIsAskedAbout() {
        TrainJob queued = Serialization.unmarshal("""
                {"apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "TrainJob",
                 "metadata": {"name": "j", "namespace": "ml", "uid": "u", "labels": {"kueue.x-k8s.io/queue-name": "a"}},
                 "spec": {"runtimeRef": {"name": "torch-distributed"}, "suspend": true},
                 "status": {"conditions": [{"type": "Suspended", "status": "True", "reason": "Suspended"}]}}
                """, TrainJob.class);
        assertTrue(QueueStatus.asksKueue(queued));
        TrainJob notQueued = Serialization.unmarshal(Serialization.asJson(queued), TrainJob.class);
        notQueued.getMetadata().setLabels(Map.of());
        assertFalse(QueueStatus.asksKueue(notQueued));
        TrainJob ended = Serialization.unmarshal(Serialization.asJson(queued), TrainJob.class);
        ended.getStatus().conditions().get(0).setType("Complete");
        assertFalse(QueueStatus.asksKueue(ended));
        TrainJob running = Serialization.unmarshal(Serialization.asJson(queued), TrainJob.class);
        running.getStatus().conditions().clear();
        assertTrue(QueueStatus.asksKueue(running), "Kueue may evict a job that runs");
    }

    @Test
    void aDeactivatedWorkloadSaysNothing() {
        GenericKubernetesResource deactivated =
                workload(condition("Evicted", "True", "Deactivated", "The workload is deactivated"));
        ((Map<String, Object>) deactivated.getAdditionalProperties().get("spec")).put("active", false);
        assertNull(QueueStatus.of(deactivated), "the job suspended as Kueue documents: its own status says so");
        ((Map<String, Object>) deactivated.getAdditionalProperties().get("spec")).put("active", true);
        assertEquals("Queued", QueueStatus.of(deactivated).status(), "reactivated: queued again");
    }

    @Test
    void anEvictionIsSaidWhileTheJobStillRunsAndAnAdmissionOnlyUntilItRuns() {
        TrainJob running = Serialization.unmarshal("""
                {"apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "TrainJob",
                 "metadata": {"name": "j", "namespace": "ml", "uid": "u", "labels": {"kueue.x-k8s.io/queue-name": "a"}},
                 "spec": {"runtimeRef": {"name": "torch-distributed"}, "suspend": true},
                 "status": {"jobsStatus": [{"name": "node", "active": 1}]}}
                """, TrainJob.class);
        QueueStatus preempted = new QueueStatus("Preempted", "a", "Preempted", "for a higher priority");
        assertEquals(
                new ReportedStatus("Preempted", "Preempted", "for a higher priority"),
                ReportedStatus.of(running, preempted),
                "Kueue suspended it; its pods are still stopping");
        assertEquals(
                "Running",
                ReportedStatus.of(running, new QueueStatus("Admitted", "a", "Admitted", ""))
                        .status());
        TrainJob suspended = Serialization.unmarshal(Serialization.asJson(running), TrainJob.class);
        suspended.setStatus(null);
        assertEquals(
                "Admitted",
                ReportedStatus.of(suspended, new QueueStatus("Admitted", "a", "Admitted", ""))
                        .status(),
                "admitted, not running yet");
        assertEquals("Created", ReportedStatus.of(suspended, null).status(), "Kueue says nothing");
    }
}
