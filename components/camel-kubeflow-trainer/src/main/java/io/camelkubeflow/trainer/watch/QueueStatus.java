package io.camelkubeflow.trainer.watch;

import java.util.Comparator;
import java.util.List;
import java.util.Map;

import io.camelkubeflow.trainer.api.TrainJob;
import io.camelkubeflow.trainer.api.TrainJobPhase;
import io.camelkubeflow.trainer.job.TrainJobMetadata;
import io.camelkubeflow.trainer.support.Printable;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where Kueue has a TrainJob it manages, read from the job's Workload (Kueue v1beta2): {@code Queued} (waiting for
 * quota, with Kueue's reason and message, e.g. {@code Pending}: insufficient unused quota), {@code Admitted} (quota
 * reserved and every admission check passed: the job is unsuspended), {@code Preempted} (evicted for a job of higher
 * priority) or {@code Evicted} (for another reason: deactivated, a stopped queue, pods not ready in time). A job is
 * Kueue's when it carries the queue label; its Workload is found by Kueue's {@code job-uid} label. Only what a
 * TrainJob's own status cannot say is read: a job that runs or has ended is what its phase says.
 *
 * @param status  Queued, Admitted, Preempted or Evicted
 * @param queue   the LocalQueue
 * @param reason  the reason of the Workload condition that says it (null: Kueue has not said yet)
 * @param message that condition's message
 */
public record QueueStatus(String status, String queue, String reason, String message) {
    public static final String QUEUED = "Queued";
    public static final String ADMITTED = "Admitted";
    public static final String PREEMPTED = "Preempted";
    public static final String EVICTED = "Evicted";
    /** Kueue's label naming the uid of the job a Workload was made for. */
    public static final String JOB_UID_LABEL = TrainJobMetadata.KUEUE_DOMAIN + "/job-uid";
    public static final ResourceDefinitionContext WORKLOADS = new ResourceDefinitionContext.Builder()
            .withGroup(TrainJobMetadata.KUEUE_DOMAIN).withVersion("v1beta2").withPlural("workloads")
            .withKind("Workload").withNamespaced(true).build();
    private static final Logger LOG = LoggerFactory.getLogger(QueueStatus.class);

    /**
     * What Kueue says of the job now, or null: the job is not Kueue's (no queue label), it runs or has ended, Kueue
     * has made no Workload for it yet, or Workloads cannot be read here (Kueue not installed: 404; no right to read
     * them: 403). One LIST of the job's namespace's Workloads by the job's uid; the job's own Workload is the one it
     * owns (a Workload anyone labels with the job's uid is not), and not one being deleted.
     *
     * @throws KubernetesClientException when the read failed otherwise (the API server busy or away): what Kueue says
     *                                   is unknown, not nothing
     */
    public static QueueStatus read(KubernetesClient client, TrainJob job) {
        if (!waitingOnKueue(job)) {
            return null;
        }
        String uid = job.getMetadata().getUid();
        try {
            return client.genericKubernetesResources(WORKLOADS).inNamespace(job.getMetadata().getNamespace())
                    .withLabel(JOB_UID_LABEL, uid).list().getItems().stream()
                    .filter(workload -> workload.getMetadata().getDeletionTimestamp() == null
                            && workload.getMetadata().getOwnerReferences().stream()
                                    .anyMatch(owner -> uid.equals(owner.getUid())))
                    .max(Comparator.comparing(workload -> workload.getMetadata().getCreationTimestamp(),
                            Comparator.nullsFirst(Comparator.naturalOrder())))
                    .map(QueueStatus::of).orElse(null);
        } catch (KubernetesClientException e) {
            if (e.getCode() != 404 && e.getCode() != 403) {
                throw e;
            }
            // 404: Kueue is not installed, the label is only a label; 403: the app may not read Workloads (deploy/
            // grants it): the job is reported by its own status
            LOG.debug("Cannot read the Kueue Workloads of namespace {}: {}", job.getMetadata().getNamespace(),
                    Printable.escape(e.getMessage()));
            return null;
        }
    }

    /** Whether the job is Kueue's and neither runs nor has ended: what only its Workload can tell. */
    public static boolean waitingOnKueue(TrainJob job) {
        Map<String, String> labels = job.getMetadata().getLabels();
        if (labels == null || !labels.containsKey(TrainJobMetadata.QUEUE_LABEL) || job.getMetadata().getUid() == null) {
            return false;
        }
        TrainJobPhase phase = TrainJobPhase.of(job);
        return phase == TrainJobPhase.CREATED || phase == TrainJobPhase.SUSPENDED;
    }

    /** Whether Kueue holds the job suspended in its queue: not yet admitted, or evicted and waiting again. */
    static boolean heldInQueue(TrainJob job) {
        return waitingOnKueue(job) && Boolean.TRUE.equals(job.getSpec().suspend());
    }

    /** What a Workload says, by its conditions as Kueue v0.17 sets them. */
    @SuppressWarnings("unchecked")
    public static QueueStatus of(GenericKubernetesResource workload) {
        Map<String, Object> spec = (Map<String, Object>) workload.getAdditionalProperties().getOrDefault("spec",
                Map.of());
        Map<String, Object> status = (Map<String, Object>) workload.getAdditionalProperties().getOrDefault("status",
                Map.of());
        List<Map<String, Object>> conditions = (List<Map<String, Object>>) status.getOrDefault("conditions",
                List.of());
        String queue = (String) spec.get("queueName");
        // Kueue sets Evicted before it suspends the job and takes back its admission, and resets it only when it
        // reserves quota again: an evicted Workload still admitted is on its way out
        Map<String, Object> evicted = isTrue(conditions, "Evicted");
        if (evicted != null) {
            return new QueueStatus("Preempted".equals(evicted.get("reason")) ? PREEMPTED : EVICTED, queue,
                    text(evicted, "reason"), text(evicted, "message"));
        }
        Map<String, Object> admitted = isTrue(conditions, "Admitted");
        if (admitted != null) {
            return new QueueStatus(ADMITTED, queue, text(admitted, "reason"), text(admitted, "message"));
        }
        // quota not reserved (reason Pending, and why), or reserved while admission checks are pending
        Map<String, Object> reserved = conditions.stream().filter(c -> "QuotaReserved".equals(c.get("type")))
                .findFirst().orElse(null);
        return new QueueStatus(QUEUED, queue, reserved == null ? null : text(reserved, "reason"),
                reserved == null ? null : text(reserved, "message"));
    }

    private static Map<String, Object> isTrue(List<Map<String, Object>> conditions, String type) {
        return conditions.stream().filter(c -> type.equals(c.get("type")) && "True".equals(c.get("status")))
                .findFirst().orElse(null);
    }

    private static String text(Map<String, Object> condition, String field) {
        Object value = condition.get(field);
        return value == null ? null : value.toString();
    }
}
