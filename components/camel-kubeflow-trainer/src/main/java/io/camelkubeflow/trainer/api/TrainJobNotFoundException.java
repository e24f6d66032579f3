package io.camelkubeflow.trainer.api;

/** The TrainJob to wait for does not exist, or was deleted while waited for. */
public class TrainJobNotFoundException extends RuntimeException {
    public TrainJobNotFoundException(String message) {
        super(message);
    }
}
