package io.camelkubeflow.trainer.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.annotation.JsonDeserialize;

/** {@code spec.runtimeRef}: the ClusterTrainingRuntime or TrainingRuntime a TrainJob runs on. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record RuntimeRef(
        @JsonDeserialize(using = SharedStrings.Deserializer.class)
        String name,

        @JsonDeserialize(using = SharedStrings.Deserializer.class)
        String kind,

        @JsonDeserialize(using = SharedStrings.Deserializer.class)
        String apiGroup) {}
