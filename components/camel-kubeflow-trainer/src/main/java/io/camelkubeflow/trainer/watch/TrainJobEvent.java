package io.camelkubeflow.trainer.watch;

import io.camelkubeflow.trainer.api.TrainJob;

/**
 * A TrainJob reached a new phase, or was deleted.
 *
 * @param type Created, Running, Suspended, Complete, Failed or Deleted
 */
public record TrainJobEvent(String type, TrainJob trainJob, String reason, String message) {
    public static final String DELETED = "Deleted";
}
