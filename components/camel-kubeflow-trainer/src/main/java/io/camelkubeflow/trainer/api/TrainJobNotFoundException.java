package io.camelkubeflow.trainer.api;

import io.camelkubeflow.trainer.support.Printable;

/** The TrainJob to wait for does not exist, or was deleted while waited for. */
public class TrainJobNotFoundException extends RuntimeException {
    public TrainJobNotFoundException(String message) {
        super(Printable.escape(message));
    }
}
