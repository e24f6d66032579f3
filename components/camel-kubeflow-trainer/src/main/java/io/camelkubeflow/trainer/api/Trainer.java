package io.camelkubeflow.trainer.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.annotation.JsonDeserialize;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.ResourceRequirements;
import java.util.List;

/** {@code spec.trainer}: what replaces the image, command and args of the runtime's trainer container. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record Trainer(
        String image,

        @JsonDeserialize(contentUsing = SharedStrings.Deserializer.class)
        List<String> command,

        List<String> args,
        List<EnvVar> env,
        Integer numNodes,
        Integer numProcPerNode,
        ResourceRequirements resourcesPerNode) {}
