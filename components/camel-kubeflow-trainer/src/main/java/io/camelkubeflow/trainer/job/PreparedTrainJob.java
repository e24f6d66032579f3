package io.camelkubeflow.trainer.job;

import io.camelkubeflow.trainer.api.TrainJob;
import io.camelkubeflow.trainer.runtime.LauncherDecision;
import io.camelkubeflow.trainer.runtime.TrainingRuntimeDescriptor;
import io.fabric8.kubernetes.api.model.ConfigMap;

/** A TrainJob ready to be written, with the ConfigMap holding its inline script (null when there is none). */
public record PreparedTrainJob(TrainJob trainJob, ConfigMap scriptConfigMap, TrainingRuntimeDescriptor runtime,
        LauncherDecision decision) {
}
