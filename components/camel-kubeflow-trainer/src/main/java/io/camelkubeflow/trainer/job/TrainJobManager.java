package io.camelkubeflow.trainer.job;

import io.camelkubeflow.trainer.api.KubernetesNames;
import io.camelkubeflow.trainer.api.TrainJob;
import io.camelkubeflow.trainer.api.TrainJobNotFoundException;
import io.camelkubeflow.trainer.api.TrainJobPhase;
import io.camelkubeflow.trainer.support.ApiRetry;
import io.fabric8.kubernetes.api.model.DeletionPropagation;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.Resource;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import java.net.HttpURLConnection;
import java.time.Instant;
import java.util.List;

/**
 * Reads, lists, suspends, resumes and deletes TrainJobs, every call retried as {@link ApiRetry} says. Every namespace
 * and name is checked ({@link KubernetesNames}) before it becomes part of an API path.
 */
public class TrainJobManager {
    private final KubernetesClient client;
    private final ApiRetry retry;

    public TrainJobManager(KubernetesClient client, ApiRetry retry) {
        this.client = client;
        this.retry = retry.forClient(client);
    }

    /** The job as it is now; a missing one is {@link TrainJobNotFoundException}. */
    public TrainJob get(String namespace, String name) {
        TrainJob job = find(namespace, name);
        if (job == null) {
            throw notFound(namespace, name);
        }
        return job;
    }

    /** The job as it is now, or null when there is none. */
    public TrainJob find(String namespace, String name) {
        var job = one(namespace, name);
        return retry.call("GET TrainJob " + namespace + "/" + name, job::get);
    }

    /**
     * @param namespace     the namespace, or null for every namespace
     * @param labelSelector e.g. {@code team=vision}, or null for all
     */
    public List<TrainJob> list(String namespace, String labelSelector) {
        var jobs = client.resources(TrainJob.class);
        var scope = namespace == null
                ? jobs.inAnyNamespace()
                : jobs.inNamespace(KubernetesNames.namespace("namespace", namespace));
        var selected =
                labelSelector == null || labelSelector.isBlank() ? scope : scope.withLabelSelector(labelSelector);
        return retry.call("list TrainJobs" + (namespace == null ? "" : " in " + namespace), selected::list)
                .getItems();
    }

    /**
     * Deletes the job; its JobSet and pods go with it as {@code propagation} says (the API server's
     * garbage collector: Background at once, Foreground before the job itself, Orphan never).
     *
     * @return false when there was no such job (deleting is idempotent)
     */
    public boolean delete(String namespace, String name, DeletionPropagation propagation) {
        var job = one(namespace, name).withPropagationPolicy(propagation);
        return !retry.call("delete TrainJob " + namespace + "/" + name, job::delete)
                .isEmpty();
    }

