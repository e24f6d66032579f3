package io.camelkubeflow.trainer;

import java.util.function.Function;

/**
 * The operation an endpoint performs, named by its path: {@code kubeflow-trainer:train}. Each producer operation
 * names the handler that does it; adding an operation is a constant here, its handler, and its docs.
 */
public enum KubeflowTrainerOperation {
    /** Create (or adopt) a launcher-aware TrainJob from the message. */
    train(TrainHandler::new),
    /** Wait until a TrainJob reaches a status. */
    wait(WaitHandler::new),
    /** Read or follow the logs of a TrainJob step. */
    logs(LogsHandler::new),
    /** Read a TrainJob as it is now. */
    get(ManageHandler::get),
    /** List the TrainJobs of the namespace (or all namespaces) matching labelSelector. */
    list(ManageHandler::list),
    /** Delete a TrainJob with its JobSet and pods (deletePropagation). */
    delete(ManageHandler::delete),
    /** Suspend a TrainJob: its pods stop until it is resumed. */
    suspend(ManageHandler::suspend),
    /** Resume a suspended TrainJob. */
    resume(ManageHandler::resume),
    /** List the runtimes (or read one, named by runtime) with the launcher train would choose for each, and why. */
    runtimes(RuntimesHandler::new),
    /**
     * The Python packages (and GPUs) of a runtime's image, read from a one-node TrainJob run on it and deleted
     * afterwards: a create.
     */
    runtimePackages(RuntimePackagesHandler::new),
    /**
     * In from(): an exchange each time a TrainJob changes status. In to(): the Kubernetes Events of a TrainJob and of
     * the objects it owns, in time order, each with its step.
     */
    events(ManageHandler::events, true);

    private final Function<KubeflowTrainerEndpoint, OperationHandler> handler;
    private final boolean consumer;

    KubeflowTrainerOperation(Function<KubeflowTrainerEndpoint, OperationHandler> handler) {
        this(handler, false);
    }

    KubeflowTrainerOperation(Function<KubeflowTrainerEndpoint, OperationHandler> handler, boolean consumer) {
        this.handler = handler;
        this.consumer = consumer;
    }

    /** Whether this operation can be used in from(). */
    public boolean isConsumer() {
        return consumer;
    }

    OperationHandler newHandler(KubeflowTrainerEndpoint endpoint) {
        return handler.apply(endpoint);
    }
}
