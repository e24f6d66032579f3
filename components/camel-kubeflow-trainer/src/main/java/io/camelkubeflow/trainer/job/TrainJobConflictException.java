package io.camelkubeflow.trainer.job;

/** A TrainJob of the wanted name exists but was not made for this request's idempotency key. */
public class TrainJobConflictException extends IllegalStateException {
    private final String jobName;

    public TrainJobConflictException(String jobName, String namespace, String why) {
        super("TrainJob " + namespace + "/" + jobName + " cannot be adopted: " + why);
        this.jobName = jobName;
    }

    public String getJobName() {
        return jobName;
    }
}
