package io.camelkubeflow.trainer.api;

/** Which TrainJob: its namespace and name. */
public record TrainJobRef(String namespace, String name) {

    public static TrainJobRef of(TrainJob job) {
        return new TrainJobRef(
                job.getMetadata().getNamespace(), job.getMetadata().getName());
    }

    /** {@code namespace/name}, as logs and messages write it. */
    @Override
    public String toString() {
        return namespace + "/" + name;
    }
}
