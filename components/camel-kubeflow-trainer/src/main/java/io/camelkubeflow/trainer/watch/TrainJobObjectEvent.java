package io.camelkubeflow.trainer.watch;

/**
 * A Kubernetes Event recorded about a TrainJob or an object it owns (its JobSet, the JobSet's Jobs, their pods), as
 * the controller, JobSet, the Job controller, the scheduler or the kubelet recorded it.
 *
 * @param type           {@code Normal} or {@code Warning}
 * @param kind           the kind of the object it is about: TrainJob, JobSet, Job or Pod
 * @param name           that object's name
 * @param step           the step the object belongs to, as {@link TrainJobStep} names it; null for the TrainJob and
 *                       its JobSet, and for a Job whose pods run several steps (the nodes of a multi-node job)
 * @param count          how often it happened
 * @param firstTimestamp when it first happened (RFC 3339, as the API server writes it)
 * @param lastTimestamp  when it last happened
 */
public record TrainJobObjectEvent(
        String type,
        String reason,
        String message,
        String kind,
        String name,
        String step,
        int count,
        String firstTimestamp,
        String lastTimestamp) {}
