package io.camelkubeflow.trainer.sandbox.cluster;

import static io.camelkubeflow.trainer.sandbox.cluster.TrainJobControllerEmulation.COMPLETION_INDEX_LABEL;
import static io.camelkubeflow.trainer.sandbox.cluster.TrainJobControllerEmulation.JOBSET_NAME_LABEL;
import static io.camelkubeflow.trainer.sandbox.cluster.TrainJobControllerEmulation.REPLICATED_JOB_LABEL;
import static io.camelkubeflow.trainer.sandbox.cluster.TrainJobControllerEmulation.context;
import static io.camelkubeflow.trainer.sandbox.cluster.TrainJobControllerEmulation.number;
import static io.camelkubeflow.trainer.sandbox.store.JsonMaps.list;
import static io.camelkubeflow.trainer.sandbox.store.JsonMaps.map;

import io.camelkubeflow.trainer.sandbox.http.PodLogs;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.EnvVarBuilder;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Predicate;

/**
 * What the Trainer's jobset plugin, JobSet and the Job controller make of a TrainJob: its JobSet (from the runtime it
 * names; kept if it exists), then one Job per replicated job and its pods, named, labelled and owned as theirs.
 */
final class JobSetEmulation {
    private final KubernetesClient client;
    private final PodLogs podLogs;
    private final ControllerWrites writes;

    JobSetEmulation(KubernetesClient client, PodLogs podLogs, ControllerWrites writes) {
        this.client = client;
        this.podLogs = podLogs;
        this.writes = writes;
    }

    /** The TrainJob's JobSet, as the Trainer's jobset plugin makes it (kept if it exists: a resumed job has one). */
    GenericKubernetesResource createJobSet(GenericKubernetesResource job) {
        Map<String, Object> runtimeSpec = map(TrainerObjects.runtime(client, job, () -> runtime(job))
                .getAdditionalProperties()
                .get("spec"));
        TrainerObjects.writeMpi(client, job, runtimeSpec, numNodes(job, runtimeSpec));
        var jobSets = client.genericKubernetesResources(JobSetObjects.JOBSETS)
                .inNamespace(job.getMetadata().getNamespace());
        GenericKubernetesResource existing =
                jobSets.withName(job.getMetadata().getName()).get();
        boolean suspended = Boolean.TRUE.equals(
                map(job.getAdditionalProperties().get("spec")).get("suspend"));
        if (existing != null
                && !suspended
                && Boolean.TRUE.equals(
                        map(existing.getAdditionalProperties().get("spec")).get("suspend"))) {
            // resumed: the Trainer lets JobSet go on
            return jobSets.withName(job.getMetadata().getName()).edit(jobSet -> {
                map(jobSet.getAdditionalProperties().get("spec")).put("suspend", false);
                return jobSet;
            });
        }
        return existing != null
                ? existing
                : jobSets.resource(JobSetObjects.jobSet(job, runtimeSpec, numNodes(job, runtimeSpec)))
                        .create();
    }

    private static int numNodes(GenericKubernetesResource job, Map<String, Object> runtimeSpec) {
        Map<String, Object> trainer =
                map(map(job.getAdditionalProperties().get("spec")).get("trainer"));
        return number(
                trainer.get("numNodes"), number(map(runtimeSpec.get("mlPolicy")).get("numNodes"), 1));
    }

    private GenericKubernetesResource runtime(GenericKubernetesResource job) {
        Map<String, Object> ref =
                map(map(job.getAdditionalProperties().get("spec")).get("runtimeRef"));
        boolean namespaced = "TrainingRuntime".equals(ref.get("kind"));
        ResourceDefinitionContext context = namespaced
                ? context("TrainingRuntime", "trainingruntimes", true)
                : context("ClusterTrainingRuntime", "clustertrainingruntimes", false);
        GenericKubernetesResource runtime = namespaced
                ? client.genericKubernetesResources(context)
                        .inNamespace(job.getMetadata().getNamespace())
                        .withName((String) ref.get("name"))
                        .get()
                : client.genericKubernetesResources(context)
                        .withName((String) ref.get("name"))
                        .get();
        if (runtime == null) {
            throw new IllegalStateException("runtime " + ref.get("name") + " not found");
        }
        return runtime;
    }