    /**
     * Suspends or resumes {@code job} (as just read). One Kueue holds (it names a LocalQueue, has not ended, and Kueue
     * made it a Workload) is suspended as Kueue documents: its Workload is deactivated ({@code spec.active: false}),
     * which evicts it if it runs and keeps it out of the queue; and resumed by activating its Workload again, which
     * queues it again (Kueue unsuspends it when it admits it). Resuming one whose Workload is active, or acting on one
     * Kueue has made no Workload for yet, is refused ({@link TrainJobHeldByKueueException}): Kueue decides when it
     * runs, and would suspend it again. Where Kueue is not installed (Workloads are a 404: the label is only a label)
     * the job's {@code spec.suspend} is set; where this client may not read them (403) nothing is written: setting
     * {@code spec.suspend} behind Kueue's back would start a queued job's pods.
     *
     * @param beforeWorkloadWrite run before the job's Workload is written (the caller's right to patch Workloads)
     * @return the job as it is after the write (for one Kueue holds, before Kueue has acted on it)
     */
    public TrainJob setSuspended(TrainJob job, boolean suspended, Runnable beforeWorkloadWrite) {
        String namespace = job.getMetadata().getNamespace();
        String name = job.getMetadata().getName();
        if (!KueueWorkloads.inQueue(job) || TrainJobPhase.of(job).isTerminal()) {
            return setSuspended(namespace, name, suspended);
        }
        List<GenericKubernetesResource> labelled;
        try {
            labelled = retry.call(
                    "list the Kueue Workloads of TrainJob " + namespace + "/" + name,
                    () -> KueueWorkloads.labelledFor(client, job));
        } catch (KubernetesClientException e) {
            if (e.getCode() != HttpURLConnection.HTTP_NOT_FOUND) {
                throw e;
            }
            return setSuspended(namespace, name, suspended);
        }
        String queue = job.getMetadata().getLabels().get(TrainJobMetadata.QUEUE_LABEL);
        GenericKubernetesResource workload = KueueWorkloads.ownOf(job, labelled)
                .orElseThrow(() -> new TrainJobHeldByKueueException(
                        namespace,
                        name,
                        "it names LocalQueue " + queue
                                + " and Kueue has not made its Workload yet; try again in a moment"));
        boolean active = KueueWorkloads.active(workload);
        if (!suspended && active) {
            throw new TrainJobHeldByKueueException(
                    namespace,
                    name,
                    "it is in LocalQueue " + queue + ", and Kueue"
                            + " resumes it when it admits it (a job resumed by hand would be suspended again); resume only"
                            + " requeues a job suspended through Kueue");
        }
        if (active == suspended) {
            beforeWorkloadWrite.run();
            String patch = "{\"spec\":{\"active\":" + !suspended + "}}";
            retry.call(
                    (suspended ? "deactivate" : "activate") + " the Kueue Workload of TrainJob " + namespace + "/"
                            + name,
                    () -> client.genericKubernetesResources(KueueWorkloads.WORKLOADS)
                            .inNamespace(namespace)
                            // the Workload as listed: fabric8 would GET one named only
                            .resource(workload)
                            .patch(PatchContext.of(PatchType.JSON_MERGE), patch));
        }
        return get(namespace, name);
    }

    /** Sets the job's {@code spec.suspend}: for a job no queue manager holds (the other setSuspended tells). */
    public TrainJob setSuspended(String namespace, String name, boolean suspended) {
        String patch = "{\"spec\":{\"suspend\":" + suspended + "}}";
        var job = one(namespace, name);
        try {
            return retry.call(
                    (suspended ? "suspend" : "resume") + " TrainJob " + namespace + "/" + name,
                    () -> job.patch(PatchContext.of(PatchType.JSON_MERGE), patch));
        } catch (KubernetesClientException e) {
            if (e.getCode() == HttpURLConnection.HTTP_NOT_FOUND) {
                throw notFound(namespace, name);
            }
            throw e;
        }
    }

    /**
     * Records that a finished job's log was read to its end, when the job has a TTL: its TTL then runs from now, so
     * the reaper does not delete a job whose log was still being captured.
     */
    public void markLogsCaptured(String namespace, String name) {
        TrainJob job = find(namespace, name);
        if (job == null
                || !TrainJobMetadata.hasTtl(job)
                || !TrainJobPhase.of(job).isTerminal()) {
            return;
        }
        try {
            annotate(
                    namespace,
                    name,
                    TrainJobMetadata.LOGS_CAPTURED_ANNOTATION,
                    Instant.now().toString());
        } catch (KubernetesClientException e) {
            // deleted meanwhile (its TTL ran out, or someone removed it): there is nothing left to mark
            if (e.getCode() != HttpURLConnection.HTTP_NOT_FOUND) {
                throw e;
            }
        }
    }

    /** Sets one annotation on the job (a JSON merge patch: nothing else of the job is touched). */
    public void annotate(String namespace, String name, String key, String value) {
        String patch = "{\"metadata\":{\"annotations\":{\"" + key + "\":\"" + value + "\"}}}";
        var job = one(namespace, name);
        retry.call(
                "annotate TrainJob " + namespace + "/" + name + " with " + key,
                () -> job.patch(PatchContext.of(PatchType.JSON_MERGE), patch));
    }

    /** The API resource of one job, once its namespace and name are names the API server could hold. */
    private Resource<TrainJob> one(String namespace, String name) {
        return client.resources(TrainJob.class)
                .inNamespace(KubernetesNames.namespace("namespace", namespace))
                .withName(KubernetesNames.trainJobName("name", name));
    }

    /** The refusal of a job that does not exist: one wording for every operation and wait. */
    public static TrainJobNotFoundException notFound(String namespace, String name) {
        return new TrainJobNotFoundException(
                "TrainJob " + namespace + "/" + name + " does not exist; check its name and" + " namespace");
    }
}
