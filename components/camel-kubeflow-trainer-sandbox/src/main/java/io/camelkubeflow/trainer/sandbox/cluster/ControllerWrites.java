package io.camelkubeflow.trainer.sandbox.cluster;

import static io.camelkubeflow.trainer.sandbox.cluster.TrainJobControllerEmulation.REPORT_PROGRESS_ANNOTATION;
import static io.camelkubeflow.trainer.sandbox.cluster.TrainJobControllerEmulation.TRAINJOBS;
import static io.camelkubeflow.trainer.sandbox.cluster.TrainJobControllerEmulation.replicatedJob;
import static io.camelkubeflow.trainer.sandbox.store.JsonMaps.list;
import static io.camelkubeflow.trainer.sandbox.store.JsonMaps.map;

import io.camelkubeflow.trainer.sandbox.store.JsonMaps;
import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.batch.v1.JobConditionBuilder;
import io.fabric8.kubernetes.api.model.batch.v1.JobStatus;
import io.fabric8.kubernetes.api.model.batch.v1.JobStatusBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the emulated controllers write besides objects, and read back: the TrainJob's status (jobsStatus, conditions,
 * trainerStatus) as the Trainer writes it, the JobSet's and each Job's status as JobSet and the Job controller write
 * them, and the Events they, the scheduler and the kubelet record.
 */
final class ControllerWrites {
    /** The controller emulation's log, where these lines were written before this class was split from it. */
    private static final Logger LOG = LoggerFactory.getLogger(TrainJobControllerEmulation.class);

    private final KubernetesClient client;

    ControllerWrites(KubernetesClient client) {
        this.client = client;
    }

    /** A core/v1 Event, as the component named by {@code source} records one on {@code kind}/{@code name}. */
    void event(
            String namespace,
            String kind,
            String apiVersion,
            String name,
            String uid,
            String type,
            String reason,
            String message,
            String source) {
        try {
            String now = now();
            client.v1()
                    .events()
                    .inNamespace(namespace)
                    .resource(new EventBuilder()
                            .withNewMetadata()
                            .withName(name + "." + Long.toHexString(System.nanoTime()))
                            .withNamespace(namespace)
                            .endMetadata()
                            .withNewInvolvedObject()
                            .withKind(kind)
                            .withApiVersion(apiVersion)
                            .withName(name)
                            .withNamespace(namespace)
                            .withUid(uid)
                            .endInvolvedObject()
                            .withType(type)
                            .withReason(reason)
                            .withMessage(message)
                            .withCount(1)
                            .withFirstTimestamp(now)
                            .withLastTimestamp(now)
                            .withNewSource()
                            .withComponent(source)
                            .endSource()
                            .withReportingComponent(source)
                            .withReportingInstance(source)
                            .build())
                    .create();
        } catch (KubernetesClientException e) {
            LOG.debug("Sandbox could not record event {} on {}: {}", reason, name, e.getMessage());
        }
    }

    void podEvent(Pod pod, String type, String reason, String message, String source) {
        event(
                pod.getMetadata().getNamespace(),
                "Pod",
                "v1",
                pod.getMetadata().getName(),
                pod.getMetadata().getUid(),
                type,
                reason,
                message,
                source);
    }

    void jobEvent(Pod pod, String type, String reason, String message) {
        event(
                pod.getMetadata().getNamespace(),
                "Job",
                "batch/v1",
                pod.getMetadata().getLabels().get("batch.kubernetes.io/job-name"),
                "",
                type,
                reason,
                message,
                "job-controller");
    }