    /**
     * The Jobs and pods JobSet makes from its replicated jobs' templates: a Job per replicated job, a pod per index,
     * named, labelled and owned like JobSet's.
     */
    List<Pod> createPods(
            GenericKubernetesResource job, GenericKubernetesResource jobSet, Predicate<String> replicatedJobs) {
        String namespace = job.getMetadata().getNamespace();
        String name = job.getMetadata().getName();
        List<Pod> pods = new ArrayList<>();
        List<?> all = list(map(jobSet.getAdditionalProperties().get("spec")).get("replicatedJobs"));
        int globalReplicas = all.stream()
                .mapToInt(item -> number(map(item).get("replicas"), 1))
                .sum();
        int globalIndex = -1;
        for (Object item : all) {
            Map<String, Object> replicatedJob = map(item);
            String jobName = (String) replicatedJob.get("name");
            // every replicated job has one Job (replicas 1, as the Trainer's runtimes have), the next global index
            globalIndex++;
            if (!replicatedJobs.test(jobName)) {
                continue;
            }
            String childJob = name + "-" + jobName + "-0";
            // JobSet's labels and annotations on the Job's pod template, each pod of it carrying them
            Map<String, String> jobSetMarks = new LinkedHashMap<>();
            jobSetMarks.put(JOBSET_NAME_LABEL, name);
            jobSetMarks.put(
                    "jobset.sigs.k8s.io/jobset-uid", jobSet.getMetadata().getUid());
            jobSetMarks.put(REPLICATED_JOB_LABEL, jobName);
            jobSetMarks.put(
                    "jobset.sigs.k8s.io/replicatedjob-replicas",
                    Integer.toString(number(replicatedJob.get("replicas"), 1)));
            jobSetMarks.put("jobset.sigs.k8s.io/global-replicas", Integer.toString(globalReplicas));
            jobSetMarks.put("jobset.sigs.k8s.io/group-name", "default");
            jobSetMarks.put("jobset.sigs.k8s.io/group-replicas", Integer.toString(globalReplicas));
            jobSetMarks.put("jobset.sigs.k8s.io/job-index", "0");
            jobSetMarks.put("jobset.sigs.k8s.io/job-group-index", Integer.toString(globalIndex));
            jobSetMarks.put("jobset.sigs.k8s.io/job-global-index", Integer.toString(globalIndex));
            jobSetMarks.put("jobset.sigs.k8s.io/job-key", sha1(namespace + "/" + childJob));
            jobSetMarks.put("jobset.sigs.k8s.io/restart-attempt", "0");
            Map<String, Object> jobSpec = map(map(replicatedJob.get("template")).get("spec"));
            Map<String, Object> podTemplate = map(jobSpec.get("template"));
            int count = number(jobSpec.get("parallelism"), 1);
            Job owner = client.batch()
                    .v1()
                    .jobs()
                    .inNamespace(namespace)
                    .resource(JobSetObjects.job(jobSet, jobName))
                    .create();
            for (int index = 0; index < count; index++) {
                Pod pod = new PodBuilder()
                        .withMetadata(
                                Serialization.jsonMapper().convertValue(podTemplate.get("metadata"), ObjectMeta.class))
                        .editMetadata()
                        .withName(name + "-" + jobName + "-0-" + index + "-"
                                + UUID.randomUUID().toString().substring(0, 5))
                        .withNamespace(namespace)
                        .addToLabels(jobSetMarks)
                        .addToLabels("jobset.sigs.k8s.io/priority", "0")
                        .addToAnnotations(jobSetMarks)
                        // the Job controller's: its Job's name and uid, and the pod's index
                        .addToLabels(
                                "batch.kubernetes.io/controller-uid",
                                owner.getMetadata().getUid())
                        .addToLabels("controller-uid", owner.getMetadata().getUid())
                        .addToLabels("batch.kubernetes.io/job-name", childJob)
                        .addToLabels("job-name", childJob)
                        .addToLabels(COMPLETION_INDEX_LABEL, Integer.toString(index))
                        .addToAnnotations(COMPLETION_INDEX_LABEL, Integer.toString(index))
                        .withOwnerReferences(JobSetObjects.ownedBy(owner))
                        .endMetadata()
                        .withSpec(Serialization.jsonMapper().convertValue(podTemplate.get("spec"), PodSpec.class))
                        .editSpec()
                        .withHostname(name + "-" + jobName + "-0-" + index)
                        .withSubdomain(name)
                        .withRestartPolicy("OnFailure")
                        .withNodeName("sandbox-node")
                        .endSpec()
                        .withNewStatus()
                        .withPhase("Pending")
                        .withQosClass("BestEffort")
                        .endStatus()
                        .build();
                asTheJobControllerAndApiServerComplete(pod.getSpec());
                podLogs.waitingToStart(
                        namespace,
                        pod.getMetadata().getName(),
                        pod.getSpec().getContainers().get(0).getName());
                Pod created = client.pods().inNamespace(namespace).resource(pod).create();
                pods.add(created);
                writes.jobEvent(
                        created,
                        "Normal",
                        "SuccessfulCreate",
                        "Created pod: " + created.getMetadata().getName());
            }
        }
        return pods;
    }

    /** JobSet's job key: the SHA-1 of "namespace/job", in hex. */
    private static String sha1(String text) {
        try {
            return HexFormat.of()
                    .formatHex(MessageDigest.getInstance("SHA-1").digest(text.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * What a pod of an Indexed Job gets on its way into the store: the Job controller gives every container its
     * completion index as JOB_COMPLETION_INDEX, and the API server's defaulting names the version of every field
     * reference ("v1").
     */
    static void asTheJobControllerAndApiServerComplete(PodSpec spec) {
        List<Container> containers = new ArrayList<>(spec.getInitContainers());
        containers.addAll(spec.getContainers());
        for (Container container : containers) {
            List<EnvVar> env = new ArrayList<>(container.getEnv());
            if (env.stream().noneMatch(var -> "JOB_COMPLETION_INDEX".equals(var.getName()))) {
                env.add(new EnvVarBuilder()
                        .withName("JOB_COMPLETION_INDEX")
                        .withNewValueFrom()
                        .withNewFieldRef()
                        .withFieldPath("metadata.labels['" + COMPLETION_INDEX_LABEL + "']")
                        .endFieldRef()
                        .endValueFrom()
                        .build());
            }
            env.stream()
                    .map(EnvVar::getValueFrom)
                    .filter(from -> from != null
                            && from.getFieldRef() != null
                            && from.getFieldRef().getApiVersion() == null)
                    .forEach(from -> from.getFieldRef().setApiVersion("v1"));
            container.setEnv(env);
        }
        spec.getVolumes().stream()
                .filter(volume -> volume.getDownwardAPI() != null)
                .flatMap(volume -> volume.getDownwardAPI().getItems().stream())
                .filter(item -> item.getFieldRef() != null && item.getFieldRef().getApiVersion() == null)
                .forEach(item -> item.getFieldRef().setApiVersion("v1"));
    }
}
