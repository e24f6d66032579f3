package io.camelkubeflow.trainer.api;

import com.fasterxml.jackson.annotation.JsonInclude;

/** {@code spec.initializer}: where the dataset and model initializers fetch from. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record Initializer(StorageInitializer dataset, StorageInitializer model) {}