    /**
     * The replicated jobs of {@code pods} moved to {@code counter} (active, succeeded): the JobSet's and the TrainJob's
     * jobsStatus count each replicated job's one Job, the Job's own status its pods.
     */
    void updateJobsStatus(GenericKubernetesResource job, List<Pod> pods, String counter) {
        Map<String, Map<String, Object>> byJob = new LinkedHashMap<>();
        Map<String, Integer> podsByJob = new LinkedHashMap<>();
        for (Pod pod : pods) {
            byJob.put(replicatedJob(pod), jobCounts(replicatedJob(pod), counter));
            podsByJob.merge(replicatedJob(pod), 1, Integer::sum);
        }
        // the other replicated jobs keep the counts they had; the JobSet holds the same counts
        editStatus(job, TRAINJOBS, status -> status.put("jobsStatus", merged(status.get("jobsStatus"), byJob)));
        editStatus(
                job,
                JobSetObjects.JOBSETS,
                status -> status.put("replicatedJobsStatus", merged(status.get("replicatedJobsStatus"), byJob)));
        podsByJob.forEach((replicated, count) -> editJobStatus(job, replicated, counted(counter, count), counter));
    }

    /** A replicated job's entry in jobsStatus: its one Job counted as {@code counter} (none when null). */
    static Map<String, Object> jobCounts(String replicated, String counter) {
        Map<String, Object> counts = counted(counter, counter == null ? 0 : 1);
        counts.put("name", replicated);
        counts.put("suspended", 0);
        return counts;
    }

    /** Counts of active (each also ready), succeeded and failed: {@code n} as {@code counter}, the others 0. */
    static Map<String, Object> counted(String counter, int n) {
        Map<String, Object> counts = new LinkedHashMap<>(Map.of("active", 0, "ready", 0, "succeeded", 0, "failed", 0));
        if (counter != null) {
            counts.put(counter, n);
            if ("active".equals(counter)) {
                counts.put("ready", n);
            }
        }
        return counts;
    }

    static List<Map<String, Object>> merged(Object current, Map<String, Map<String, Object>> byJob) {
        List<Map<String, Object>> jobs = new ArrayList<>();
        for (Object existing : list(current)) {
            if (!byJob.containsKey((String) map(existing).get("name"))) {
                jobs.add(map(existing));
            }
        }
        jobs.addAll(byJob.values());
        return jobs;
    }

    /** The Job controller's status of a replicated job's Job: its pod counts, and its condition once it ended. */
    void editJobStatus(GenericKubernetesResource job, String replicated, Map<String, Object> counts, String counter) {
        try {
            client.batch()
                    .v1()
                    .jobs()
                    .inNamespace(job.getMetadata().getNamespace())
                    .withName(job.getMetadata().getName() + "-" + replicated + "-0")
                    .editStatus(j -> {
                        var status = new JobStatusBuilder(j.getStatus() == null ? new JobStatus() : j.getStatus())
                                .withActive((Integer) counts.get("active"))
                                .withReady((Integer) counts.get("ready"))
                                .withSucceeded((Integer) counts.get("succeeded"))
                                .withFailed((Integer) counts.get("failed"));
                        if (j.getStatus() == null || j.getStatus().getStartTime() == null) {
                            status.withStartTime(now());
                        }
                        if ("succeeded".equals(counter)) {
                            status.withCompletionTime(now())
                                    .withConditions(new JobConditionBuilder()
                                            .withType("Complete")
                                            .withStatus("True")
                                            .withReason("CompletionsReached")
                                            .withMessage("Reached expected number of succeeded pods")
                                            .withLastTransitionTime(now())
                                            .build());
                        } else if ("failed".equals(counter)) {
                            // the Job controller's FailureTarget, then Failed once the pods it deleted are gone
                            status.withConditions(List.of("FailureTarget", "Failed").stream()
                                    .map(type -> new JobConditionBuilder()
                                            .withType(type)
                                            .withStatus("True")
                                            .withReason("BackoffLimitExceeded")
                                            .withMessage("Job has reached the specified backoff limit")
                                            .withLastProbeTime(now())
                                            .withLastTransitionTime(now())
                                            .build())
                                    .toList());
                        }
                        j.setStatus(status.build());
                        return j;
                    });
        } catch (KubernetesClientException e) {
            LOG.debug(
                    "Job of {} changed or vanished under the sandbox controller: {}",
                    job.getMetadata().getName(),
                    e.getMessage());
        }
    }

