package io.camelkubeflow.trainer.sandbox.cluster;

import static io.camelkubeflow.trainer.sandbox.store.JsonMaps.list;
import static io.camelkubeflow.trainer.sandbox.store.JsonMaps.map;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.batch.v1.JobBuilder;
import io.fabric8.kubernetes.api.model.batch.v1.JobSpec;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The objects between a TrainJob and its pods, as the Trainer's jobset plugin and JobSet make them: one JobSet named
 * after the TrainJob (owned by it) holding the runtime's replicated jobs with their rendered pod templates, and one
 * batch/v1 Job per replicated job, {@code <jobset>-<replicated job>-0} (owned by the JobSet), whose pods it owns. The
 * garbage collector follows these owner references when the TrainJob is deleted.
 */
final class JobSetObjects {
    static final ResourceDefinitionContext JOBSETS = new ResourceDefinitionContext.Builder()
            .withGroup("jobset.x-k8s.io")
            .withVersion("v1alpha2")
            .withKind("JobSet")
            .withPlural("jobsets")
            .withNamespaced(true)
            .build();

    private JobSetObjects() {}

    /**
     * The JobSet of a TrainJob: the runtime's JobSet template, each replicated job's pod template (labels,
     * annotations, spec) rendered once, as the Jobs and pods made from it will have it.
     */
    static GenericKubernetesResource jobSet(
            GenericKubernetesResource trainJob, Map<String, Object> runtimeSpec, int numNodes) {
        Map<String, Object> template = map(runtimeSpec.get("template"));
        Map<String, Object> spec = new LinkedHashMap<>(map(template.get("spec")));
        Map<String, Object> mlPolicy = map(runtimeSpec.get("mlPolicy"));
        List<Object> replicatedJobs = new ArrayList<>();
        for (Object item : list(spec.get("replicatedJobs"))) {
            Map<String, Object> replicatedJob = new LinkedHashMap<>(map(item));
            int count = PodRendering.podCount(replicatedJob, mlPolicy, numNodes);
            Map<String, Object> jobTemplate = new LinkedHashMap<>(map(replicatedJob.get("template")));
            Map<String, Object> jobSpec = new LinkedHashMap<>(map(jobTemplate.get("spec")));
            Map<String, Object> podTemplate = new LinkedHashMap<>(map(jobSpec.get("template")));
            PodSpec rendered = PodRendering.spec(trainJob, runtimeSpec, replicatedJob, numNodes);
            podTemplate.put(
                    "metadata",
                    Serialization.jsonMapper().convertValue(PodRendering.metadata(trainJob, replicatedJob), Map.class));
            podTemplate.put("spec", Serialization.jsonMapper().convertValue(rendered, Map.class));
            jobSpec.put("template", podTemplate);
            jobSpec.put("parallelism", count);
            jobSpec.put("completions", count);
            jobSpec.putIfAbsent("completionMode", "Indexed");
            jobSpec.putIfAbsent("backoffLimit", 0);
            jobTemplate.put("spec", jobSpec);
            replicatedJob.put("template", jobTemplate);
            replicatedJob.putIfAbsent("replicas", 1);
            replicatedJobs.add(replicatedJob);
        }
        spec.put("replicatedJobs", replicatedJobs);
        if (Boolean.TRUE.equals(
                map(trainJob.getAdditionalProperties().get("spec")).get("suspend"))) {
            // the Trainer makes a suspended job's JobSet suspended: JobSet makes its Jobs suspended, and no pod
            spec.put("suspend", true);
        }
        GenericKubernetesResource jobSet = new GenericKubernetesResource();
        jobSet.setApiVersion("jobset.x-k8s.io/v1alpha2");
        jobSet.setKind("JobSet");
        jobSet.setMetadata(new ObjectMetaBuilder()
                .withName(trainJob.getMetadata().getName())
                .withNamespace(trainJob.getMetadata().getNamespace())
                .withLabels(PodRendering.strings(map(template.get("metadata")).get("labels")))
                .withAnnotations(
                        PodRendering.strings(map(template.get("metadata")).get("annotations")))
                .withOwnerReferences(ownedBy(trainJob))
                .build());
        jobSet.setAdditionalProperty("spec", spec);
        return jobSet;
    }

    /** The Job JobSet makes for one of its replicated jobs, from that job's template, owned by the JobSet. */
    static Job job(GenericKubernetesResource jobSet, String replicatedJob) {
        String name = jobSet.getMetadata().getName() + "-" + replicatedJob + "-0";
        Map<String, Object> replicated =
                map(list(map(jobSet.getAdditionalProperties().get("spec")).get("replicatedJobs")).stream()
                        .filter(j -> replicatedJob.equals(map(j).get("name")))
                        .findFirst()
                        .orElse(null));
        Map<String, Object> template = map(replicated.get("template"));
        JobSpec spec = Serialization.jsonMapper().convertValue(map(template.get("spec")), JobSpec.class);
        return new JobBuilder()
                .withNewMetadata()
                .withName(name)
                .withNamespace(jobSet.getMetadata().getNamespace())
                .addToLabels(
                        TrainJobControllerEmulation.JOBSET_NAME_LABEL,
                        jobSet.getMetadata().getName())
                .addToLabels(TrainJobControllerEmulation.REPLICATED_JOB_LABEL, replicatedJob)
                .addToLabels("jobset.sigs.k8s.io/job-index", "0")
                .withOwnerReferences(ownedBy(jobSet))
                .endMetadata()
                .withSpec(spec)
                .editSpec()
                .withNewSelector()
                .addToMatchLabels("batch.kubernetes.io/job-name", name)
                .endSelector()
                .endSpec()
                .build();
    }

    /** A controller owner reference to {@code owner}, blocking its foreground deletion as controllers' do. */
    static OwnerReference ownedBy(HasMetadata owner) {
        return new OwnerReferenceBuilder()
                .withApiVersion(owner.getApiVersion())
                .withKind(owner.getKind())
                .withName(owner.getMetadata().getName())
                .withUid(owner.getMetadata().getUid())
                .withController(true)
                .withBlockOwnerDeletion(true)
                .build();
    }
}
