package io.camelkubeflow.trainer.job;

import io.camelkubeflow.trainer.api.TrainJob;
import io.camelkubeflow.trainer.runtime.LauncherDecision;
import io.camelkubeflow.trainer.runtime.TrainingRuntimeDescriptor;

/** A TrainJob ready to be written (an inline script inside it), with the runtime and launcher it was made for. */
public record PreparedTrainJob(TrainJob trainJob, TrainingRuntimeDescriptor runtime, LauncherDecision decision) {
}
