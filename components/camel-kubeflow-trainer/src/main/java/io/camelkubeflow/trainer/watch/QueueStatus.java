package io.camelkubeflow.trainer.watch;

import io.camelkubeflow.trainer.api.TrainJob;
import io.camelkubeflow.trainer.api.TrainJobPhase;
import io.camelkubeflow.trainer.job.KueueWorkloads;
import io.camelkubeflow.trainer.support.Printable;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where Kueue has a TrainJob it manages, read from the job's Workload (Kueue v1beta2): {@code Queued} (waiting for
 * quota, with Kueue's reason and message, e.g. {@code Pending}: insufficient unused quota), {@code Admitted} (quota
 * reserved and every admission check passed: the job is unsuspended), {@code Preempted} (evicted for a job of higher
 * priority) or {@code Evicted} (for another reason: a stopped queue, pods not ready in time). A job is Kueue's when it
 * carries the queue label; its Workload is found by Kueue's {@code job-uid} label. A deactivated Workload (its
 * {@code spec.active} false: the job suspended as Kueue documents) says nothing: the job is what its own status says.
 * How it combines with the job's own status is {@link ReportedStatus#of(TrainJob, QueueStatus)}'s.
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
    private static final Logger LOG = LoggerFactory.getLogger(QueueStatus.class);

    /**
     * What Kueue says of the job now, or null: the job is not Kueue's (no queue label) or has ended, Kueue has made no
     * active Workload for it, or Workloads cannot be read here (Kueue not installed: 404; no right to read them: 403).
     * One LIST of the job's namespace's Workloads by the job's uid.
     *
     * @throws KubernetesClientException when the read failed otherwise (the API server busy or away): what Kueue says
     *                                   is unknown, not nothing
     */
    public static QueueStatus read(KubernetesClient client, TrainJob job) {
        if (!asksKueue(job)) {
            return null;
        }
        try {
            return ofJob(job, KueueWorkloads.labelledFor(client, job));
        } catch (KubernetesClientException e) {
            if (!KueueWorkloads.notServed(e)) {
                throw e;
            }
            LOG.debug(
                    "Cannot read the Kueue Workloads of namespace {}: {}",
                    job.getMetadata().getNamespace(),
                    Printable.escape(e.getMessage()));
            return null;
        }
    }

    /**
     * What Kueue says of each of {@code jobs} that is Kueue's and has not ended, by job uid: one LIST of the Workloads
     * made for jobs in {@code namespace} (null: all namespaces); none when Workloads are not served here.
     *
     * @throws KubernetesClientException as {@link #read}
     */
    public static Map<String, QueueStatus> readAll(KubernetesClient client, String namespace, List<TrainJob> jobs) {
        List<TrainJob> asking = jobs.stream().filter(QueueStatus::asksKueue).toList();
        if (asking.isEmpty()) {
            return Map.of();
        }
        List<GenericKubernetesResource> workloads;
        try {
            var all = client.genericKubernetesResources(KueueWorkloads.WORKLOADS);
            workloads = (namespace == null ? all.inAnyNamespace() : all.inNamespace(namespace))
                    .withLabel(KueueWorkloads.JOB_UID_LABEL)
                    .list()
                    .getItems();
        } catch (KubernetesClientException e) {
            if (!KueueWorkloads.notServed(e)) {
                throw e;
            }
            return Map.of();
        }
        Map<String, List<GenericKubernetesResource>> byJob = workloads.stream()
                .collect(Collectors.groupingBy(
                        workload -> workload.getMetadata().getLabels().get(KueueWorkloads.JOB_UID_LABEL)));
        Map<String, QueueStatus> statuses = new HashMap<>();
        for (TrainJob job : asking) {
            QueueStatus status = ofJob(job, byJob.getOrDefault(job.getMetadata().getUid(), List.of()));
            if (status != null) {
                statuses.put(job.getMetadata().getUid(), status);
            }
        }
        return statuses;
    }

    /**
     * What Kueue says of the job, from {@code workloads} (those labelled with its uid): its own Workload
     * ({@link KueueWorkloads#ownOf}); null when there is none or it is deactivated.
     */
    static QueueStatus ofJob(TrainJob job, List<GenericKubernetesResource> workloads) {
        return KueueWorkloads.ownOf(job, workloads).map(QueueStatus::of).orElse(null);
    }

    /** Whether the job is Kueue's and has not ended: what its Workload may say more of than its own status. */
    public static boolean asksKueue(TrainJob job) {
        return KueueWorkloads.inQueue(job) && !TrainJobPhase.of(job).isTerminal();
    }

    /** Whether Kueue holds the job suspended in its queue: not yet admitted, or evicted and waiting again. */
    static boolean heldInQueue(TrainJob job) {
        TrainJobPhase phase = TrainJobPhase.of(job);
        return asksKueue(job)
                && (phase == TrainJobPhase.CREATED || phase == TrainJobPhase.SUSPENDED)
                && Boolean.TRUE.equals(job.getSpec().suspend());
    }

    /** Whether Kueue took the job's admission away (Preempted or Evicted): said even while its pods still stop. */
    public boolean evicted() {
        return isEviction(status);
    }

    /** Whether a reported status (a {@link ReportedStatus#status}) is an eviction: Preempted or Evicted. */
    public static boolean isEviction(String status) {
        return PREEMPTED.equals(status) || EVICTED.equals(status);
    }

    /**
     * Drops from a Workload what {@link #of} does not read (its pod sets, which copy each pod template, its admission's
     * flavor assignments, its managed fields): an informer's cache holds what is left.
     */
    @SuppressWarnings("unchecked")
    static void reduce(GenericKubernetesResource workload) {
        workload.getMetadata().setManagedFields(null);
        Map<String, Object> properties = workload.getAdditionalProperties();
        if (properties.get("spec") instanceof Map<?, ?> spec) {
            ((Map<String, Object>) spec).keySet().retainAll(Set.of("queueName", "active"));
        }
        if (properties.get("status") instanceof Map<?, ?> status) {
            ((Map<String, Object>) status).keySet().retainAll(Set.of("conditions"));
        }
    }

    /** What a Workload says, by its conditions as Kueue v0.17 sets them; null when it is deactivated. */
    @SuppressWarnings("unchecked")
    public static QueueStatus of(GenericKubernetesResource workload) {
        Map<String, Object> spec =
                (Map<String, Object>) workload.getAdditionalProperties().getOrDefault("spec", Map.of());
        if (!KueueWorkloads.active(workload)) {
            return null;
        }
        String queue = (String) spec.get("queueName");
        // Kueue sets Evicted before it suspends the job and takes back its admission, and resets it only when it
        // reserves quota again: an evicted Workload still admitted is on its way out. An eviction for a deactivation
        // ends with the Workload active again (Kueue requeues it, reason Reactivated): it is queued
        Map<String, Object> evicted =
                KueueWorkloads.trueCondition(workload, "Evicted").orElse(null);
        if (evicted != null && !"Deactivated".equals(evicted.get("reason"))) {
            return new QueueStatus(
                    "Preempted".equals(evicted.get("reason")) ? PREEMPTED : EVICTED,
                    queue,
                    text(evicted, "reason"),
                    text(evicted, "message"));
        }
        Map<String, Object> admitted =
                KueueWorkloads.trueCondition(workload, "Admitted").orElse(null);
        if (admitted != null) {
            return new QueueStatus(ADMITTED, queue, text(admitted, "reason"), text(admitted, "message"));
        }
        // quota not reserved (reason Pending, and why), or reserved while admission checks are pending
        Map<String, Object> reserved =
                KueueWorkloads.condition(workload, "QuotaReserved").orElse(null);
        return new QueueStatus(
                QUEUED,
                queue,
                reserved == null ? null : text(reserved, "reason"),
                reserved == null ? null : text(reserved, "message"));
    }

    private static String text(Map<String, Object> condition, String field) {
        Object value = condition.get(field);
        return value == null ? null : value.toString();
    }
}
