package io.camelkubeflow.trainer.runtime;

import io.camelkubeflow.trainer.support.InvalidOptionException;

/**
 * The runtime a request names exists neither as a TrainingRuntime of its namespace nor as a ClusterTrainingRuntime:
 * a refusal of the field that named it, which an HTTP API answers as 404 rather than 400.
 */
public class RuntimeNotFoundException extends InvalidOptionException {
    public RuntimeNotFoundException(String field, String message) {
        super(field, message);
    }
}
