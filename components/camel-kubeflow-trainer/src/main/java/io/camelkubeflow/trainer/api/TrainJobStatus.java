package io.camelkubeflow.trainer.api;

import java.util.List;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import io.fabric8.kubernetes.api.model.Condition;

/**
 * {@code TrainJob.status}. The controller writes only Complete, Failed and Suspended conditions; a running job has
 * no condition, so progress is read from {@code jobsStatus}. Newer controllers may add fields: they are ignored.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonIgnoreProperties(ignoreUnknown = true)
public record TrainJobStatus(List<Condition> conditions, List<JobStatus> jobsStatus) {

    @JsonInclude(JsonInclude.Include.NON_NULL)
    @JsonIgnoreProperties(ignoreUnknown = true)
    public record JobStatus(String name, Integer ready, Integer succeeded, Integer failed, Integer active,
            Integer suspended) {
    }
}
