package io.camelkubeflow.trainer.watch;

import io.camelkubeflow.trainer.api.JobSetLabels;
import io.camelkubeflow.trainer.api.TrainJob;
import io.camelkubeflow.trainer.api.TrainJobNotFoundException;
import io.camelkubeflow.trainer.api.TrainJobPhase;
import io.camelkubeflow.trainer.api.TrainJobRef;
import io.camelkubeflow.trainer.job.TrainJobManager;
import io.camelkubeflow.trainer.support.ApiRetry;
import io.camelkubeflow.trainer.support.DaemonThreads;
import io.camelkubeflow.trainer.support.TrainJobMdc;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Waits for TrainJobs to reach a phase without polling. The shared informer serving the namespace (one list, then one
 * watch connection, also serving events consumers; {@link ClusterInformers#trainJobsServing}) serves every wait in
 * that namespace, however many; fabric8's informer
 * re-lists after a dropped watch or
 * {@code 410 Gone}. A wait first looks at the informer's cache (and, on a miss, GETs the job), so a job that ended
 * before the wait began is seen at once. Waits hold no thread: each is a future completed from the watch events.
 */
public class TrainJobWatcher implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(TrainJobWatcher.class);

    private final KubernetesClient client;
    private final ClusterInformers informers;
    private final ConcurrentMap<String, NamespaceWatch> namespaces = new ConcurrentHashMap<>();
    private final ScheduledThreadPoolExecutor timeouts = timeoutScheduler();
    /** Pod lookups for failure details and a queueTimeout's Workload read run here, never on an event thread. */
    private final ExecutorService lookups = Executors.newFixedThreadPool(2, DaemonThreads.named("watch-lookups"));
    /**
     * Where a wait is completed, so what follows it (the rest of a route) never runs on the informer's event thread,
     * which every wait and events consumer of the informer's namespaces shares, nor on the one timeout thread: a
     * route that blocks holds one of these, not every other wait. Threads end when idle.
     */
    private final ThreadPoolExecutor completions = completionPool();

    /** Completes a wait on {@link #completions}; once the watcher is closed, nothing waits any more. */
    private void settle(Runnable completion) {
        try {
            completions.execute(completion);
        } catch (RejectedExecutionException closed) {
            // closed while the change came in: close ended the waits
        }
    }

    private static ThreadPoolExecutor completionPool() {
        ThreadPoolExecutor pool = new ThreadPoolExecutor(
                4, 4, 10, TimeUnit.SECONDS, new LinkedBlockingQueue<>(), DaemonThreads.named("wait-completions"));
        pool.allowCoreThreadTimeOut(true);
        return pool;
    }

    private static ScheduledThreadPoolExecutor timeoutScheduler() {
        ScheduledThreadPoolExecutor scheduler =
                new ScheduledThreadPoolExecutor(1, DaemonThreads.named("watch-timeouts"));
        // a wait that ends takes its timeout out of the queue at once, not hours later when it would have fired
        scheduler.setRemoveOnCancelPolicy(true);
        return scheduler;
    }

    /** @param informers the client's informers: waits read the TrainJob informer of their namespace */
    public TrainJobWatcher(KubernetesClient client, ClusterInformers informers) {
        this.client = client;
        this.informers = informers;
    }

    /**
     * @return completes with the result, or exceptionally (wrapped in a CompletionException) with
     *         {@link TrainJobWaitTimeoutException}, {@link TrainJobNotFoundException} or {@link TrainJobFailedException}
     * @param failOnOtherEnd when true, a job that ends otherwise than wanted (fails while Complete is wanted, ...)
     *                       completes the future with {@link TrainJobFailedException}; when false, with the result
     * @param retry          the caller's policy for the one GET a wait may make (a job the informer has not seen)
     * @param queueTimeout   how long the job may wait in a Kueue queue, suspended and not admitted, before the wait
     *                       fails with {@link TrainJobQueueTimeoutException}: from when the wait sees it queued, anew
     *                       after each eviction; zero or negative: no bound of its own
     */
    public CompletableFuture<WaitResult> await(
            String namespace,
            String name,
            TrainJobPhase target,
            Duration timeout,
            Duration queueTimeout,
            boolean failOnOtherEnd,
            ApiRetry retry) {
        return await(namespace, name, target, timeout, queueTimeout, failOnOtherEnd, retry, true);
    }

    /**
     * As the other await; {@code tellKueue} false: a timeout says the job's own status, not what its Kueue Workload
     * says (a caller who may not read the namespace's Workloads learns nothing of them through a wait).
     */
    public CompletableFuture<WaitResult> await(
            String namespace,
            String name,
            TrainJobPhase target,
            Duration timeout,
            Duration queueTimeout,
            boolean failOnOtherEnd,
            ApiRetry retry,
            boolean tellKueue) {
        NamespaceWatch watch = namespaces.computeIfAbsent(namespace, NamespaceWatch::new);
        Waiter waiter = new Waiter(
                watch,
                name,
                target,
                failOnOtherEnd,
                timeout,
                queueTimeout.isZero() || queueTimeout.isNegative() ? null : queueTimeout,
                tellKueue);
        watch.add(waiter);
        if (!timeout.isZero() && !timeout.isNegative()) {
            waiter.timeoutTask = timeouts.schedule(
                    () -> lookups.execute(() -> timedOut(waiter)), timeout.toMillis(), TimeUnit.MILLISECONDS);
            if (waiter.isDone()) {
                waiter.timeoutTask.cancel(false);
            }
        }
        TrainJob known = watch.informer.getStore().getByKey(namespace + "/" + name);
        if (known == null) {
            // created a moment ago: the informer may not have had the event yet
            known = new TrainJobManager(client, retry).find(namespace, name);
        }
        if (known == null) {
            waiter.completeExceptionally(TrainJobManager.notFound(namespace, name));
        } else {
            // on the caller's thread: the job's phase is known now
            evaluate(waiter, known, Runnable::run);
        }
        return waiter;
    }

    /** @param completing where a wait that reached its target is completed */
    private void evaluate(Waiter waiter, TrainJob job, Executor completing) {
        if (waiter.queueTimeout != null) {
            boundTimeInQueue(waiter, job);
        }
        TrainJobPhase phase = TrainJobPhase.of(job);
        waiter.lastPhase = phase;
        waiter.lastProgress = TrainJobProgress.reported(job);
        boolean reached =
                phase == waiter.target || (waiter.target == TrainJobPhase.RUNNING && phase == TrainJobPhase.COMPLETE);
        if (reached && phase != TrainJobPhase.FAILED) {
            WaitResult result = result(job, phase, null);
            completing.execute(() -> waiter.complete(result));
        } else if (reached || phase.isTerminal()) {
            // failed (wanted or not): find the failing pod off the event thread, then finish
            CompletableFuture.supplyAsync(() -> phase == TrainJobPhase.FAILED ? podDetail(job, waiter) : null, lookups)
                    .whenCompleteAsync(
                            (detail, error) -> finish(waiter, result(job, phase, detail), reached), completions);
        }
    }

    /**
     * Starts the wait's queueTimeout when Kueue holds its job suspended in a queue (not yet admitted, or evicted), and
     * stops it once the job is not.
     */
    private void boundTimeInQueue(Waiter waiter, TrainJob job) {
        boolean inQueue = QueueStatus.heldInQueue(job);
        synchronized (waiter) {
            if (inQueue && waiter.queueTask == null && !waiter.left) {
                int generation = ++waiter.queueGeneration;
                waiter.queueTask = timeouts.schedule(
                        () -> lookups.execute(() -> queueTimedOut(waiter, generation)),
                        waiter.queueTimeout.toMillis(),
                        TimeUnit.MILLISECONDS);
            } else if (!inQueue && waiter.queueTask != null) {
                waiter.queueTask.cancel(false);
                waiter.queueTask = null;
            }
        }
    }

    /**
     * The queueTimeout started as {@code generation} passed: unless the job left the queue meanwhile (that timeout
     * was cancelled or another started, or the job the informer has now is not queued), the wait fails with what
     * Kueue says of it now.
     */
    private void queueTimedOut(Waiter waiter, int generation) {
        String namespace = waiter.watch.namespace;
        TrainJob job = waiter.watch.informer.getStore().getByKey(namespace + "/" + waiter.name);
        synchronized (waiter) {
            if (waiter.queueTask == null
                    || waiter.queueGeneration != generation
                    || job == null
                    || !QueueStatus.heldInQueue(job)) {
                return;
            }
        }
        QueueStatus queue = null;
        if (waiter.tellKueue) {
            try {
                queue = QueueStatus.read(client, job);
            } catch (RuntimeException e) {
                // said as unread
            }
        }
        TrainJobQueueTimeoutException timedOut =
                new TrainJobQueueTimeoutException(namespace, waiter.name, waiter.queueTimeout, queue);
        // as every wait completes: not on this lookup thread, which the rest of the route would hold
        settle(() -> waiter.completeExceptionally(timedOut));
    }

    /**
     * The wait's timeout passed: it fails with the job's status as {@code get} reports it (for a job Kueue holds, one
     * read of its Workload: Queued and why), read here, on a lookup thread.
     */
    private void timedOut(Waiter waiter) {
        if (waiter.isDone()) {
            return;
        }
        TrainJob job = waiter.watch.informer.getStore().getByKey(waiter.watch.namespace + "/" + waiter.name);
        TrainJobPhase phase = waiter.lastPhase;
        ReportedStatus lastSeen = phase == null ? null : new ReportedStatus(phase.displayName(), null, null);
        if (job != null) {
            try {
                lastSeen = waiter.tellKueue ? ReportedStatus.of(client, job) : ReportedStatus.own(job);
            } catch (RuntimeException e) {
                lastSeen = ReportedStatus.own(job);
            }
        }
        TrainJobWaitTimeoutException timedOut = new TrainJobWaitTimeoutException(
                waiter.watch.namespace,
                waiter.name,
                waiter.target,
                waiter.timeout,
                lastSeen,
                job == null ? waiter.lastProgress : TrainJobProgress.reported(job));
        settle(() -> waiter.completeExceptionally(timedOut));
    }

    private void finish(Waiter waiter, WaitResult result, boolean reached) {
        if (reached || !waiter.failOnOtherEnd) {
            waiter.complete(result);
            return;
        }
        String name = result.trainJob().getMetadata().getName();
        StringBuilder message = new StringBuilder("TrainJob ")
                .append(waiter.watch.namespace)
                .append('/')
                .append(name)
                .append(" is ")
                .append(result.phase().displayName())
                .append(", not ")
                .append(waiter.target.displayName());
        if (result.reason() != null) {
            message.append(": ").append(result.reason());
        }
        if (result.message() != null) {
            message.append(": ").append(result.message());
        }
        if (result.podDetail() != null) {
            message.append("; ").append(result.podDetail());
        }
        waiter.completeExceptionally(new TrainJobFailedException(message.toString(), result));
    }

    /**
     * The failed container as the job's pods show it now or, when the pods are gone, as the wait saw it: the Job
     * controller deletes the pods of a Job that reached its backoff limit, often before the TrainJob says Failed.
     */
    private String podDetail(TrainJob job, Waiter waiter) {
        try {
            String now = FailedPodDetail.find(
                    client, job.getMetadata().getNamespace(), job.getMetadata().getName());
            return now != null ? now : waiter.podFailureSeen;
        } catch (RuntimeException e) {
            try (var log = TrainJobMdc.of(
                    job.getMetadata().getNamespace(), job.getMetadata().getName())) {
                LOG.debug(
                        "Could not read the pods of failed TrainJob {}",
                        job.getMetadata().getName(),
                        e);
            }
            return null;
        }
    }

    private static WaitResult result(TrainJob job, TrainJobPhase phase, String podDetail) {
        Condition condition = TrainJobPhase.decidingCondition(job);
        Instant created = job.getMetadata().getCreationTimestamp() == null
                ? null
                : OffsetDateTime.parse(job.getMetadata().getCreationTimestamp()).toInstant();
        Instant end = phase.isTerminal() && condition != null && condition.getLastTransitionTime() != null
                ? OffsetDateTime.parse(condition.getLastTransitionTime()).toInstant()
                : Instant.now();
        return new WaitResult(
                job,
                phase,
                condition == null ? null : condition.getReason(),
                condition == null ? null : condition.getMessage(),
                podDetail,
                created == null ? null : Duration.between(created, end),
                TrainJobProgress.reported(job));
    }

    @Override
    public void close() {
        namespaces.values().forEach(NamespaceWatch::close);
        namespaces.clear();
        timeouts.shutdownNow();
        lookups.shutdownNow();
        completions.shutdown();
    }

    /**
     * One wait, its future, and its timeout's task: before it completes it leaves its namespace's waits and cancels
     * its timeout, so whoever continues from it sees it no longer pending. (One object per wait, with no chained
     * stages or captured lambdas, keeps the heap per pending wait small.)
     */
    private static final class Waiter extends CompletableFuture<WaitResult> {
        final NamespaceWatch watch;
        final String name;
        final TrainJobPhase target;
        final boolean failOnOtherEnd;
        final Duration timeout;
        /** null: no bound on the time in a Kueue queue. */
        final Duration queueTimeout;
        /** Whether a timeout may say what the job's Kueue Workload says. */
        final boolean tellKueue;

        volatile ScheduledFuture<?> timeoutTask;
        /** Runs out the queueTimeout while the job is in a Kueue queue; null while it is not. Guarded by this. */
        ScheduledFuture<?> queueTask;
        /** Which queueTimeout runs: one more each time the job enters the queue. Guarded by this. */
        int queueGeneration;
        /** Set when the wait ends: no queueTimeout starts after. Guarded by this. */
        boolean left;

        volatile TrainJobPhase lastPhase;
        volatile TrainJobProgress lastProgress;
        /** The first failed container a pod of the job showed while the wait was pending. */
        volatile String podFailureSeen;

        Waiter(
                NamespaceWatch watch,
                String name,
                TrainJobPhase target,
                boolean failOnOtherEnd,
                Duration timeout,
                Duration queueTimeout,
                boolean tellKueue) {
            this.tellKueue = tellKueue;
            this.watch = watch;
            this.name = name;
            this.target = target;
            this.failOnOtherEnd = failOnOtherEnd;
            this.timeout = timeout;
            this.queueTimeout = queueTimeout;
        }

        @Override
        public boolean complete(WaitResult result) {
            leave();
            return super.complete(result);
        }

        @Override
        public boolean completeExceptionally(Throwable error) {
            leave();
            return super.completeExceptionally(error);
        }

        @Override
        public boolean cancel(boolean mayInterruptIfRunning) {
            leave();
            return super.cancel(mayInterruptIfRunning);
        }

        private void leave() {
            watch.remove(this);
            ScheduledFuture<?> pending = timeoutTask;
            if (pending != null) {
                pending.cancel(false);
            }
            synchronized (this) {
                left = true;
                if (queueTask != null) {
                    queueTask.cancel(false);
                }
            }
        }
    }

    /** Timeouts still queued: one per pending wait that has a timeout, none for a wait that ended. */
    int queuedTimeouts() {
        return timeouts.getQueue().size();
    }

    /** How many waits are pending, in all namespaces. */
    public int pendingWaits() {
        return namespaces.values().stream()
                .mapToInt(watch ->
                        watch.waiters.values().stream().mapToInt(List::size).sum())
                .sum();
    }

    /** The waits of one namespace, by job name, and their listener on the informer serving the namespace. */
    private final class NamespaceWatch implements ResourceEventHandler<TrainJob> {
        final String namespace;
        /** By job name; most jobs have one wait, so an immutable list, replaced on each change, not a set per job. */
        final ConcurrentMap<String, List<Waiter>> waiters = new ConcurrentHashMap<>();
        /** The namespace's informers; fabric8 may stop one for good, then a new one takes its place here. */
        volatile SharedIndexInformer<TrainJob> informer;

        volatile SharedIndexInformer<Pod> pods;
        /** Notes each failed container while its job is waited for: it may be deleted before the job says Failed. */
        final ResourceEventHandler<Pod> podFailures = new ResourceEventHandler<>() {
            @Override
            public void onAdd(Pod pod) {
                note(pod);
            }

            @Override
            public void onUpdate(Pod previous, Pod pod) {
                note(pod);
            }

            @Override
            public void onDelete(Pod pod, boolean finalStateUnknown) {
                note(pod);
            }
        };

        NamespaceWatch(String namespace) {
            this.namespace = namespace;
            listenToJobs();
            listenToPods();
        }

        /**
         * Listens to the namespace's TrainJob informer (its first list is done, so its cache is complete before any
         * wait reads it). When fabric8 stops it for good, the waits stay and listen to the new one, each checked
         * against its cache at once; when {@link ClusterInformers#close} stops it, they fail.
         */
        private void listenToJobs() {
            SharedIndexInformer<TrainJob> before = informer;
            if (before != null) {
                informers.unlisten(before, namespace, this);
            }
            SharedIndexInformer<TrainJob> jobs = informers.trainJobsServing(namespace);
            informer = jobs;
            informers.listen(jobs, namespace, this);
            informers.whenStopped(jobs, () -> whileKept(informer == jobs, this::listenToJobs), () -> {
                if (namespaces.remove(namespace, this)) {
                    RuntimeException cause =
                            new IllegalStateException("the TrainJob watch of namespace " + namespace + " stopped");
                    waiters.values().forEach(list -> list.forEach(w -> w.completeExceptionally(cause)));
                }
            });
            if (before != null) {
                // what the waits missed while no informer watched: a job deleted meanwhile is in no cache now
                waiters.forEach((name, waiting) -> {
                    TrainJob job = jobs.getStore().getByKey(namespace + "/" + name);
                    if (job == null) {
                        deleted(name);
                    } else {
                        waiting.forEach(w -> evaluate(w, job, TrainJobWatcher.this::settle));
                    }
                });
            }
        }

        /** Listens to the namespace's pod informer, and to the new one if fabric8 stops it for good. */
        private void listenToPods() {
            SharedIndexInformer<Pod> before = pods;
            if (before != null) {
                informers.unlisten(before, namespace, podFailures);
            }
            SharedIndexInformer<Pod> jobPods = informers.trainJobPods(namespace);
            pods = jobPods;
            informers.listen(jobPods, namespace, podFailures);
            if (before != null) {
                // a container that failed while no informer watched, on a pod the new one still has
                waiters.keySet()
                        .forEach(name -> ClusterInformers.podsIn(jobPods, new TrainJobRef(namespace, name))
                                .forEach(this::note));
            }
            informers.whenStopped(jobPods, () -> whileKept(pods == jobPods, this::listenToPods), () -> {});
        }

        /**
         * Moves to the informer that replaces one fabric8 stopped, unless this namespace's waits are gone or no longer
         * listen to the stopped one (a move tried again after it half succeeded).
         */
        private void whileKept(boolean onTheStopped, Runnable listen) {
            if (onTheStopped && namespaces.get(namespace) == this) {
                listen.run();
            }
        }

        void add(Waiter waiter) {
            waiters.merge(
                    waiter.name,
                    List.of(waiter),
                    (present, added) ->
                            Stream.concat(present.stream(), added.stream()).toList());
        }

        void remove(Waiter waiter) {
            waiters.computeIfPresent(waiter.name, (n, present) -> {
                List<Waiter> rest = present.stream().filter(w -> w != waiter).toList();
                return rest.isEmpty() ? null : rest;
            });
        }

        private void note(Pod pod) {
            List<Waiter> waiting = waiters.get(pod.getMetadata().getLabels().get(JobSetLabels.JOBSET_NAME));
            String detail = waiting == null ? null : FailedPodDetail.describe(pod);
            if (detail != null) {
                waiting.stream().filter(w -> w.podFailureSeen == null).forEach(w -> w.podFailureSeen = detail);
            }
        }

        private List<Waiter> of(TrainJob job) {
            return waiters.getOrDefault(job.getMetadata().getName(), List.of());
        }

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
            deleted(job.getMetadata().getName());
        }

        private void deleted(String name) {
            waiters.getOrDefault(name, List.of())
                    .forEach(w -> settle(() ->
                            w.completeExceptionally(new TrainJobNotFoundException("TrainJob " + namespace + "/" + name
                                    + " was deleted while waiting" + " for it to become " + w.target.displayName()))));
        }

        private void changed(TrainJob job) {
            of(job).forEach(w -> evaluate(w, job, TrainJobWatcher.this::settle));
        }

        void close() {
            informers.unlisten(informer, namespace, this);
            informers.unlisten(pods, namespace, podFailures);
        }
    }
}
