package io.camelkubeflow.trainer.watch;

import io.camelkubeflow.trainer.api.JobSetLabels;
import io.camelkubeflow.trainer.api.TrainJob;
import io.camelkubeflow.trainer.api.TrainJobStatus;
import io.fabric8.kubernetes.api.model.Pod;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * How far a TrainJob has got, from the best source there is: what the training code reported in
 * {@code status.trainerStatus} (percentage, estimated remaining time, metrics), else how many of its trainer pods are
 * ready. Fields a source does not give are null.
 *
 * @param source     {@link #TRAINER_STATUS} or {@link #PODS}
 * @param metrics    the reported metrics by name (e.g. loss), in reported order; empty for pods
 * @param reportedAt when the training code reported it; null for pods
 * @param podsReady  trainer pods (not initializers) whose Ready condition is True; null for trainerStatus
 * @param podsTotal  trainer pods that exist; null for trainerStatus
 */
public record TrainJobProgress(
        String source,
        Integer percent,
        Integer estimatedRemainingSeconds,
        Map<String, String> metrics,
        Instant reportedAt,
        Integer podsReady,
        Integer podsTotal) {
    public static final String TRAINER_STATUS = "trainerStatus";
    public static final String PODS = "pods";
    /** How the replicated jobs of initializers end (dataset-initializer, model-initializer). */
    private static final String INITIALIZER_SUFFIX = "-initializer";

    /** What the training code reported, or null when the job has no trainerStatus. */
    public static TrainJobProgress reported(TrainJob job) {
        TrainJobStatus.TrainerStatus status =
                job.getStatus() == null ? null : job.getStatus().trainerStatus();
        if (status == null) {
            return null;
        }
        Map<String, String> metrics = new LinkedHashMap<>();
        if (status.metrics() != null) {
            status.metrics().forEach(metric -> metrics.put(metric.name(), metric.value()));
        }
        return new TrainJobProgress(
                TRAINER_STATUS,
                status.progressPercentage(),
                status.estimatedRemainingSeconds(),
                Collections.unmodifiableMap(metrics),
                parseTime(status.lastUpdatedTime()),
                null,
                null);
    }

    /** Ready and existing trainer pods among a job's pods (those JobSet labelled with its name). */
    public static TrainJobProgress ofPods(Collection<Pod> pods) {
        int total = 0;
        int ready = 0;
        for (Pod pod : pods) {
            String replicatedJob = pod.getMetadata().getLabels() == null
                    ? null
                    : pod.getMetadata().getLabels().get(JobSetLabels.REPLICATED_JOB);
            if (replicatedJob != null && replicatedJob.endsWith(INITIALIZER_SUFFIX)) {
                continue;
            }
            total++;
            if (pod.getStatus() != null
                    && pod.getStatus().getConditions() != null
                    && pod.getStatus().getConditions().stream()
                            .anyMatch(c -> "Ready".equals(c.getType()) && "True".equals(c.getStatus()))) {
                ready++;
            }
        }
        return new TrainJobProgress(PODS, null, null, Map.of(), null, ready, total);
    }

    /** For logs and exception messages: {@code 40%, about 300 s left, loss=0.21} or {@code 2/4 pods ready}. */
    public String describe() {
        if (PODS.equals(source)) {
            return podsReady + "/" + podsTotal + " pods ready";
        }
        StringBuilder text = new StringBuilder();
        if (percent != null) {
            text.append(percent).append('%');
        }
        if (estimatedRemainingSeconds != null) {
            text.append(text.isEmpty() ? "" : ", ")
                    .append("about ")
                    .append(estimatedRemainingSeconds)
                    .append(" s left");
        }
        metrics.forEach((name, value) ->
                text.append(text.isEmpty() ? "" : ", ").append(name).append('=').append(value));
        return text.isEmpty() ? "no progress reported yet" : text.toString();
    }

    private static Instant parseTime(String time) {
        try {
            return time == null ? null : OffsetDateTime.parse(time).toInstant();
        } catch (DateTimeParseException e) {
            return null;
        }
    }
}
