package io.camelkubeflow.trainer;

import static io.camelkubeflow.trainer.KubeflowTrainerConstants.*;

import io.camelkubeflow.trainer.access.Access;
import io.camelkubeflow.trainer.access.AccessDeniedException;
import io.camelkubeflow.trainer.api.KubernetesNames;
import io.camelkubeflow.trainer.api.TrainJob;
import io.camelkubeflow.trainer.api.TrainJobRef;
import io.camelkubeflow.trainer.job.LabelSelectors;
import io.camelkubeflow.trainer.job.TrainJobManager;
import io.camelkubeflow.trainer.support.InvalidOptionException;
import io.camelkubeflow.trainer.watch.QueueStatus;
import io.camelkubeflow.trainer.watch.ReportedStatus;
import io.camelkubeflow.trainer.watch.TrainJobObjectEvents;
import io.camelkubeflow.trainer.watch.TrainJobStep;
import io.camelkubeflow.trainer.watch.TrainJobSteps;
import io.fabric8.kubernetes.api.model.DeletionPropagation;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.camel.Exchange;
import org.apache.camel.Message;

/**
 * The operations that read or change TrainJobs by one call of the TrainJob API each (get, list, delete, suspend and
 * resume), and {@code events}, which reads the job and the Events about it. Every job read answers its steps as
 * {@code CamelKubeflowTrainerSteps}, from the pod informers.
 */
final class ManageHandler extends OperationHandler.Synchronous {
    /** What one operation does with the job API. */
    @FunctionalInterface
    private interface Action {
        void run(ManageHandler handler, Exchange exchange);
    }

    private final Action action;
    private TrainJobManager jobs;
    private TrainJobSteps steps;

    private ManageHandler(KubeflowTrainerEndpoint endpoint, Action action) {
        super(endpoint);
        this.action = action;
    }

    @Override
    protected void doStart() {
        jobs = new TrainJobManager(endpoint.getClient(), endpoint.apiRetry());
        steps = endpoint.trainJobSteps();
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
            h.withSteps(exchange, h.jobs.get(job.namespace(), job.name()));
        });
    }

    /** The job's Events, oldest first; the caller needs to get the job and to list the namespace's Events. */
    static ManageHandler events(KubeflowTrainerEndpoint endpoint) {
        return new ManageHandler(endpoint, (h, exchange) -> {
            TrainJobRef job = h.job(exchange, "get");
            endpoint.authorize(exchange, Access.events("list", job.namespace()));
            TrainJob found = h.jobs.get(job.namespace(), job.name());
            TrainJobHeaders.jobWithStatus(exchange.getMessage(), found, h.reported(exchange, found));
            exchange.getMessage()
                    .setBody(new TrainJobObjectEvents(endpoint.getClient(), endpoint.apiRetry(), h.steps)
                            .of(endpoint.watchedNamespace(job.namespace()), found));
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
            String runtime = exchange.getMessage().getHeader(RUNTIME, configuration.getRuntime(), String.class);
            if (runtime != null) {
                KubernetesNames.objectName(RUNTIME, runtime);
            }
            endpoint.authorize(exchange, Access.trainJobs("list", namespace, null));
            List<TrainJob> listed =
                    h.jobs.list(namespace, selector != null ? selector : configuration.getLabelSelector());
            if (runtime != null) {
                // as the SDK filters: by the name the job's runtimeRef gives, whatever its kind
                listed = listed.stream()
                        .filter(job -> job.getSpec() != null
                                && job.getSpec().runtimeRef() != null
                                && runtime.equals(job.getSpec().runtimeRef().name()))
                        .toList();
            }
            exchange.getMessage().setBody(listed);
            Map<String, List<TrainJobStep>> steps = new LinkedHashMap<>();
            h.steps
                    .of(endpoint.watchedNamespace(namespace), listed)
                    .forEach((job, of) -> steps.put(job.toString(), of));
            exchange.getMessage().setHeader(STEPS, steps);
            exchange.getMessage().setHeader(STATUSES, h.reported(exchange, namespace, listed));
        });
    }

    static ManageHandler delete(KubeflowTrainerEndpoint endpoint) {
        return new ManageHandler(endpoint, (h, exchange) -> {
            TrainJobRef job = h.job(exchange, "delete");
            Message out = exchange.getMessage();
            String propagation = out.getHeader(DELETE_PROPAGATION, String.class);
            out.setHeader(
                    DELETED,
                    h.jobs.delete(
                            job.namespace(),
                            job.name(),
                            propagation == null
                                    ? endpoint.getConfiguration().getDeletePropagation()
                                    : propagation(propagation)));
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
        throw new InvalidOptionException(
                DELETE_PROPAGATION,
                "'" + value + "' is not a deletion propagation; use"
                        + " Background (the default: the JobSet and pods go after the TrainJob), Foreground (before it) or"
                        + " Orphan (they stay)");
    }

    static ManageHandler suspend(KubeflowTrainerEndpoint endpoint) {
        return new ManageHandler(endpoint, (h, exchange) -> h.setSuspended(exchange, true));
    }

    static ManageHandler resume(KubeflowTrainerEndpoint endpoint) {
        return new ManageHandler(endpoint, (h, exchange) -> h.setSuspended(exchange, false));
    }

    /**
     * Suspends or resumes the job; one Kueue holds through its Workload, as Kueue documents (TrainJobManager), which
     * the caller (authorizeCaller) must then also be allowed to patch, asked before that write.
     */
    private void setSuspended(Exchange exchange, boolean suspended) {
        TrainJobRef ref = job(exchange, "patch");
        withSteps(
                exchange,
                jobs.setSuspended(
                        jobs.get(ref.namespace(), ref.name()),
                        suspended,
                        () -> endpoint.authorize(exchange, Access.workloads("patch", ref.namespace()))));
    }

    /** The job as the body, with its identity, status and steps. */
    private void withSteps(Exchange exchange, TrainJob job) {
        Message out = exchange.getMessage();
        TrainJobHeaders.jobWithStatus(out, job, reported(exchange, job));
        out.setHeader(
                STEPS, steps.of(endpoint.watchedNamespace(job.getMetadata().getNamespace()), job));
    }

    /**
     * The job's status as reported: for a job Kueue holds, what its Workload says, to a caller who may list the
     * namespace's Workloads (authorizeCaller); to one who may not, the job's own status.
     */
    private Map<String, ReportedStatus> reported(Exchange exchange, String namespace, List<TrainJob> listed) {
        Map<String, QueueStatus> queues = Map.of();
        if (listed.stream().anyMatch(QueueStatus::asksKueue)) {
            try {
                endpoint.authorize(exchange, Access.workloads("list", namespace));
                queues = QueueStatus.readAll(endpoint.getClient(), namespace, listed);
            } catch (AccessDeniedException denied) {
                // the caller's own right: without it, each job's own status
            }
        }
        Map<String, ReportedStatus> statuses = new LinkedHashMap<>();
        for (TrainJob job : listed) {
            statuses.put(
                    TrainJobRef.of(job).toString(),
                    ReportedStatus.of(job, queues.get(job.getMetadata().getUid())));
        }
        return statuses;
    }

    private ReportedStatus reported(Exchange exchange, TrainJob job) {
        if (QueueStatus.asksKueue(job)) {
            try {
                endpoint.authorize(
                        exchange, Access.workloads("list", job.getMetadata().getNamespace()));
            } catch (AccessDeniedException denied) {
                return ReportedStatus.own(job);
            }
        }
        return ReportedStatus.of(endpoint.getClient(), job);
    }
}
