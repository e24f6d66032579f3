package io.camelkubeflow.trainer.api;

import com.fasterxml.jackson.annotation.JsonInclude;

/** {@code spec.runtimeRef}: the ClusterTrainingRuntime or TrainingRuntime a TrainJob runs on. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record RuntimeRef(String name, String kind, String apiGroup) {
}
