package io.camelkubeflow.trainer.job;

import io.camelkubeflow.trainer.support.Printable;
import java.util.List;

/**
 * A TrainJob of the wanted name exists and is not this request's: it was made for another idempotency key (or the
 * request has none), or for this key from a different request ({@link #getDiffering()} names the parts that differ).
 */
public class TrainJobConflictException extends IllegalStateException {
    private final String jobName;
    private final List<String> differing;

    public TrainJobConflictException(String jobName, String namespace, String why) {
        this(jobName, namespace, why, List.of());
    }

    TrainJobConflictException(String jobName, String namespace, String why, List<String> differing) {
        super(Printable.escape("TrainJob " + namespace + "/" + jobName + " cannot be adopted: " + why));
        this.jobName = jobName;
        this.differing = List.copyOf(differing);
    }

    public String getJobName() {
        return jobName;
    }

    /**
     * The parts of the TrainJob in which this request differs from the one that made the job with the same
     * idempotency key; empty when the job was made for another key.
     */
    public List<String> getDiffering() {
        return differing;
    }
}
