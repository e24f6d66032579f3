package io.camelkubeflow.trainer.watch;

import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.function.Predicate;

import io.camelkubeflow.trainer.api.JobSetLabels;
import io.camelkubeflow.trainer.api.TrainJob;
import io.camelkubeflow.trainer.api.TrainJobRef;
import io.camelkubeflow.trainer.runtime.RuntimeKind;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.KubernetesResourceList;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.FilterWatchListDeletable;
import io.fabric8.kubernetes.client.dsl.Resource;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;

/**
 * The informers of one client, shared by everything that watches through it: one TrainJob informer per namespace
 * (waits, events consumers and progress all read it; an events consumer with a label selector gets one for its
 * selector, filtered by the API server) and one informer of TrainJob pods per namespace (log reads waiting for a pod,
 * progress counting ready pods), and one informer per runtime kind (and namespace) that creates read their runtime
 * from. Each is started on first use, with its first list done before it is handed out, so
 * its cache is complete; all are stopped by {@link #close}.
 */
public final class ClusterInformers implements AutoCloseable {
    private static final String BY_TRAINJOB = "trainjob";

    private final KubernetesClient client;
    private final WatchConnectionMonitor connections;
    private final ConcurrentMap<Scope, SharedIndexInformer<TrainJob>> trainJobs = new ConcurrentHashMap<>();
    private final ConcurrentMap<Scope, SharedIndexInformer<Pod>> pods = new ConcurrentHashMap<>();
    private final ConcurrentMap<RuntimeScope, SharedIndexInformer<GenericKubernetesResource>> runtimes
            = new ConcurrentHashMap<>();

    /** @param connections told of each informer started here, to report lost and restored watch connections */
    public ClusterInformers(KubernetesClient client, WatchConnectionMonitor connections) {
        this.client = client;
        this.connections = connections;
    }

    /** A namespace (null: all) and a label selector (null: none). */
    private record Scope(String namespace, String labelSelector) {
        String describe() {
            return (namespace == null ? "all-namespaces" : namespace) + (labelSelector == null ? "" : "?" + labelSelector);
        }
    }

    /** A runtime kind, and the namespace of a namespaced one (null for ClusterTrainingRuntimes). */
    private record RuntimeScope(RuntimeKind kind, String namespace) {
    }

    /**
     * The TrainJob informer of a namespace.
     *
     * @param namespace     the namespace, or null for all namespaces
     * @param labelSelector a selector the API server applies (e.g. {@code team=vision}), or null for every job
     */
    public SharedIndexInformer<TrainJob> trainJobs(String namespace, String labelSelector) {
        Scope scope = new Scope(namespace, labelSelector == null || labelSelector.isBlank() ? null : labelSelector);
        return trainJobs.computeIfAbsent(scope, s -> {
            var all = client.resources(TrainJob.class);
            FilterWatchListDeletable<TrainJob, KubernetesResourceList<TrainJob>, Resource<TrainJob>> jobs
                    = s.namespace() == null ? all.inAnyNamespace() : all.inNamespace(s.namespace());
            if (s.labelSelector() != null) {
                jobs = jobs.withLabelSelector(s.labelSelector());
            }
            // nothing looks jobs up by namespace, so no such index (a set entry per cached job); run() blocks until
            // the first list is done: the cache is complete before anyone reads it
            SharedIndexInformer<TrainJob> informer = jobs.runnableInformer(0).removeNamespaceIndex().run();
            connections.monitor("trainjobs/" + s.describe(), informer);
            return informer;
        });
    }

    /**
     * The runtime informer of a kind: all ClusterTrainingRuntimes, or the TrainingRuntimes of a namespace.
     *
     * @param namespace the namespace of TrainingRuntimes (ignored for ClusterTrainingRuntimes)
     */
    public SharedIndexInformer<GenericKubernetesResource> runtimes(RuntimeKind kind, String namespace) {
        return runtimes.computeIfAbsent(new RuntimeScope(kind, kind.namespaced() ? namespace : null), s -> {
            var all = client.genericKubernetesResources(kind.context());
            SharedIndexInformer<GenericKubernetesResource> informer = s.namespace() == null ? all.inform()
                    : all.inNamespace(s.namespace()).inform();
            connections.monitor(kind.context().getPlural() + (s.namespace() == null ? "" : "/" + s.namespace()),
                    informer);
            return informer;
        });
    }

    /** The informer of the pods JobSet made for TrainJobs in a namespace (null: all), indexed by TrainJob. */
    public SharedIndexInformer<Pod> trainJobPods(String namespace) {
        return pods.computeIfAbsent(new Scope(namespace, null), s -> {
            var all = client.pods();
            SharedIndexInformer<Pod> informer = (s.namespace() == null ? all.inAnyNamespace()
                    : all.inNamespace(s.namespace())).withLabel(JobSetLabels.JOBSET_NAME).runnableInformer(0);
            informer.removeNamespaceIndex().addIndexers(Map.of(BY_TRAINJOB, pod -> List.of(
                    pod.getMetadata().getNamespace() + "/"
                            + pod.getMetadata().getLabels().get(JobSetLabels.JOBSET_NAME))));
            informer.run();
            connections.monitor("pods/" + s.describe(), informer);
            return informer;
        });
    }

    /**
     * The pods of one TrainJob, as a pod informer has them now.
     *
     * @param watched the namespace of the informer to read (null: the all-namespaces one)
     */
    public List<Pod> podsOf(String watched, TrainJobRef job) {
        return trainJobPods(watched).getIndexer().byIndex(BY_TRAINJOB, job.namespace() + "/" + job.name());
    }

    /**
     * Completes with the pods of a TrainJob that carry {@code labels} once they meet {@code condition}, looked at now
     * and on every change of the namespace's pods; cancel the future to stop looking.
     */
    public CompletableFuture<List<Pod>> awaitPods(String namespace, String jobName, Map<String, String> labels,
            Predicate<List<Pod>> condition) {
        SharedIndexInformer<Pod> informer = trainJobPods(namespace);
        CompletableFuture<List<Pod>> found = new CompletableFuture<>();
        Runnable look = () -> {
            List<Pod> matching = podsOf(namespace, new TrainJobRef(namespace, jobName)).stream().filter(pod -> hasLabels(pod, labels)).toList();
            if (condition.test(matching)) {
                found.complete(matching);
            }
        };
        ResourceEventHandler<Pod> onChange = new ResourceEventHandler<>() {
            @Override
            public void onAdd(Pod pod) {
                look.run();
            }

            @Override
            public void onUpdate(Pod previous, Pod pod) {
                look.run();
            }

            @Override
            public void onDelete(Pod pod, boolean finalStateUnknown) {
                look.run();
            }
        };
        informer.addEventHandler(onChange);
        found.whenComplete((pods, error) -> informer.removeEventHandler(onChange));
        look.run();
        return found;
    }

    private static boolean hasLabels(Pod pod, Map<String, String> labels) {
        Map<String, String> own = pod.getMetadata().getLabels();
        return own != null && own.entrySet().containsAll(labels.entrySet());
    }

    @Override
    public void close() {
        trainJobs.values().forEach(this::stop);
        trainJobs.clear();
        pods.values().forEach(this::stop);
        pods.clear();
        runtimes.values().forEach(this::stop);
        runtimes.clear();
    }

    private void stop(SharedIndexInformer<?> informer) {
        connections.forget(informer);
        informer.close();
    }
}
