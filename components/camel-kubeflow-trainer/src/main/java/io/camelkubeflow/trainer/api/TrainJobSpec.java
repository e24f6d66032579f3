package io.camelkubeflow.trainer.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.annotation.JsonDeserialize;
import java.util.List;

/** {@code TrainJob.spec}. Unknown fields are refused when read, so a removed field (spec.labels) is caught. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record TrainJobSpec(
        RuntimeRef runtimeRef,
        Trainer trainer,
        Initializer initializer,
        List<RuntimePatch> runtimePatches,
        Boolean suspend,

        @JsonDeserialize(using = SharedStrings.Deserializer.class)
        String managedBy,

        Long activeDeadlineSeconds) {}
