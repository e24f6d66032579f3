package io.camelkubeflow.trainer.watch;

import io.camelkubeflow.trainer.api.TrainJobPhase;
import io.camelkubeflow.trainer.support.Printable;
import java.time.Duration;

/**
 * The TrainJob did not reach the wanted status in time. The job itself is left as it is. What it was when the wait
 * gave up ({@link #getLastSeen}) is the status {@code get} reports: for a job Kueue holds, Queued with Kueue's reason.
 */
public class TrainJobWaitTimeoutException extends RuntimeException {
    private final transient ReportedStatus lastSeen;

    /**
     * @param lastSeen     the job's status when the wait gave up, or null (never seen)
     * @param lastProgress what the training code last reported, or null
     */
    public TrainJobWaitTimeoutException(
            String namespace,
            String name,
            TrainJobPhase target,
            Duration timeout,
            ReportedStatus lastSeen,
            TrainJobProgress lastProgress) {
        this(
                "TrainJob " + namespace + "/" + name + " did not become " + target.displayName() + " within " + timeout
                        + " (last seen " + (lastSeen == null ? "never" : describe(lastSeen))
                        + (lastProgress == null ? "" : ", " + lastProgress.describe()) + ")",
                lastSeen);
    }

    /** A wait that ended at another of its bounds, which says why ({@link TrainJobQueueTimeoutException}). */
    protected TrainJobWaitTimeoutException(String message, ReportedStatus lastSeen) {
        super(Printable.escape(message));
        this.lastSeen = lastSeen;
    }

    /** The job's status when the wait gave up, or null when the wait never saw the job. */
    public ReportedStatus getLastSeen() {
        return lastSeen;
    }

    /** A status with a reason Kueue gave, e.g. {@code Queued: Pending: couldn't assign flavors ...}. */
    private static String describe(ReportedStatus status) {
        boolean kueues = QueueStatus.QUEUED.equals(status.status())
                || QueueStatus.ADMITTED.equals(status.status())
                || QueueStatus.PREEMPTED.equals(status.status())
                || QueueStatus.EVICTED.equals(status.status());
        return status.status()
                + (!kueues || status.reason() == null
                        ? ""
                        : ": " + status.reason() + (status.message() == null ? "" : ": " + status.message()));
    }
}
