package io.camelkubeflow.trainer;

import io.camelkubeflow.trainer.access.Access;
import io.camelkubeflow.trainer.api.TrainJobRef;
import io.camelkubeflow.trainer.job.LabelSelectors;
import io.camelkubeflow.trainer.job.TrainJobManager;
import io.camelkubeflow.trainer.support.InvalidOptionException;
import io.fabric8.kubernetes.api.model.DeletionPropagation;
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
        endpoint.authorize(exchange, Access.trainJobs(verb, job.namespace(), job.name()));
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
            String selector = exchange.getMessage().getHeader(LABEL_SELECTOR, String.class);
            if (selector != null) {
                LabelSelectors.check(LABEL_SELECTOR, selector);
            }
            endpoint.authorize(exchange, Access.trainJobs("list", namespace, null));
            exchange.getMessage().setBody(h.jobs.list(namespace, selector != null ? selector
                    : configuration.getLabelSelector()));
        });
    }

    static ManageHandler delete(KubeflowTrainerEndpoint endpoint) {
        return new ManageHandler(endpoint, (h, exchange) -> {
            TrainJobRef job = h.job(exchange, "delete");
            Message out = exchange.getMessage();
            String propagation = out.getHeader(DELETE_PROPAGATION, String.class);
            out.setHeader(DELETED, h.jobs.delete(job.namespace(), job.name(), propagation == null
                    ? endpoint.getConfiguration().getDeletePropagation() : propagation(propagation)));
            TrainJobHeaders.identity(out, job);
        });
    }

    /** A propagation as the API writes it (Background, Foreground, Orphan), in any case; anything else is refused. */
    private static DeletionPropagation propagation(String value) {
        for (DeletionPropagation propagation : DeletionPropagation.values()) {
            if (propagation.toString().equalsIgnoreCase(value.trim())) {
                return propagation;
            }
        }
        throw new InvalidOptionException(DELETE_PROPAGATION, "'" + value + "' is not a deletion propagation; use"
                + " Background (the default: the JobSet and pods go after the TrainJob), Foreground (before it) or"
                + " Orphan (they stay)");
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
