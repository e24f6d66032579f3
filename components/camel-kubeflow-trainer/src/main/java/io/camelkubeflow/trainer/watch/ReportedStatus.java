package io.camelkubeflow.trainer.watch;

import io.camelkubeflow.trainer.api.TrainJob;
import io.camelkubeflow.trainer.api.TrainJobPhase;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.client.KubernetesClient;

/**
 * Where a TrainJob is, as {@code get}, the events consumer and their headers report it: its phase with the condition
 * that decided it; or, for a job Kueue holds or has just admitted, what its Workload says ({@link QueueStatus}:
 * Queued, Admitted, Preempted, Evicted, with Kueue's reason and message), never guessed from its suspension alone.
 *
 * @param status  Created, Running, Suspended, Complete or Failed; or Queued, Admitted, Preempted or Evicted
 * @param reason  the reason of the condition that says it (null: none)
 * @param message that condition's message
 */
public record ReportedStatus(String status, String reason, String message) {
    /** The job's status now: its own, or its Workload's when it is Kueue's and neither runs nor has ended. */
    public static ReportedStatus of(KubernetesClient client, TrainJob job) {
        QueueStatus queue = QueueStatus.read(client, job);
        return queue != null ? new ReportedStatus(queue.status(), queue.reason(), queue.message()) : own(job);
    }

    /** The job's own status: its phase and the condition that decided it. */
    public static ReportedStatus own(TrainJob job) {
        Condition condition = TrainJobPhase.decidingCondition(job);
        return new ReportedStatus(TrainJobPhase.of(job).displayName(), condition == null ? null
                : condition.getReason(), condition == null ? null : condition.getMessage());
    }
}
