package io.camelkubeflow.trainer.job;

import io.camelkubeflow.trainer.api.TrainJob;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import java.net.HttpURLConnection;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A TrainJob's Kueue Workload (kueue.x-k8s.io/v1beta2): the object in which Kueue keeps a job's place in its queue and
 * its admission, made by Kueue for each job that names a LocalQueue, labelled with the job's uid and owned by it.
 */
public final class KueueWorkloads {
    /** Kueue's label naming the uid of the job a Workload was made for. */
    public static final String JOB_UID_LABEL = TrainJobMetadata.KUEUE_DOMAIN + "/job-uid";

    public static final ResourceDefinitionContext WORKLOADS = new ResourceDefinitionContext.Builder()
            .withGroup(TrainJobMetadata.KUEUE_DOMAIN)
            .withVersion("v1beta2")
            .withPlural("workloads")
            .withKind("Workload")
            .withNamespaced(true)
            .build();

    private KueueWorkloads() {}

    /** Whether the job names a LocalQueue (Kueue's webhook then suspends it and Kueue makes it a Workload). */
    public static boolean inQueue(TrainJob job) {
        Map<String, String> labels = job.getMetadata().getLabels();
        return labels != null
                && labels.containsKey(TrainJobMetadata.QUEUE_LABEL)
                && job.getMetadata().getUid() != null;
    }

    /**
     * The Workloads labelled with the job's uid, one LIST of its namespace's.
     *
     * @throws KubernetesClientException as the API server answered: {@link #notServed} tells a 404 or 403
     */
    public static List<GenericKubernetesResource> labelledFor(KubernetesClient client, TrainJob job) {
        return client.genericKubernetesResources(WORKLOADS)
                .inNamespace(job.getMetadata().getNamespace())
                .withLabel(JOB_UID_LABEL, job.getMetadata().getUid())
                .list()
                .getItems();
    }

    /**
     * The job's own Workload among {@code labelled}: one in the job's namespace that the job controls (as Kueue makes
     * it: a Workload anyone labels with the job's uid, or makes in another namespace naming the job as its owner, is
     * not) and not being deleted, the newest if several.
     */
    public static Optional<GenericKubernetesResource> ownOf(TrainJob job, List<GenericKubernetesResource> labelled) {
        String uid = job.getMetadata().getUid();
        String namespace = job.getMetadata().getNamespace();
        return labelled.stream()
                .filter(workload -> workload.getMetadata().getDeletionTimestamp() == null
                        && namespace.equals(workload.getMetadata().getNamespace())
                        && workload.getMetadata().getOwnerReferences().stream()
                                .anyMatch(owner -> uid.equals(owner.getUid())
                                        && "TrainJob".equals(owner.getKind())
                                        && Boolean.TRUE.equals(owner.getController())))
                .max(Comparator.comparing(
                        workload -> workload.getMetadata().getCreationTimestamp(),
                        Comparator.nullsFirst(Comparator.naturalOrder())));
    }

    /**
     * Whether Workloads are not served to this client: 404, Kueue is not installed (the queue label is only a label);
     * 403, the client may not read them (deploy/ grants the app that right).
     */
    public static boolean notServed(KubernetesClientException e) {
        return e.getCode() == HttpURLConnection.HTTP_NOT_FOUND || e.getCode() == HttpURLConnection.HTTP_FORBIDDEN;
    }

    /**
     * A Kueue object's condition of {@code type} ({@code status.conditions}: a Workload's, a ClusterQueue's, a
     * MultiKueueCluster's...), empty when the object has none.
     */
    @SuppressWarnings("unchecked")
    public static Optional<Map<String, Object>> condition(GenericKubernetesResource object, String type) {
        if (object != null
                && object.getAdditionalProperties().get("status") instanceof Map<?, ?> status
                && status.get("conditions") instanceof List<?> conditions) {
            return conditions.stream()
                    .filter(c -> c instanceof Map<?, ?> map && type.equals(map.get("type")))
                    .map(c -> (Map<String, Object>) c)
                    .findFirst();
        }
        return Optional.empty();
    }

    /** A Kueue object's condition of {@code type} when its status is True, empty otherwise. */
    public static Optional<Map<String, Object>> trueCondition(GenericKubernetesResource object, String type) {
        return condition(object, type).filter(condition -> "True".equals(condition.get("status")));
    }

    /** Whether the Workload is active: false once deactivated ({@code spec.active: false}), as Kueue documents. */
    public static boolean active(GenericKubernetesResource workload) {
        return !(workload.getAdditionalProperties().get("spec") instanceof Map<?, ?> spec
                && Boolean.FALSE.equals(spec.get("active")));
    }
}
