package io.camelkubeflow.trainer.watch;

import io.camelkubeflow.trainer.api.JobSetLabels;
import io.camelkubeflow.trainer.api.TrainJob;
import io.camelkubeflow.trainer.api.TrainJobPhase;
import io.camelkubeflow.trainer.api.TrainJobRef;
import io.camelkubeflow.trainer.job.KueueWorkloads;
import io.camelkubeflow.trainer.runtime.RuntimeKind;
import io.camelkubeflow.trainer.support.DaemonThreads;
import io.camelkubeflow.trainer.support.Printable;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.KubernetesResourceList;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.FilterWatchListDeletable;
import io.fabric8.kubernetes.client.dsl.Resource;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.WeakHashMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.Executor;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The informers of one client, shared by everything that watches through it: one TrainJob informer per namespace
 * (waits, events consumers and progress all read it; an events consumer with a label selector gets one for its
 * selector, filtered by the API server) and one informer of TrainJob pods per namespace (log reads waiting for a pod,
 * progress counting ready pods), one informer per runtime kind (and namespace) that creates read their runtime
 * from, and, once a job in a Kueue queue is reported, one informer of Kueue's Workloads per namespace. TrainJobs and pods are cached as JSON text ({@link JsonItemStore}): TrainJobs without their managed fields
 * (the server-side-apply bookkeeping the Trainer writes on every job, a large part of it that nothing here reads; the
 * rest stays, those jobs are what routes receive), pods as summaries ({@link PodSummaries}). Each is started on first
 * use, with its first list done before it is handed out, so its cache is complete; all are stopped by {@link #close}.
 *
 * <p>Once an all-namespaces informer runs (an events consumer over all namespaces), it also serves the waits and log
 * reads of every namespace started after it ({@link #trainJobsServing}, {@link #trainJobPods}): one cache of each job
 * and pod, not a second per namespace. What waits on one namespace listens through {@link #listen}, one handler per
 * informer that hands each change to the listeners of its namespace: a handler of its own on a shared informer would
 * be replayed the whole cache by fabric8 when added, and told of every other namespace's change.
 *
 * <p>fabric8 stops an informer for good on a watch error it does not retry (an event it cannot read). Such an
 * informer is never handed out again: the next use of its scope starts a new one (the {@link WatchConnectionMonitor}
 * warns of the stopped one), and {@link #whenStopped} moves what listened to it (waits, log reads, events) to the new
 * one.
 */
public final class ClusterInformers implements AutoCloseable {
    private static final String BY_TRAINJOB = "trainjob";
    private static final Logger LOG = LoggerFactory.getLogger(ClusterInformers.class);

    private final KubernetesClient client;
    private final WatchConnectionMonitor connections;
    private final ConcurrentMap<Scope, SharedIndexInformer<TrainJob>> trainJobs = new ConcurrentHashMap<>();
    private final ConcurrentMap<Scope, SharedIndexInformer<Pod>> pods = new ConcurrentHashMap<>();
    private final ConcurrentMap<RuntimeScope, SharedIndexInformer<GenericKubernetesResource>> runtimes =
            new ConcurrentHashMap<>();
    private final ConcurrentMap<Scope, SharedIndexInformer<GenericKubernetesResource>> workloads =
            new ConcurrentHashMap<>();
    /** When (System.nanoTime) a scope's Workloads were found not served: Kueue not installed, or no right to them. */
    private final ConcurrentMap<Scope, Long> workloadsNotServed = new ConcurrentHashMap<>();
    /** How long Workloads found not served are not asked for again: Kueue may be installed, the right granted. */
    private static final long WORKLOADS_ASKED_AGAIN_NANOS = TimeUnit.MINUTES.toNanos(1);

    private static final String BY_JOB_UID = "job-uid";
    /** The one handler of each TrainJob and pod informer through which {@link #listen}'s listeners hear. */
    private final ConcurrentMap<SharedIndexInformer<?>, ByNamespace<?>> byNamespace = new ConcurrentHashMap<>();
    /** The pending {@link #awaitPods} and {@link #awaitEnd}: moved to a new informer when fabric8 stops theirs. */
    private final Set<Look<?, ?>> podLooks = ConcurrentHashMap.newKeySet();

    private final Set<Look<?, ?>> jobLooks = ConcurrentHashMap.newKeySet();
    /** The informers {@link #close} stopped: any other stopped informer was stopped by fabric8. */
    private final Set<SharedIndexInformer<?>> closedHere =
            Collections.synchronizedSet(Collections.newSetFromMap(new WeakHashMap<>()));
    /**
     * Runs {@link #whenStopped}'s actions: never on fabric8's thread, which a new informer's first list may need; one
     * thread, ended when idle, so a client's informers hold none.
     */
    private final Executor onStop = new ThreadPoolExecutor(
            0, 1, 10, TimeUnit.SECONDS, new LinkedBlockingQueue<>(), DaemonThreads.named("informer-stops"));
    /** How long {@link #whenStopped} waits before it tries again to move to an informer that could not start. */
    private static final long REPLACE_RETRY_MILLIS = 1000;
    /** The longest it waits between two tries, after failures doubled the wait. */
    private static final long REPLACE_RETRY_MAX_MILLIS = 30_000;
    /**
     * How many times {@link #close} began: what was started or asked for before a close is not moved or kept after
     * it (a new use after a close starts afresh).
     */
    private final AtomicInteger closes = new AtomicInteger();

    /** @param connections told of each informer started here, to report lost and restored watch connections */
    public ClusterInformers(KubernetesClient client, WatchConnectionMonitor connections) {
        this.client = client;
        this.connections = connections;
    }

    /** The client these informers watch through: for the reads an informer does not serve (a Kueue Workload). */
    KubernetesClient client() {
        return client;
    }

    /** A namespace (null: all) and a label selector (null: none). */
    private record Scope(String namespace, String labelSelector) {
        static final Scope ALL = new Scope(null, null);

        String describe() {
            return (namespace == null ? "all-namespaces" : namespace)
                    + (labelSelector == null ? "" : "?" + labelSelector);
        }
    }

    /** A runtime kind, and the namespace of a namespaced one (null for ClusterTrainingRuntimes). */
    private record RuntimeScope(RuntimeKind kind, String namespace) {}

    /**
     * The TrainJob informer of a namespace.
     *
     * @param namespace     the namespace, or null for all namespaces
     * @param labelSelector a selector the API server applies (e.g. {@code team=vision}), or null for every job
     */
    public SharedIndexInformer<TrainJob> trainJobs(String namespace, String labelSelector) {
        Scope scope = new Scope(namespace, labelSelector == null || labelSelector.isBlank() ? null : labelSelector);
        return running(trainJobs, scope, s -> {
            var all = client.resources(TrainJob.class);
            FilterWatchListDeletable<TrainJob, KubernetesResourceList<TrainJob>, Resource<TrainJob>> jobs =
                    s.namespace() == null ? all.inAnyNamespace() : all.inNamespace(s.namespace());
            if (s.labelSelector() != null) {
                jobs = jobs.withLabelSelector(s.labelSelector());
            }
            // nothing looks jobs up by namespace, so no such index (a set entry per cached job); run() blocks until
            // the first list is done: the cache is complete before anyone reads it
            SharedIndexInformer<TrainJob> informer = jobs.runnableInformer(0)
                    .removeNamespaceIndex()
                    .itemStore(new JsonItemStore<>(
                            TrainJob.class,
                            client.getKubernetesSerialization(),
                            job -> job.getMetadata().setManagedFields(null)))
                    .run();
            routeByNamespace(informer);
            connections.monitor("trainjobs/" + s.describe(), informer);
            whenStopped(informer, () -> jobLooks.forEach(look -> look.replacing(informer)), () -> {});
            return informer;
        });
    }

    /**
     * The TrainJob informer that serves a namespace's waits and log reads: the all-namespaces one without a selector
     * once one was started (restarted if fabric8 stopped it), else the namespace's own. Read its store by
     * {@code namespace/name}; listen to it through {@link #listen}.
     */
    public SharedIndexInformer<TrainJob> trainJobsServing(String namespace) {
        return trainJobs(trainJobs.containsKey(Scope.ALL) ? null : namespace, null);
    }

    /**
     * The runtime informer of a kind: all ClusterTrainingRuntimes, or the TrainingRuntimes of a namespace.
     *
     * @param namespace the namespace of TrainingRuntimes (ignored for ClusterTrainingRuntimes)
     */
    public SharedIndexInformer<GenericKubernetesResource> runtimes(RuntimeKind kind, String namespace) {
        return running(runtimes, new RuntimeScope(kind, kind.namespaced() ? namespace : null), s -> {
            var all = client.genericKubernetesResources(kind.context());
            SharedIndexInformer<GenericKubernetesResource> informer = s.namespace() == null
                    ? all.inform()
                    : all.inNamespace(s.namespace()).inform();
            connections.monitor(
                    kind.context().getPlural() + (s.namespace() == null ? "" : "/" + s.namespace()), informer);
            return informer;
        });
    }

    /**
     * The informer of the pods JobSet made for TrainJobs that serves a namespace (null: all), indexed by TrainJob:
     * the all-namespaces one once one was started, else the namespace's own.
     */
    public SharedIndexInformer<Pod> trainJobPods(String namespace) {
        return running(pods, pods.containsKey(Scope.ALL) ? Scope.ALL : new Scope(namespace, null), s -> {
            var all = client.pods();
            SharedIndexInformer<Pod> informer = (s.namespace() == null
                            ? all.inAnyNamespace()
                            : all.inNamespace(s.namespace()))
                    .withLabel(JobSetLabels.JOBSET_NAME)
                    .runnableInformer(0);
            informer.itemStore(
                    new JsonItemStore<>(Pod.class, client.getKubernetesSerialization(), PodSummaries::summarize));
            informer.removeNamespaceIndex()
                    .addIndexers(Map.of(
                            BY_TRAINJOB,
                            pod -> List.of(pod.getMetadata().getNamespace() + "/"
                                    + pod.getMetadata().getLabels().get(JobSetLabels.JOBSET_NAME))));
            informer.run();
            routeByNamespace(informer);
            connections.monitor("pods/" + s.describe(), informer);
            whenStopped(informer, () -> podLooks.forEach(look -> look.replacing(informer)), () -> {});
            return informer;
        });
    }

    /**
     * The informer of the Kueue Workloads made for jobs (those labelled with their job's uid) that serves a namespace
     * (null: all): the all-namespaces one once one was started, else the namespace's own. Empty while Workloads are
     * not served to this client (Kueue not installed, or no right to list and watch them: the scope is asked again a
     * minute later). Each Workload is cached as JSON text without what a status does not need (its pod sets, its
     * admission's assignments, its managed fields).
     */
    public Optional<SharedIndexInformer<GenericKubernetesResource>> workloads(String namespace) {
        Scope scope = workloads.containsKey(Scope.ALL) ? Scope.ALL : new Scope(namespace, null);
        Long refused = workloadsNotServed.get(scope);
        if (refused != null && System.nanoTime() - refused < WORKLOADS_ASKED_AGAIN_NANOS) {
            return Optional.empty();
        }
        try {
            return Optional.of(running(workloads, scope, s -> {
                var all = client.genericKubernetesResources(KueueWorkloads.WORKLOADS);
                SharedIndexInformer<GenericKubernetesResource> informer = (s.namespace() == null
                                ? all.inAnyNamespace()
                                : all.inNamespace(s.namespace()))
                        .withLabel(KueueWorkloads.JOB_UID_LABEL)
                        .runnableInformer(0);
                informer.itemStore(new JsonItemStore<>(
                        GenericKubernetesResource.class, client.getKubernetesSerialization(), QueueStatus::reduce));
                informer.removeNamespaceIndex()
                        .addIndexers(Map.of(
                                BY_JOB_UID,
                                workload -> List.of(
                                        workload.getMetadata().getLabels().get(KueueWorkloads.JOB_UID_LABEL))));
                try {
                    informer.run();
                } catch (RuntimeException e) {
                    informer.close();
                    throw e;
                }
                connections.monitor("workloads/" + s.describe(), informer);
                return informer;
            }));
        } catch (KubernetesClientException e) {
            if (!KueueWorkloads.notServed(e)) {
                throw e;
            }
            LOG.debug(
                    "Kueue Workloads are not served here ({}): TrainJobs are reported by their own status",
                    Printable.escape(e.getMessage()));
            workloadsNotServed.put(scope, System.nanoTime());
            return Optional.empty();
        }
    }

    /**
     * What Kueue says of a job that asks it ({@link QueueStatus#asksKueue}: the caller checks, before it starts
     * listening to Workloads), from the Workload informer serving {@code watched} (a namespace, or null: all): null
     * when the job has no active Workload, or Workloads are not served here.
     */
    public QueueStatus queueStatus(String watched, TrainJob job) {
        return workloads(watched)
                .map(informer -> QueueStatus.ofJob(
                        job,
                        informer.getIndexer()
                                .byIndex(BY_JOB_UID, job.getMetadata().getUid())))
                .orElse(null);
    }

    /** Gives a new TrainJob or pod informer the one handler its {@link #listen}ers hear through. */
    private <T extends HasMetadata> void routeByNamespace(SharedIndexInformer<T> informer) {
        ByNamespace<T> router = new ByNamespace<>();
        byNamespace.put(informer, router);
        informer.addEventHandler(router);
        whenStopped(informer, () -> byNamespace.remove(informer), () -> byNamespace.remove(informer));
    }

    /**
     * Hands {@code listener} each change {@code informer} (one of this class's TrainJob or pod informers) sees of
     * the objects of {@code namespace}, on the informer's event thread, until {@link #unlisten}. Nothing is replayed:
     * the listener reads what is there from the informer's store.
     */
    public <T extends HasMetadata> void listen(
            SharedIndexInformer<T> informer, String namespace, ResourceEventHandler<T> listener) {
        routerOf(informer).ifPresent(router -> router.add(namespace, listener));
    }

    /** Stops handing {@code listener} what {@code informer} sees of {@code namespace}. */
    public <T extends HasMetadata> void unlisten(
            SharedIndexInformer<T> informer, String namespace, ResourceEventHandler<T> listener) {
        routerOf(informer).ifPresent(router -> router.remove(namespace, listener));
    }

    /** The informer's router: none once it stopped (what listened to it has moved, or is moving, to a new one). */
    @SuppressWarnings("unchecked")
    private <T extends HasMetadata> Optional<ByNamespace<T>> routerOf(SharedIndexInformer<T> informer) {
        return Optional.ofNullable((ByNamespace<T>) byNamespace.get(informer));
    }

    /** An informer's one handler: each change goes to the listeners of its object's namespace, one after another. */
    private static final class ByNamespace<T extends HasMetadata> implements ResourceEventHandler<T> {
        private final ConcurrentMap<String, Set<ResourceEventHandler<T>>> listeners = new ConcurrentHashMap<>();

        void add(String namespace, ResourceEventHandler<T> listener) {
            listeners.compute(namespace, (n, present) -> {
                Set<ResourceEventHandler<T>> set = present != null ? present : ConcurrentHashMap.newKeySet();
                set.add(listener);
                return set;
            });
        }

        void remove(String namespace, ResourceEventHandler<T> listener) {
            listeners.computeIfPresent(namespace, (n, present) -> {
                present.remove(listener);
                return present.isEmpty() ? null : present;
            });
        }

        private void each(T object, Consumer<ResourceEventHandler<T>> change) {
            Set<ResourceEventHandler<T>> of = listeners.get(object.getMetadata().getNamespace());
            if (of == null) {
                return;
            }
            for (ResourceEventHandler<T> listener : of) {
                try {
                    change.accept(listener);
                } catch (RuntimeException e) {
                    // as fabric8 does for a handler of its own: the others still hear of the change
                    LOG.warn(
                            "A listener of {} {} failed on its change",
                            object.getKind(),
                            Printable.escape(object.getMetadata().getName()),
                            e);
                }
            }
        }

        @Override
        public void onAdd(T object) {
            each(object, listener -> listener.onAdd(object));
        }

        @Override
        public void onUpdate(T previous, T object) {
            each(object, listener -> listener.onUpdate(previous, object));
        }

        @Override
        public void onDelete(T object, boolean finalStateUnknown) {
            each(object, listener -> listener.onDelete(object, finalStateUnknown));
        }
    }

    /**
     * The scope's informer, started by {@code start} unless it has one that runs: fabric8 may have stopped it. One
     * started while {@link #close} ran (which may have missed it) is stopped and forgotten (IllegalStateException).
     */
    private <K, T> SharedIndexInformer<T> running(
            ConcurrentMap<K, SharedIndexInformer<T>> informers, K scope, Function<K, SharedIndexInformer<T>> start) {
        SharedIndexInformer<T> current = informers.get(scope);
        if (current != null && current.isRunning()) {
            return current;
        }
        int generation = closes.get();
        SharedIndexInformer<T> running = informers.compute(scope, (s, present) -> {
            if (present != null && present.isRunning()) {
                return present;
            }
            if (present != null) {
                // left to the monitor, which warns of it and forgets it
                present.close();
            }
            return start.apply(s);
        });
        if (closes.get() != generation) {
            informers.remove(scope, running);
            stop(running);
            throw new IllegalStateException("the client's informers were closed while one started");
        }
        return running;
    }

    /**
     * Runs {@code givenUp} once fabric8 stops {@code informer} for good (the scope's next use starts a new one), or
     * {@code closed} once {@link #close} stopped it; either on a thread of this class, never on fabric8's. When
     * {@code givenUp} fails (a new informer cannot start: the API server away as well), it runs again, a second later
     * and then at doubling intervals up to {@link #REPLACE_RETRY_MAX_MILLIS}, until it does not fail or this closes:
     * nothing else would move what listened to the stopped informer. So it must do nothing twice: move only what still
     * listens to {@code informer}.
     */
    public void whenStopped(SharedIndexInformer<?> informer, Runnable givenUp, Runnable closed) {
        int generation = closes.get();
        informer.stopped()
                .whenCompleteAsync(
                        (ignored, error) -> {
                            if (closedHere.contains(informer)) {
                                closed.run();
                            } else {
                                replace(givenUp, 0, generation);
                            }
                        },
                        onStop);
    }

    private void replace(Runnable givenUp, int failures, int generation) {
        if (closes.get() != generation) {
            return;
        }
        try {
            givenUp.run();
        } catch (RuntimeException e) {
            if (failures == 0) {
                LOG.warn(
                        "Could not start an informer in place of one fabric8 stopped (the API server away as well?);"
                                + " what listened to it tries again, every second at first: {}",
                        Printable.escape(e.getMessage()));
            }
            long delay = Math.min(REPLACE_RETRY_MAX_MILLIS, REPLACE_RETRY_MILLIS << Math.min(failures, 6));
            CompletableFuture.delayedExecutor(delay, TimeUnit.MILLISECONDS, onStop)
                    .execute(() -> replace(givenUp, failures + 1, generation));
        }
    }

    /**
     * The pods of one TrainJob, as a pod informer has them now.
     *
     * @param watched the namespace of the informer to read (null: the all-namespaces one)
     */
    public List<Pod> podsOf(String watched, TrainJobRef job) {
        return podsIn(trainJobPods(watched), job);
    }

    /** The pods of one TrainJob, as {@code informer} (a pod informer of this class) has them now. */
    static List<Pod> podsIn(SharedIndexInformer<Pod> informer, TrainJobRef job) {
        return informer.getIndexer().byIndex(BY_TRAINJOB, job.namespace() + "/" + job.name());
    }

    /**
     * Completes with the pods of a TrainJob that carry {@code labels} once they meet {@code condition}, looked at now
     * and on every change of the namespace's pods; cancel the future to stop looking.
     */
    public CompletableFuture<List<Pod>> awaitPods(
            String namespace, String jobName, Map<String, String> labels, Predicate<List<Pod>> condition) {
        TrainJobRef job = new TrainJobRef(namespace, jobName);
        return new Look<Pod, List<Pod>>(namespace, podLooks, () -> trainJobPods(namespace)) {
            @Override
            List<Pod> found(Pod changed, boolean deleted) {
                // the informer this look listens to: another may serve the namespace by now, and not have seen this
                List<Pod> matching = podsIn(informer, job).stream()
                        .filter(pod -> hasLabels(pod, labels))
                        .toList();
                return condition.test(matching) ? matching : null;
            }
        }.start();
    }

    /**
     * Completes with a TrainJob once it has ended: it is Complete or Failed as the TrainJob informer serving the
     * namespace has it,
     * or it was deleted (with its last state). A job the informer has not seen yet is waited for, never taken as
     * deleted. Cancel the future to stop looking.
     */
    public CompletableFuture<TrainJob> awaitEnd(String namespace, String jobName) {
        String key = namespace + "/" + jobName;
        return new Look<TrainJob, TrainJob>(namespace, jobLooks, () -> trainJobsServing(namespace)) {
            @Override
            TrainJob found(TrainJob changed, boolean deleted) {
                if (changed != null) {
                    boolean named = jobName.equals(changed.getMetadata().getName());
                    return named && (deleted || TrainJobPhase.of(changed).isTerminal()) ? changed : null;
                }
                TrainJob known = informer.getStore().getByKey(key);
                return known != null && TrainJobPhase.of(known).isTerminal() ? known : null;
            }
        }.start();
    }

    /**
     * A pending wait on an informer's cache: it looks now and on every change the informer sees, until
     * {@link #found} has an answer or its future is cancelled; moved to the scope's new informer when fabric8 stops
     * the one it listens to.
     *
     * @param <T> what the informer holds
     * @param <R> what the wait completes with
     */
    private abstract class Look<T extends HasMetadata, R> implements ResourceEventHandler<T> {
        final CompletableFuture<R> answer = new CompletableFuture<>();
        final String namespace;
        final Set<Look<?, ?>> pending;
        final Supplier<SharedIndexInformer<T>> scope;
        volatile SharedIndexInformer<T> informer;

        Look(String namespace, Set<Look<?, ?>> pending, Supplier<SharedIndexInformer<T>> scope) {
            this.namespace = namespace;
            this.pending = pending;
            this.scope = scope;
        }

        /**
         * The answer once it is there, else null.
         *
         * @param changed the object that changed (null: a look at the whole cache)
         * @param deleted whether {@code changed} was deleted
         */
        abstract R found(T changed, boolean deleted);

        CompletableFuture<R> start() {
            pending.add(this);
            answer.whenComplete((found, error) -> {
                pending.remove(this);
                // the informer listened to last: one registration, not one per informer moved through (each would
                // keep a stopped informer, cache and all, for as long as the look waits)
                SharedIndexInformer<T> last = informer;
                if (last != null) {
                    unlisten(last, namespace, this);
                }
            });
            on(scope.get());
            return answer;
        }

        /** Listens to {@code informer} (from now on, instead of the one it listened to) and looks. */
        void on(SharedIndexInformer<T> next) {
            SharedIndexInformer<T> before = informer;
            if (before != null) {
                unlisten(before, namespace, this);
            }
            informer = next;
            listen(next, namespace, this);
            if (answer.isDone()) {
                unlisten(next, namespace, this);
                return;
            }
            if (!next.isRunning()) {
                // stopped before this look was among its listeners, so not moved by its stop: move now
                on(scope.get());
                return;
            }
            look(null, false);
        }

        /** Moves to the scope's new informer if this look still listens to {@code stopped}. */
        void replacing(SharedIndexInformer<?> stopped) {
            if (informer == stopped && !answer.isDone()) {
                on(scope.get());
            }
        }

        private void look(T changed, boolean deleted) {
            if (answer.isDone()) {
                return;
            }
            R found = found(changed, deleted);
            if (found != null) {
                answer.complete(found);
            }
        }

        @Override
        public void onAdd(T object) {
            look(object, false);
        }

        @Override
        public void onUpdate(T previous, T object) {
            look(object, false);
        }

        @Override
        public void onDelete(T object, boolean finalStateUnknown) {
            look(object, true);
        }
    }

    private static boolean hasLabels(Pod pod, Map<String, String> labels) {
        Map<String, String> own = pod.getMetadata().getLabels();
        return own != null && own.entrySet().containsAll(labels.entrySet());
    }

    @Override
    public void close() {
        closes.incrementAndGet();
        trainJobs.values().forEach(this::stop);
        trainJobs.clear();
        pods.values().forEach(this::stop);
        pods.clear();
        runtimes.values().forEach(this::stop);
        runtimes.clear();
        workloads.values().forEach(this::stop);
        workloads.clear();
        workloadsNotServed.clear();
        byNamespace.clear();
    }

    private void stop(SharedIndexInformer<?> informer) {
        connections.forget(informer);
        closedHere.add(informer);
        informer.close();
    }
}
