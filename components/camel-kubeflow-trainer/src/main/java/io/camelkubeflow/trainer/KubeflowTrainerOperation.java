package io.camelkubeflow.trainer;

/** The operation an endpoint performs, named by its path: {@code kubeflow-trainer:train}. */
public enum KubeflowTrainerOperation {
    /** Create (or adopt) a launcher-aware TrainJob from the message. */
    train,
    /** Wait until a TrainJob reaches a status. */
    wait,
    /** Read or follow the logs of a TrainJob step. */
    logs,
    /** Consumer only: an exchange each time a TrainJob changes status. */
    events
}
