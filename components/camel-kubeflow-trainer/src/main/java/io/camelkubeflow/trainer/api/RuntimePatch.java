package io.camelkubeflow.trainer.api;

import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.SecurityContext;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeMount;

/**
 * {@code spec.runtimePatches[]}: a patch of the runtime's JobSet template, owned by {@code manager}. Only the parts
 * this component writes are typed; the nesting mirrors JobSet → ReplicatedJob → Job → Pod.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record RuntimePatch(String manager, String time, TrainingRuntimeSpecPatch trainingRuntimeSpec) {

    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record TrainingRuntimeSpecPatch(JobSetTemplatePatch template) {
    }

    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record JobSetTemplatePatch(MetadataPatch metadata, JobSetSpecPatch spec) {
    }

    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record JobSetSpecPatch(List<ReplicatedJobPatch> replicatedJobs) {
    }

    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record ReplicatedJobPatch(String name, JobTemplatePatch template) {
    }

    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record JobTemplatePatch(MetadataPatch metadata, JobSpecPatch spec) {
    }

    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record JobSpecPatch(PodTemplatePatch template) {
    }

    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record PodTemplatePatch(MetadataPatch metadata, PodSpecPatch spec) {
    }

    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record MetadataPatch(Map<String, String> labels, Map<String, String> annotations) {
    }

    /** The pod fields the admission webhook lets a patch set, of which this component uses volumes and containers. */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record PodSpecPatch(List<Volume> volumes, List<ContainerPatch> containers, String serviceAccountName,
            Map<String, String> nodeSelector) {
    }

    /** A container patch may set only these four fields (and env only on containers other than node/initializers). */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record ContainerPatch(String name, List<EnvVar> env, List<VolumeMount> volumeMounts,
            SecurityContext securityContext) {
    }
}
