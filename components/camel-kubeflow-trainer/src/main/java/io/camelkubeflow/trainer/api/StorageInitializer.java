package io.camelkubeflow.trainer.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.LocalObjectReference;
import java.util.List;

/** {@code spec.initializer.dataset} or {@code spec.initializer.model} (the two share one shape). */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record StorageInitializer(String storageUri, List<EnvVar> env, LocalObjectReference secretRef) {}
