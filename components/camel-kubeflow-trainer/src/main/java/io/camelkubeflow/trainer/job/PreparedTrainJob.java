package io.camelkubeflow.trainer.job;

import io.camelkubeflow.trainer.api.TrainJob;
import io.camelkubeflow.trainer.runtime.LauncherDecision;
import io.camelkubeflow.trainer.runtime.TrainingRuntimeDescriptor;
import io.camelkubeflow.trainer.workspace.Workspace;

/**
 * A TrainJob ready to be written (an inline script inside it), with the runtime and launcher it was made for, and the
 * workspace to stage for it (null when it runs none).
 */
public record PreparedTrainJob(TrainJob trainJob, TrainingRuntimeDescriptor runtime, LauncherDecision decision,
        Workspace workspace) {
}
