package io.camelkubeflow.trainer.watch;

import java.time.Duration;

import io.camelkubeflow.trainer.api.TrainJobPhase;
import io.camelkubeflow.trainer.support.Printable;

/** The TrainJob did not reach the wanted status in time. The job itself is left as it is. */
public class TrainJobWaitTimeoutException extends RuntimeException {
    /** @param lastProgress what the training code last reported, or null */
    public TrainJobWaitTimeoutException(String namespace, String name, TrainJobPhase target, Duration timeout,
            TrainJobPhase lastPhase, TrainJobProgress lastProgress) {
        super(Printable.escape("TrainJob " + namespace + "/" + name + " did not become " + target.displayName() + " within " + timeout
                + " (last seen " + (lastPhase == null ? "never" : lastPhase.displayName())
                + (lastProgress == null ? "" : ", " + lastProgress.describe()) + ")"));
    }

    /** A wait that ended at another of its bounds, which says why ({@link TrainJobQueueTimeoutException}). */
    protected TrainJobWaitTimeoutException(String message) {
        super(Printable.escape(message));
    }
}
