package io.camelkubeflow.trainer;

import io.camelkubeflow.trainer.access.Access;
import io.camelkubeflow.trainer.api.TrainJobRef;
import io.camelkubeflow.trainer.job.TrainJobManager;
import org.apache.camel.Exchange;
import org.apache.camel.Message;

import static io.camelkubeflow.trainer.KubeflowTrainerConstants.*;

/** The operations that are one call of the TrainJob API each: get, list, delete, suspend and resume. */
final class ManageHandler extends OperationHandler.Synchronous {
    /** What one operation does with the job API. */
    @FunctionalInterface
    private interface Action {
        void run(ManageHandler handler, Exchange exchange);
    }

    private final Action action;
    private TrainJobManager jobs;

    private ManageHandler(KubeflowTrainerEndpoint endpoint, Action action) {
        super(endpoint);
        this.action = action;
    }

    @Override
    protected void doStart() {
        jobs = new TrainJobManager(endpoint.getClient(), endpoint.apiRetry());
    }

    @Override
    void handle(Exchange exchange) {
        action.run(this, exchange);
    }

    /** The job the message names, once its caller (with authorizeCaller) may {@code verb} it. */
    private TrainJobRef job(Exchange exchange, String verb) {
        TrainJobRef job = TrainJobHeaders.reference(exchange.getMessage(), endpoint.defaultNamespace());
        endpoint.authorize(exchange.getMessage(), Access.trainJobs(verb, job.namespace(), job.name()));
        return job;
    }

    private String namespace(Exchange exchange) {
        return TrainJobHeaders.namespace(exchange.getMessage(), endpoint.defaultNamespace());
    }

    static ManageHandler get(KubeflowTrainerEndpoint endpoint) {
        return new ManageHandler(endpoint, (h, exchange) -> {
            TrainJobRef job = h.job(exchange, "get");
            TrainJobHeaders.jobWithStatus(exchange.getMessage(), h.jobs.get(job.namespace(), job.name()));
        });
    }

    static ManageHandler list(KubeflowTrainerEndpoint endpoint) {
        return new ManageHandler(endpoint, (h, exchange) -> {
            KubeflowTrainerConfiguration configuration = endpoint.getConfiguration();
            String namespace = configuration.isAllNamespaces() ? null : h.namespace(exchange);
            endpoint.authorize(exchange.getMessage(), Access.trainJobs("list", namespace, null));
            exchange.getMessage().setBody(h.jobs.list(namespace, configuration.getLabelSelector()));
        });
    }

    static ManageHandler delete(KubeflowTrainerEndpoint endpoint) {
        return new ManageHandler(endpoint, (h, exchange) -> {
            TrainJobRef job = h.job(exchange, "delete");
            Message out = exchange.getMessage();
            out.setHeader(DELETED, h.jobs.delete(job.namespace(), job.name(),
                    endpoint.getConfiguration().getDeletePropagation()));
            TrainJobHeaders.identity(out, job);
        });
    }

    static ManageHandler suspend(KubeflowTrainerEndpoint endpoint) {
        return new ManageHandler(endpoint, (h, exchange) -> h.setSuspended(exchange, true));
    }

    static ManageHandler resume(KubeflowTrainerEndpoint endpoint) {
        return new ManageHandler(endpoint, (h, exchange) -> h.setSuspended(exchange, false));
    }

    private void setSuspended(Exchange exchange, boolean suspended) {
        TrainJobRef job = job(exchange, "patch");
        TrainJobHeaders.jobWithStatus(exchange.getMessage(), jobs.setSuspended(job.namespace(), job.name(), suspended));
    }
}
