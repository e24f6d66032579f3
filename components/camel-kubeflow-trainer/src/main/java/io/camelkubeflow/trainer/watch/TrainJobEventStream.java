package io.camelkubeflow.trainer.watch;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import java.util.function.Predicate;

import io.camelkubeflow.trainer.api.TrainJob;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.FilterWatchListDeletable;
import io.fabric8.kubernetes.client.dsl.Resource;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.fabric8.kubernetes.api.model.KubernetesResourceList;

/**
 * Emits one {@link TrainJobEvent} each time a TrainJob enters a new phase (or is deleted), from one informer. The
 * phase last emitted is kept per job, so informer resyncs and re-lists after a broken watch emit nothing twice.
 * Jobs that exist when the stream starts are reported only when asked to; their later changes always are.
 */
public class TrainJobEventStream implements AutoCloseable {
    private final Map<String, TrainJobPhase> lastEmitted = new ConcurrentHashMap<>();
    private final Consumer<TrainJobEvent> listener;
    private SharedIndexInformer<TrainJob> informer;

    public TrainJobEventStream(Consumer<TrainJobEvent> listener) {
        this.listener = listener;
    }

    /**
     * @param namespace     the namespace to watch, or null for all namespaces
     * @param labelSelector e.g. {@code team=vision,app.kubernetes.io/managed-by=camel-kubeflow-trainer}, or null
     * @param emitExisting  whether jobs that exist now are reported once with their current phase
     * @param unhandledEnd  existing jobs that already ended and match this are reported once with their end even
     *                      without {@code emitExisting}: ends that happened while nobody listened (null: none)
     */
    public void start(KubernetesClient client, String namespace, String labelSelector, boolean emitExisting,
            Predicate<TrainJob> unhandledEnd) {
        var all = client.resources(TrainJob.class);
        FilterWatchListDeletable<TrainJob, KubernetesResourceList<TrainJob>, Resource<TrainJob>> jobs
                = namespace == null ? all.inAnyNamespace() : all.inNamespace(namespace);
        if (labelSelector != null && !labelSelector.isBlank()) {
            jobs = jobs.withLabelSelector(labelSelector);
        }
        // jobs that exist before the watch are known first, so their initial ADDs are not news
        for (TrainJob job : jobs.list().getItems()) {
            if (emitExisting || (unhandledEnd != null && TrainJobPhase.of(job).isTerminal() && unhandledEnd.test(job))) {
                changed(job);
            } else {
                lastEmitted.put(job.getMetadata().getUid(), TrainJobPhase.of(job));
            }
        }
        informer = jobs.inform(new ResourceEventHandler<>() {
            @Override
            public void onAdd(TrainJob job) {
                changed(job);
            }

            @Override
            public void onUpdate(TrainJob previous, TrainJob job) {
                changed(job);
            }

            @Override
            public void onDelete(TrainJob job, boolean finalStateUnknown) {
                lastEmitted.remove(job.getMetadata().getUid());
                listener.accept(new TrainJobEvent(TrainJobEvent.DELETED, job, null, null));
            }
        });
    }

    private void changed(TrainJob job) {
        TrainJobPhase phase = TrainJobPhase.of(job);
        TrainJobPhase previous = lastEmitted.get(job.getMetadata().getUid());
        if (previous == TrainJobPhase.RUNNING && phase == TrainJobPhase.CREATED) {
            // a job that ran does not go back to Created: its child jobs are between two status writes
            return;
        }
        lastEmitted.put(job.getMetadata().getUid(), phase);
        if (previous != phase) {
            Condition condition = TrainJobPhase.decidingCondition(job);
            listener.accept(new TrainJobEvent(phase.displayName(), job,
                    condition == null ? null : condition.getReason(), condition == null ? null : condition.getMessage()));
        }
    }

    @Override
    public void close() {
        if (informer != null) {
            informer.close();
        }
    }
}
