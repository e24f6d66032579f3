package io.camelkubeflow.trainer.api;

import java.util.List;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.LocalObjectReference;

/** {@code spec.initializer.dataset} or {@code spec.initializer.model} (the two share one shape). */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record StorageInitializer(String storageUri, List<EnvVar> env, LocalObjectReference secretRef) {
}
