package io.camelkubeflow.trainer.watch;

import io.camelkubeflow.trainer.api.TrainJob;
import io.camelkubeflow.trainer.api.TrainJobPhase;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.client.KubernetesClient;

/**
 * Where a TrainJob is, as {@code get}, {@code list}, the events consumer and their headers report it: its phase with
 * the condition that decided it; or, for a job Kueue holds, has just admitted or has evicted, what its Workload says
 * ({@link QueueStatus}: Queued, Admitted, Preempted, Evicted, with Kueue's reason and message), never guessed from its
 * suspension alone.
 *
 * @param status  Created, Running, Suspended, Complete or Failed; or Queued, Admitted, Preempted or Evicted
 * @param reason  the reason of the condition that says it (null: none)
 * @param message that condition's message
 */
public record ReportedStatus(String status, String reason, String message) {
    /** The job's status now, its Workload read with one LIST when it is Kueue's ({@link QueueStatus#read}). */
    public static ReportedStatus of(KubernetesClient client, TrainJob job) {
        return of(job, QueueStatus.read(client, job));
    }

    /**
     * The job's status, given what Kueue says of it (null: nothing): an ended job is what it ended as; an eviction is
     * said as soon as Kueue decides it, before the job's pods have stopped and its own status says Suspended (and
     * until Kueue admits it again); a job that runs otherwise is Running; one that does not run yet is where Kueue has
     * it (Queued, or Admitted until it runs).
     */
    public static ReportedStatus of(TrainJob job, QueueStatus queue) {
        TrainJobPhase phase = TrainJobPhase.of(job);
        if (queue == null || phase.isTerminal() || (phase == TrainJobPhase.RUNNING && !queue.evicted())) {
            return own(job);
        }
        return new ReportedStatus(queue.status(), queue.reason(), queue.message());
    }

    /** The job's own status: its phase and the condition that decided it. */
    public static ReportedStatus own(TrainJob job) {
        Condition condition = TrainJobPhase.decidingCondition(job);
        return new ReportedStatus(
                TrainJobPhase.of(job).displayName(),
                condition == null ? null : condition.getReason(),
                condition == null ? null : condition.getMessage());
    }
}
