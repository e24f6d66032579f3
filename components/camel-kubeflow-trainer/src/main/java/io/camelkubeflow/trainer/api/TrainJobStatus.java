package io.camelkubeflow.trainer.api;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import io.fabric8.kubernetes.api.model.Condition;
import java.util.List;

/**
 * {@code TrainJob.status}. The controller writes only Complete, Failed and Suspended conditions; a running job has
 * no condition, so whether it runs is read from {@code jobsStatus}. {@code trainerStatus} (progress, remaining time,
 * metrics) is there only where the TrainJobStatus feature gate is on and the training code reports it. Newer
 * controllers may add fields: they are ignored.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonIgnoreProperties(ignoreUnknown = true)
public record TrainJobStatus(List<Condition> conditions, List<JobStatus> jobsStatus, TrainerStatus trainerStatus) {

    @JsonInclude(JsonInclude.Include.NON_NULL)
    @JsonIgnoreProperties(ignoreUnknown = true)
    public record JobStatus(
            String name, Integer ready, Integer succeeded, Integer failed, Integer active, Integer suspended) {}

    /** {@code status.trainerStatus}: what the training code last reported; lastUpdatedTime is RFC 3339. */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    @JsonIgnoreProperties(ignoreUnknown = true)
    public record TrainerStatus(
            Integer progressPercentage,
            Integer estimatedRemainingSeconds,
            List<Metric> metrics,
            String lastUpdatedTime) {}

    @JsonInclude(JsonInclude.Include.NON_NULL)
    @JsonIgnoreProperties(ignoreUnknown = true)
    public record Metric(String name, String value) {}
}
