package io.camelkubeflow.trainer;

/** The operation an endpoint performs, named by its path: {@code kubeflow-trainer:train}. */
public enum KubeflowTrainerOperation {
    /** Create (or adopt) a launcher-aware TrainJob from the message. */
    train,
    /** Wait until a TrainJob reaches a status. */
    wait,
    /** Read or follow the logs of a TrainJob step. */
    logs,
    /** Read a TrainJob as it is now. */
    get,
    /** List the TrainJobs of the namespace (or all namespaces) matching labelSelector. */
    list,
    /** Delete a TrainJob with its JobSet, pods and staged script (deletePropagation). */
    delete,
    /** Suspend a TrainJob: its pods stop until it is resumed. */
    suspend,
    /** Resume a suspended TrainJob. */
    resume,
    /** List the runtimes with the launcher train would choose for each, and why. */
    runtimes,
    /** Consumer only: an exchange each time a TrainJob changes status. */
    events
}
