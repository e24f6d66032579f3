package io.camelkubeflow.trainer.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.fabric8.kubernetes.api.model.Affinity;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.LocalObjectReference;
import io.fabric8.kubernetes.api.model.PodSchedulingGate;
import io.fabric8.kubernetes.api.model.PodSecurityContext;
import io.fabric8.kubernetes.api.model.SecurityContext;
import io.fabric8.kubernetes.api.model.Toleration;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeMount;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * {@code spec.runtimePatches[]}: a patch of the runtime's JobSet template, owned by {@code manager}. Only the parts
 * this component writes are typed; the nesting mirrors JobSet → ReplicatedJob → Job → Pod.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record RuntimePatch(String manager, String time, TrainingRuntimeSpecPatch trainingRuntimeSpec) {

    /** The pod spec this patch gives each replicated job it names, in order; a job without one is left out. */
    public List<PodSpecPatch> podSpecs() {
        return replicatedJobs().stream()
                .map(job -> job.template() == null
                                || job.template().spec() == null
                                || job.template().spec().template() == null
                        ? null
                        : job.template().spec().template().spec())
                .filter(Objects::nonNull)
                .toList();
    }

    /** The metadata this patch gives the JobSet, each replicated job and each pod template, where it gives any. */
    public List<MetadataPatch> metadata() {
        List<MetadataPatch> all = new ArrayList<>();
        if (trainingRuntimeSpec != null && trainingRuntimeSpec.template() != null) {
            all.add(trainingRuntimeSpec.template().metadata());
        }
        for (ReplicatedJobPatch job : replicatedJobs()) {
            if (job.template() != null) {
                all.add(job.template().metadata());
                if (job.template().spec() != null && job.template().spec().template() != null) {
                    all.add(job.template().spec().template().metadata());
                }
            }
        }
        all.removeIf(Objects::isNull);
        return all;
    }

    /** The replicated jobs this patch names; none when it names none. */
    private List<ReplicatedJobPatch> replicatedJobs() {
        if (trainingRuntimeSpec == null
                || trainingRuntimeSpec.template() == null
                || trainingRuntimeSpec.template().spec() == null
                || trainingRuntimeSpec.template().spec().replicatedJobs() == null) {
            return List.of();
        }
        return trainingRuntimeSpec.template().spec().replicatedJobs();
    }

    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record TrainingRuntimeSpecPatch(JobSetTemplatePatch template) {}

    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record JobSetTemplatePatch(MetadataPatch metadata, JobSetSpecPatch spec) {}

    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record JobSetSpecPatch(List<ReplicatedJobPatch> replicatedJobs) {}

    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record ReplicatedJobPatch(String name, JobTemplatePatch template) {}

    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record JobTemplatePatch(MetadataPatch metadata, JobSpecPatch spec) {}

    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record JobSpecPatch(PodTemplatePatch template) {}

    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record PodTemplatePatch(MetadataPatch metadata, PodSpecPatch spec) {}

    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record MetadataPatch(
            Map<String, String> labels,
            Map<String, String> annotations,
            List<String> finalizers,
            String name,
            String namespace) {}

    /**
     * Every pod field the CRD lets a patch set (so a TrainJob body with any valid patch is read, not refused, and any
     * field it sets is seen by the request policy); this component writes all but initContainers, schedulingGates and
     * terminationGracePeriodSeconds.
     */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record PodSpecPatch(
            List<Volume> volumes,
            List<ContainerPatch> containers,
            List<ContainerPatch> initContainers,
            String serviceAccountName,
            Map<String, String> nodeSelector,
            Affinity affinity,
            List<Toleration> tolerations,
            List<LocalObjectReference> imagePullSecrets,
            PodSecurityContext securityContext,
            List<PodSchedulingGate> schedulingGates,
            Long terminationGracePeriodSeconds) {}

    /** A container patch may set only these four fields (and env only on containers other than node/initializers). */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record ContainerPatch(
            String name, List<EnvVar> env, List<VolumeMount> volumeMounts, SecurityContext securityContext) {}
}