    /** trainerStatus as the training code would report it through the TrainJobStatus feature. */
    void reportProgress(GenericKubernetesResource job, int percent, long remainingSeconds, double loss) {
        editStatus(
                job,
                status -> status.put(
                        "trainerStatus",
                        new LinkedHashMap<>(Map.of(
                                "progressPercentage",
                                percent,
                                "estimatedRemainingSeconds",
                                remainingSeconds,
                                "metrics",
                                List.of(Map.of("name", "loss", "value", String.format(Locale.ROOT, "%.4f", loss))),
                                "lastUpdatedTime",
                                now()))));
    }

    static boolean reportsProgress(GenericKubernetesResource job) {
        return "true".equals(annotations(job).get(REPORT_PROGRESS_ANNOTATION));
    }

    static Map<String, String> annotations(GenericKubernetesResource job) {
        return job.getMetadata().getAnnotations() == null
                ? Map.of()
                : job.getMetadata().getAnnotations();
    }

    /** JobSet's own end: its Completed or Failed condition and terminal state. */
    void endJobSet(GenericKubernetesResource job, boolean completed, String reason, String message) {
        editStatus(job, JobSetObjects.JOBSETS, status -> {
            status.put("terminalState", completed ? "Completed" : "Failed");
            status.put(
                    "conditions",
                    List.of(new LinkedHashMap<>(Map.of(
                            "type",
                            completed ? "Completed" : "Failed",
                            "status",
                            "True",
                            "reason",
                            reason,
                            "message",
                            message,
                            "lastTransitionTime",
                            now()))));
        });
    }

    @SuppressWarnings("unchecked")
    void setCondition(GenericKubernetesResource job, String type, String status, String reason, String message) {
        editStatus(job, jobStatus -> {
            List<Map<String, Object>> conditions =
                    new ArrayList<>((List<Map<String, Object>>) jobStatus.getOrDefault("conditions", List.of()));
            conditions.removeIf(c -> type.equals(c.get("type")));
            conditions.add(new LinkedHashMap<>(Map.of(
                    "type",
                    type,
                    "status",
                    status,
                    "reason",
                    reason,
                    "message",
                    message,
                    "lastTransitionTime",
                    now())));
            jobStatus.put("conditions", conditions);
        });
    }

    void editStatus(GenericKubernetesResource job, Consumer<Map<String, Object>> change) {
        editStatus(job, TRAINJOBS, change);
    }

    /** Edits the status of the TrainJob, or of its JobSet (same name and namespace). */
    void editStatus(
            GenericKubernetesResource job, ResourceDefinitionContext kind, Consumer<Map<String, Object>> change) {
        try {
            client.genericKubernetesResources(kind)
                    .inNamespace(job.getMetadata().getNamespace())
                    .withName(job.getMetadata().getName())
                    .editStatus(current -> {
                        Map<String, Object> status = new LinkedHashMap<>(
                                map(current.getAdditionalProperties().get("status")));
                        change.accept(status);
                        current.getAdditionalProperties().put("status", status);
                        return current;
                    });
        } catch (KubernetesClientException e) {
            LOG.debug(
                    "TrainJob {} changed or vanished under the sandbox controller: {}",
                    job.getMetadata().getName(),
                    e.getMessage());
        }
    }

    static boolean isFinished(GenericKubernetesResource job) {
        return hasCondition(job, "Complete", "True") || hasCondition(job, "Failed", "True");
    }

    static boolean hasCondition(GenericKubernetesResource job, String type, String status) {
        return list(map(job.getAdditionalProperties().get("status")).get("conditions")).stream()
                .map(JsonMaps::map)
                .anyMatch(c -> type.equals(c.get("type")) && status.equals(c.get("status")));
    }

    static String now() {
        return OffsetDateTime.now(ZoneOffset.UTC)
                .truncatedTo(ChronoUnit.SECONDS)
                .format(DateTimeFormatter.ISO_OFFSET_DATE_TIME);
    }
}
