package io.camelkubeflow.trainer.watch;

import io.camelkubeflow.trainer.api.TrainJob;

/**
 * A TrainJob reached a new phase, was deleted, or (when asked for) made progress while running.
 *
 * @param type     Created, Running, Suspended, Complete, Failed, Deleted or Progress
 * @param progress the job's progress: on Progress events always; on the others what the training code reported, if
 *                 anything (so Complete carries the final metrics)
 */
public record TrainJobEvent(String type, TrainJob trainJob, String reason, String message, TrainJobProgress progress) {
    public static final String DELETED = "Deleted";
    public static final String PROGRESS = "Progress";
}
