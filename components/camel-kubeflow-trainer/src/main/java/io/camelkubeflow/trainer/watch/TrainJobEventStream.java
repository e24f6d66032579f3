package io.camelkubeflow.trainer.watch;

import io.camelkubeflow.trainer.api.TrainJob;
import io.camelkubeflow.trainer.api.TrainJobPhase;
import io.camelkubeflow.trainer.api.TrainJobRef;
import io.camelkubeflow.trainer.job.KueueWorkloads;
import io.camelkubeflow.trainer.support.DaemonThreads;
import io.camelkubeflow.trainer.support.Printable;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Emits one {@link TrainJobEvent} each time a TrainJob enters a new status (or is deleted), from the client's shared
 * TrainJob informer of the namespace; a job Kueue holds is reported as its Workload says ({@link ReportedStatus}:
 * Queued, Admitted, Preempted, Evicted, and a new event when Kueue's reason changes), read from the client's Workload
 * informer, which the stream also listens to: what Kueue decides is told when it decides it, not at the job's next
 * change. The status last emitted is kept per job, so informer resyncs and re-lists after a broken watch emit nothing
 * twice. Jobs that exist when the stream starts are reported only when asked to; their later changes always are.
 * When asked, it also emits Progress events for running jobs ({@link #emitProgressEvery}). Events are delivered one at
 * a time, on the stream's own thread: a slow listener never holds up the informer, which waits and other streams
 * share.
 */
public class TrainJobEventStream implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(TrainJobEventStream.class);
    private static final String RUNNING = TrainJobPhase.RUNNING.displayName();
    /** The status and reason each job was last reported in (its message is not kept: a new one alone is no news). */
    private final Map<String, ReportedStatus> lastEmitted = new ConcurrentHashMap<>();
    /**
     * For a job last reported evicted, and only then ({@link #remember}): the resourceVersion of the job as last heard
     * while it was.
     */
    private final Map<String, String> evictionToldOnVersion = new ConcurrentHashMap<>();

    private final Consumer<TrainJobEvent> listener;
    private final ClusterInformers informers;
    private final ExecutorService deliveries = Executors.newSingleThreadExecutor(DaemonThreads.named("events"));
    /** The namespace's informer; fabric8 may stop one for good, then a new one takes its place here. */
    private volatile SharedIndexInformer<TrainJob> informer;

    private ResourceEventHandler<TrainJob> handler;
    /** The Workload informer the stream listens to, once a job in a Kueue queue was seen (null: none yet). */
    private SharedIndexInformer<GenericKubernetesResource> workloads;

    private final ResourceEventHandler<GenericKubernetesResource> workloadHandler = new ResourceEventHandler<>() {
        @Override
        public void onAdd(GenericKubernetesResource workload) {
            deliver(() -> workloadChanged(workload));
        }

        @Override
        public void onUpdate(GenericKubernetesResource previous, GenericKubernetesResource workload) {
            deliver(() -> workloadChanged(workload));
        }

        @Override
        public void onDelete(GenericKubernetesResource workload, boolean finalStateUnknown) {
            // a job's end or deletion is its own informer's news
        }
    };
    private String namespace;
    private String labelSelector;
    /** With progress: the tick that looks, and the progress last emitted. */
    private ScheduledExecutorService progressTicks;

    private final Map<String, TrainJobProgress> lastProgress = new ConcurrentHashMap<>();
    private volatile boolean closed;
    /** Held while an event is given to the listener: one event at a time, and close waits for the one in hand. */
    private final ReentrantLock delivering = new ReentrantLock();
    /**
     * How long close waits for the event in hand: a listener stuck on it (a route waiting on an API server that is
     * down) must not hold its route's shutdown for ever.
     */
    private static final Duration CLOSE_WAIT = Duration.ofSeconds(10);

    /** @param informers the client's informers, whose TrainJob (and, for progress, pod) informers this reads */
    public TrainJobEventStream(Consumer<TrainJobEvent> listener, ClusterInformers informers) {
        this.listener = listener;
        this.informers = informers;
    }

    /**
     * @param namespace     the namespace to watch, or null for all namespaces
     * @param labelSelector e.g. {@code team=vision,app.kubernetes.io/managed-by=camel-kubeflow-trainer}, or null
     * @param emitExisting  whether jobs that exist now are reported once with their current phase
     * @param unhandledEnd  existing jobs that already ended and match this are reported once with their end even
     *                      without {@code emitExisting}: ends that happened while nobody listened (null: none)
     */
    public void start(String namespace, String labelSelector, boolean emitExisting, Predicate<TrainJob> unhandledEnd) {
        this.namespace = namespace;
        this.labelSelector = labelSelector;
        informer = informers.trainJobs(namespace, labelSelector);
        // jobs that exist before the stream are known first, so the informer's replay of them is not news
        for (TrainJob job : informer.getStore().list()) {
            if (emitExisting
                    || (unhandledEnd != null && TrainJobPhase.of(job).isTerminal() && unhandledEnd.test(job))) {
                changed(job);
            } else {
                remember(job, withoutMessage(knownStatus(job)));
            }
        }
        handler = new ResourceEventHandler<>() {
            @Override
            public void onAdd(TrainJob job) {
                deliver(() -> changed(job));
            }

            @Override
            public void onUpdate(TrainJob previous, TrainJob job) {
                deliver(() -> changed(job));
            }

            @Override
            public void onDelete(TrainJob job, boolean finalStateUnknown) {
                deliver(() -> deleted(job));
            }
        };
        informer.addEventHandler(handler);
        SharedIndexInformer<TrainJob> listened = informer;
        informers.whenStopped(listened, () -> listenToNewInformer(listened), () -> {});
    }

    /**
     * fabric8 stopped the informer for good: listens to the one that replaces it, which hands its cache to the handler
     * (what changed meanwhile is emitted, the rest is no news); a job the stopped one had and the new one has not was
     * deleted meanwhile. Nothing when the stream listens to another by now (a move tried again after it half
     * succeeded).
     */
    private void listenToNewInformer(SharedIndexInformer<TrainJob> stopped) {
        if (closed || informer != stopped) {
            return;
        }
        stopped.removeEventHandler(handler);
        SharedIndexInformer<TrainJob> jobs = informers.trainJobs(namespace, labelSelector);
        informer = jobs;
        for (TrainJob job : stopped.getStore().list()) {
            TrainJob now = jobs.getStore().get(job);
            if (now == null
                    || !now.getMetadata().getUid().equals(job.getMetadata().getUid())) {
                deliver(() -> deleted(job));
            }
        }
        jobs.addEventHandler(handler);
        informers.whenStopped(jobs, () -> listenToNewInformer(jobs), () -> {});
    }

    /** The status the job is in now, as a start knows it: its own when Kueue's word cannot be read. */
    private ReportedStatus knownStatus(TrainJob job) {
        try {
            return ReportedStatus.of(job, queueStatusOf(job));
        } catch (KubernetesClientException e) {
            return ReportedStatus.own(job);
        }
    }

    /**
     * What Kueue says of the job (null: nothing, or not Kueue's), from the Workload informer, which the stream listens
     * to from the first job in a queue on.
     */
    private QueueStatus queueStatusOf(TrainJob job) {
        if (!QueueStatus.asksKueue(job)) {
            return null;
        }
        hearWorkloads();
        return informers.queueStatus(namespace, job);
    }

    /** Listens to the Workload informer serving the stream's namespace, unless it does, or Workloads are not served. */
    private synchronized void hearWorkloads() {
        if (workloads != null || closed) {
            return;
        }
        informers.workloads(namespace).ifPresent(heard -> {
            workloads = heard;
            heard.addEventHandler(workloadHandler);
            informers.whenStopped(heard, () -> listenToNewWorkloads(heard), () -> {});
        });
    }

    /** fabric8 stopped the Workload informer for good: listens to the one that replaces it (replayed: no news). */
    private synchronized void listenToNewWorkloads(SharedIndexInformer<GenericKubernetesResource> stopped) {
        if (workloads != stopped) {
            return;
        }
        stopped.removeEventHandler(workloadHandler);
        workloads = null;
        hearWorkloads();
    }

    /**
     * A Workload changed: the job it was made for, as the stream's informer has it now, is looked at again; a job the
     * stream has not told of yet is not (its own first event comes and reads its Workload then).
     */
    private void workloadChanged(GenericKubernetesResource workload) {
        String uid = workload.getMetadata().getLabels().get(KueueWorkloads.JOB_UID_LABEL);
        if (uid == null || !lastEmitted.containsKey(uid)) {
            return;
        }
        workload.getMetadata().getOwnerReferences().stream()
                .filter(owner -> owner.getUid().equals(uid))
                .findFirst()
                .map(owner ->
                        informer.getStore().getByKey(workload.getMetadata().getNamespace() + "/" + owner.getName()))
                .filter(job -> uid.equals(job.getMetadata().getUid()))
                .ifPresent(this::changed);
    }

    /** Keeps the status the job was told in (or, at the start, is known in), and the job's version if evicted. */
    private void remember(TrainJob job, ReportedStatus told) {
        String uid = job.getMetadata().getUid();
        lastEmitted.put(uid, told);
        if (QueueStatus.isEviction(told.status()) && job.getMetadata().getResourceVersion() != null) {
            evictionToldOnVersion.put(uid, job.getMetadata().getResourceVersion());
        } else {
            evictionToldOnVersion.remove(uid);
        }
    }

    private static ReportedStatus withoutMessage(ReportedStatus status) {
        return new ReportedStatus(status.status(), status.reason(), null);
    }

    private void deliver(Runnable event) {
        try {
            deliveries.execute(event);
        } catch (RejectedExecutionException e) {
            // the stream closed while the informer was handing it this change: nobody listens any more
        }
    }

    // changed, deleted and emitProgress run on the delivery thread and the progress tick: one at a time, so the
    // listener gets one event at a time and a job's Progress never comes before its Running; close waits for the
    // event in hand (up to CLOSE_WAIT), so what the listener does with it (a handled mark) is done before the
    // stream is closed

    /** Runs {@code delivery} holding the delivery lock, unless the stream is closed. */
    private void whileOpen(Runnable delivery) {
        delivering.lock();
        try {
            if (!closed) {
                delivery.run();
            }
        } finally {
            delivering.unlock();
        }
    }

    private void deleted(TrainJob job) {
        whileOpen(() -> {
            lastEmitted.remove(job.getMetadata().getUid());
            evictionToldOnVersion.remove(job.getMetadata().getUid());
            lastProgress.remove(job.getMetadata().getUid());
            listener.accept(new TrainJobEvent(TrainJobEvent.DELETED, job, null, null, TrainJobProgress.reported(job)));
        });
    }

    private void changed(TrainJob job) {
        whileOpen(() -> changedWhileOpen(job));
    }

    private void changedWhileOpen(TrainJob job) {
        TrainJobPhase phase = TrainJobPhase.of(job);
        ReportedStatus previous = lastEmitted.get(job.getMetadata().getUid());
        if (previous != null && RUNNING.equals(previous.status()) && phase == TrainJobPhase.CREATED) {
            // a job that ran does not go back to Created: its child jobs are between two status writes
            return;
        }
        ReportedStatus now;
        try {
            now = ReportedStatus.of(job, queueStatusOf(job));
        } catch (KubernetesClientException e) {
            // Kueue's word on the job could not be read (its Workload informer could not start: the API server busy
            // or away). A job that runs is Running as far as anyone knows (its Workload's changes, once heard, say
            // more); for one that does not, unknown is no news, and its next change asks again
            LOG.debug(
                    "Cannot read the Kueue Workload of TrainJob {}: {}",
                    job.getMetadata().getName(),
                    Printable.escape(e.getMessage()));
            if (phase != TrainJobPhase.RUNNING) {
                return;
            }
            now = ReportedStatus.own(job);
        }
        if (previous != null && RUNNING.equals(previous.status()) && QueueStatus.ADMITTED.equals(now.status())) {
            // nor back to Admitted: Kueue is evicting it (it suspended the job before this stream's Workload informer
            // heard the eviction, which comes next)
            return;
        }
        String evictedVersion = evictionToldOnVersion.get(job.getMetadata().getUid());
        if (evictedVersion != null
                && RUNNING.equals(now.status())
                && evictedVersion.equals(job.getMetadata().getResourceVersion())) {
            // nor from an eviction back to Running on the job as it ran while evicted: Kueue has admitted it again (its
            // Workload's change heard first), and the job's suspension, which came before, is not heard yet
            return;
        }
        ReportedStatus told = withoutMessage(now);
        remember(job, told);
        if (!told.equals(previous)) {
            listener.accept(
                    new TrainJobEvent(now.status(), job, now.reason(), now.message(), TrainJobProgress.reported(job)));
        }
    }

    /**
     * From now on, every {@code interval}, emits a Progress event for each running job whose progress changed since
     * the last one (the first look at a running job always emits): what its training code reports in trainerStatus,
     * else its ready and existing trainer pods. Pods are read from one more informer (pods labelled by JobSet, in the
     * stream's namespace), not polled. Call after {@link #start}.
     */
    public void emitProgressEvery(Duration interval) {
        // started now, so the first tick finds the pods of the jobs running
        informers.trainJobPods(namespace);
        progressTicks = Executors.newSingleThreadScheduledExecutor(DaemonThreads.named("progress"));
        progressTicks.scheduleWithFixedDelay(
                this::emitProgress, interval.toMillis(), interval.toMillis(), TimeUnit.MILLISECONDS);
    }

    private void emitProgress() {
        whileOpen(this::emitProgressWhileOpen);
    }

    private void emitProgressWhileOpen() {
        try {
            for (TrainJob job : informer.getStore().list()) {
                String uid = job.getMetadata().getUid();
                // the phase this stream last told of: progress only follows a Running event
                ReportedStatus last = lastEmitted.get(uid);
                if (last == null || !RUNNING.equals(last.status())) {
                    lastProgress.remove(uid);
                    continue;
                }
                TrainJobProgress progress = TrainJobProgress.reported(job);
                if (progress == null) {
                    progress = TrainJobProgress.ofPods(informers.podsOf(namespace, TrainJobRef.of(job)));
                }
                if (!progress.equals(lastProgress.put(uid, progress))) {
                    listener.accept(new TrainJobEvent(TrainJobEvent.PROGRESS, job, null, null, progress));
                }
            }
        } catch (RuntimeException e) {
            // one bad look must not end the ticks
            LOG.warn(
                    "Could not read the progress of running TrainJobs, trying again at the next tick: {}",
                    e.getMessage());
        }
    }

    /**
     * Stops emitting; an event in hand is finished first (waited for up to {@link #CLOSE_WAIT}), so what the listener
     * does with it is done.
     */
    @Override
    public void close() {
        closed = true;
        try {
            if (delivering.tryLock(CLOSE_WAIT.toMillis(), TimeUnit.MILLISECONDS)) {
                delivering.unlock();
            } else {
                LOG.warn(
                        "Closed the TrainJob events of {} while its route still handles one after {}; that event is"
                                + " not marked handled and comes again at the next start",
                        namespace,
                        CLOSE_WAIT);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (progressTicks != null) {
            progressTicks.shutdownNow();
        }
        if (informer != null) {
            informer.removeEventHandler(handler);
        }
        synchronized (this) {
            if (workloads != null) {
                workloads.removeEventHandler(workloadHandler);
            }
        }
        // what is still queued finds the stream closed
        deliveries.shutdown();
    }
}
