package io.camelkubeflow.trainer.watch;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Predicate;

import io.camelkubeflow.trainer.api.TrainJob;
import io.camelkubeflow.trainer.job.DaemonThreads;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.FilterWatchListDeletable;
import io.fabric8.kubernetes.client.dsl.Resource;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.fabric8.kubernetes.api.model.KubernetesResourceList;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Emits one {@link TrainJobEvent} each time a TrainJob enters a new phase (or is deleted), from one informer. The
 * phase last emitted is kept per job, so informer resyncs and re-lists after a broken watch emit nothing twice.
 * Jobs that exist when the stream starts are reported only when asked to; their later changes always are. When
 * asked, it also emits Progress events for running jobs ({@link #emitProgressEvery}). Events are delivered one at a
 * time.
 */
public class TrainJobEventStream implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(TrainJobEventStream.class);
    private static final String BY_TRAINJOB = "trainjob";
    private final Map<String, TrainJobPhase> lastEmitted = new ConcurrentHashMap<>();
    private final Consumer<TrainJobEvent> listener;
    private final WatchConnectionMonitor connections;
    private SharedIndexInformer<TrainJob> informer;
    private KubernetesClient client;
    private String namespace;
    /** With progress: the pods of TrainJobs (by JobSet's label), the tick that looks, and the progress last emitted. */
    private SharedIndexInformer<Pod> pods;
    private ScheduledExecutorService progressTicks;
    private final Map<String, TrainJobProgress> lastProgress = new ConcurrentHashMap<>();
    private boolean closed;

    /** @param connections told of the informer this starts, to report lost and restored watch connections */
    public TrainJobEventStream(Consumer<TrainJobEvent> listener, WatchConnectionMonitor connections) {
        this.listener = listener;
        this.connections = connections;
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
        this.client = client;
        this.namespace = namespace;
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
                deleted(job);
            }
        });
        connections.monitor("events/" + watchedNamespace(), informer);
    }

    /** For the connection monitor's log and meters. */
    private String watchedNamespace() {
        return namespace == null ? "all-namespaces" : namespace;
    }

    // changed, deleted and emitProgress run on the informer's thread and the progress tick: one at a time, so the
    // listener gets one event at a time and a job's Progress never comes before its Running; close waits for the
    // event in hand, so what the listener does with it (a handled mark) is done before the stream is closed

    private synchronized void deleted(TrainJob job) {
        if (closed) {
            return;
        }
        lastEmitted.remove(job.getMetadata().getUid());
        lastProgress.remove(job.getMetadata().getUid());
        listener.accept(new TrainJobEvent(TrainJobEvent.DELETED, job, null, null, TrainJobProgress.reported(job)));
    }

    private synchronized void changed(TrainJob job) {
        if (closed) {
            return;
        }
        TrainJobPhase phase = TrainJobPhase.of(job);
        TrainJobPhase previous = lastEmitted.get(job.getMetadata().getUid());
        if (previous == TrainJobPhase.RUNNING && phase == TrainJobPhase.CREATED) {
            // a job that ran does not go back to Created: its child jobs are between two status writes
            return;
        }
        lastEmitted.put(job.getMetadata().getUid(), phase);
        if (previous != phase) {
            Condition condition = TrainJobPhase.decidingCondition(job);
            listener.accept(new TrainJobEvent(phase.displayName(), job, condition == null ? null : condition.getReason(),
                    condition == null ? null : condition.getMessage(), TrainJobProgress.reported(job)));
        }
    }

    /**
     * From now on, every {@code interval}, emits a Progress event for each running job whose progress changed since
     * the last one (the first look at a running job always emits): what its training code reports in trainerStatus,
     * else its ready and existing trainer pods. Pods are read from one more informer (pods labelled by JobSet, in the
     * stream's namespace), not polled. Call after {@link #start}.
     */
    public void emitProgressEvery(Duration interval) {
        var allPods = client.pods();
        pods = (namespace == null ? allPods.inAnyNamespace() : allPods.inNamespace(namespace))
                .withLabel(JobSetLabels.JOBSET_NAME).runnableInformer(0);
        pods.addIndexers(Map.of(BY_TRAINJOB, pod -> List.of(pod.getMetadata().getNamespace() + "/"
                + pod.getMetadata().getLabels().get(JobSetLabels.JOBSET_NAME))));
        pods.run();
        connections.monitor("pods/" + watchedNamespace(), pods);
        progressTicks = Executors.newSingleThreadScheduledExecutor(DaemonThreads.named("progress"));
        progressTicks.scheduleWithFixedDelay(this::emitProgress, interval.toMillis(), interval.toMillis(),
                TimeUnit.MILLISECONDS);
    }

    private synchronized void emitProgress() {
        if (closed) {
            return;
        }
        try {
            for (TrainJob job : informer.getStore().list()) {
                String uid = job.getMetadata().getUid();
                // the phase this stream last told of: progress only follows a Running event
                if (lastEmitted.get(uid) != TrainJobPhase.RUNNING) {
                    lastProgress.remove(uid);
                    continue;
                }
                TrainJobProgress progress = TrainJobProgress.reported(job);
                if (progress == null) {
                    progress = TrainJobProgress.ofPods(pods.getIndexer().byIndex(BY_TRAINJOB,
                            job.getMetadata().getNamespace() + "/" + job.getMetadata().getName()));
                }
                if (!progress.equals(lastProgress.put(uid, progress))) {
                    listener.accept(new TrainJobEvent(TrainJobEvent.PROGRESS, job, null, null, progress));
                }
            }
        } catch (RuntimeException e) {
            // one bad look must not end the ticks
            LOG.warn("Could not read the progress of running TrainJobs, trying again at the next tick: {}",
                    e.getMessage());
        }
    }

    @Override
    public synchronized void close() {
        closed = true;
        if (progressTicks != null) {
            progressTicks.shutdownNow();
            connections.forget(pods);
            pods.close();
        }
        if (informer != null) {
            connections.forget(informer);
            informer.close();
        }
    }
}
