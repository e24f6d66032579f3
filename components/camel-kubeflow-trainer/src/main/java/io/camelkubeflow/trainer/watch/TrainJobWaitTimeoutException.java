package io.camelkubeflow.trainer.watch;

import java.time.Duration;

/** The TrainJob did not reach the wanted status in time. The job itself is left as it is. */
public class TrainJobWaitTimeoutException extends RuntimeException {
    private final TrainJobPhase lastPhase;

    /** @param lastProgress what the training code last reported, or null */
    public TrainJobWaitTimeoutException(String namespace, String name, TrainJobPhase target, Duration timeout,
            TrainJobPhase lastPhase, TrainJobProgress lastProgress) {
        super("TrainJob " + namespace + "/" + name + " did not become " + target.displayName() + " within " + timeout
                + " (last seen " + (lastPhase == null ? "never" : lastPhase.displayName())
                + (lastProgress == null ? "" : ", " + lastProgress.describe()) + ")");
        this.lastPhase = lastPhase;
    }

    public TrainJobWaitTimeoutException(String message) {
        super(message);
        this.lastPhase = null;
    }

    /** The phase last seen, or null if the job was never seen. */
    public TrainJobPhase getLastPhase() {
        return lastPhase;
    }
}
