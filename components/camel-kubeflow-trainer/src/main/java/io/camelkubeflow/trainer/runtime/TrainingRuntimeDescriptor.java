package io.camelkubeflow.trainer.runtime;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Quantity;
import java.math.RoundingMode;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * What a TrainJob needs to know of its ClusterTrainingRuntime or TrainingRuntime: the framework label, the
 * mlPolicy kinds and the replicated jobs with their containers. Read from the runtime object as the API server
 * returns it, so any runtime (default or custom) is described the same way.
 */
public record TrainingRuntimeDescriptor(
        String kind, String name, String framework, Set<String> mlPolicies, List<ReplicatedJob> replicatedJobs) {

    public static final String FRAMEWORK_LABEL = "trainer.kubeflow.org/framework";
    public static final String ANCESTOR_STEP_LABEL = "trainer.kubeflow.org/trainjob-ancestor-step";
    /** The container that trainer.image/command/args replace, in every trainer job (torch, MPI launcher, ...). */
    public static final String TRAINER_CONTAINER = "node";

    public static final String DATASET_INITIALIZER = "dataset-initializer";
    public static final String MODEL_INITIALIZER = "model-initializer";
    /** The volume an initializer container must mount, by the Trainer v2.3 webhook's rule (its download target). */
    public static final String INITIALIZER_VOLUME = "initializer";
    /** The variable a dataset initializer container carries when it runs the Trainer's data cache. */
    public static final String CACHE_IMAGE_ENV = "CACHE_IMAGE";

    /**
     * A replicated job of the runtime's JobSet template: its name, ancestor step label, and per container its image,
     * the volumes it mounts and the names of the variables it sets; the containers whose template sets a command, and
     * the GPUs of its node container as the Trainer counts them (requested, else limited; any resource whose name
     * holds "gpu").
     */
    public record ReplicatedJob(
            String name,
            String ancestorStep,
            Map<String, String> containerImages,
            Map<String, Set<String>> containerMounts,
            Map<String, Set<String>> containerEnv,
            Set<String> commandedContainers,
            long nodeGpus) {
        public boolean hasContainer(String container) {
            return containerImages.containsKey(container);
        }
    }

    public static TrainingRuntimeDescriptor from(GenericKubernetesResource runtime) {
        Map<String, String> labels = runtime.getMetadata().getLabels();
        String framework = labels == null ? null : labels.get(FRAMEWORK_LABEL);
        Map<String, Object> spec = map(runtime.getAdditionalProperties().get("spec"));

        Set<String> policies = new LinkedHashSet<>();
        for (Map.Entry<String, Object> entry : map(spec.get("mlPolicy")).entrySet()) {
            // numNodes is a setting of the policy, not a policy kind
            if (!"numNodes".equals(entry.getKey()) && entry.getValue() != null) {
                policies.add(entry.getKey());
            }
        }

        List<ReplicatedJob> jobs = new ArrayList<>();
        Map<String, Object> jobSetSpec = map(map(map(spec.get("template"))).get("spec"));
        for (Object item : list(jobSetSpec.get("replicatedJobs"))) {
            Map<String, Object> job = map(item);
            Map<String, Object> jobTemplate = map(job.get("template"));
            String step =
                    (String) map(map(jobTemplate.get("metadata")).get("labels")).get(ANCESTOR_STEP_LABEL);
            Map<String, Object> podSpec =
                    map(map(map(map(jobTemplate.get("spec")).get("template"))).get("spec"));
            Map<String, String> images = new LinkedHashMap<>();
            Map<String, Set<String>> mounts = new LinkedHashMap<>();
            Map<String, Set<String>> env = new LinkedHashMap<>();
            Set<String> commanded = new LinkedHashSet<>();
            long nodeGpus = 0;
            for (Object c : list(podSpec.get("containers"))) {
                Map<String, Object> container = map(c);
                String name = (String) container.get("name");
                images.put(name, (String) container.get("image"));
                mounts.put(name, names(container.get("volumeMounts")));
                env.put(name, names(container.get("env")));
                if (!list(container.get("command")).isEmpty()) {
                    commanded.add(name);
                }
                if (TRAINER_CONTAINER.equals(name)) {
                    Map<String, Object> resources = map(container.get("resources"));
                    long requested = gpus(map(resources.get("requests")));
                    nodeGpus = requested > 0 ? requested : gpus(map(resources.get("limits")));
                }
            }
            jobs.add(new ReplicatedJob(
                    (String) job.get("name"), step, images, mounts, env, Set.copyOf(commanded), nodeGpus));
        }
        return new TrainingRuntimeDescriptor(
                runtime.getKind(), runtime.getMetadata().getName(), framework, Set.copyOf(policies), List.copyOf(jobs));
    }

    public boolean hasPolicy(String policy) {
        return mlPolicies.contains(policy);
    }

    /** The replicated job whose node container trainer.* replaces: the one labelled as the trainer ancestor step. */
    public ReplicatedJob trainerJob() {
        for (ReplicatedJob job : replicatedJobs) {
            if ("trainer".equals(job.ancestorStep())) {
                return job;
            }
        }
        // runtimes written before the label existed name the trainer job "node"
        return replicatedJob(TRAINER_CONTAINER);
    }

    public ReplicatedJob replicatedJob(String jobName) {
        for (ReplicatedJob job : replicatedJobs) {
            if (jobName.equals(job.name())) {
                return job;
            }
        }
        return null;
    }

    /** The image the trainer will run unless the TrainJob overrides it. */
    public String trainerImage() {
        ReplicatedJob trainer = trainerJob();
        return trainer == null ? null : trainer.containerImages().get(TRAINER_CONTAINER);
    }

    /**
     * The command the runtime gives its trainer container, if any: the Trainer keeps it when a TrainJob sets none, so
     * then the image's own ENTRYPOINT does not run.
     */
    public boolean trainerSetsCommand() {
        ReplicatedJob trainer = trainerJob();
        return trainer != null && trainer.commandedContainers().contains(TRAINER_CONTAINER);
    }

    /** Jobs where user code can run (MPI runs it on the launcher and on every node): those with a node container. */
    public List<ReplicatedJob> jobsRunningUserCode() {
        return replicatedJobs.stream()
                .filter(job -> job.hasContainer(TRAINER_CONTAINER))
                .toList();
    }

    /**
     * Why a TrainJob with this initializer ({@code dataset-initializer} or {@code model-initializer}) would be refused
     * on this runtime, by the Trainer v2.3 webhook's rule: the runtime needs a replicated job of that name with a
     * container of that name mounting the {@value #INITIALIZER_VOLUME} volume. Null when it has all three.
     */
    public String initializerProblem(String step) {
        ReplicatedJob job = replicatedJob(step);
        if (job == null) {
            return "has no " + step + " replicated job";
        }
        if (!job.hasContainer(step)) {
            return "has no " + step + " container in its " + step + " job";
        }
        if (!job.containerMounts().get(step).contains(INITIALIZER_VOLUME)) {
            return "does not mount the '" + INITIALIZER_VOLUME + "' volume in its " + step + " container";
        }
        return null;
    }

    /** Whether its dataset initializer runs the Trainer's data cache (its container names the cache's image). */
    public boolean hasCacheInitializer() {
        ReplicatedJob job = replicatedJob(DATASET_INITIALIZER);
        return job != null
                && job.containerEnv()
                        .getOrDefault(DATASET_INITIALIZER, Set.of())
                        .contains(CACHE_IMAGE_ENV);
    }

    public String describe() {
        return kind + " '" + name + "'";
    }

    /** The GPUs in a resource list, rounded up as Kubernetes' Quantity.Value() does; 0 when none is named. */
    public static long gpus(Map<String, ?> resources) {
        for (Map.Entry<String, ?> entry : resources.entrySet()) {
            if (entry.getKey().toLowerCase(Locale.ROOT).contains("gpu") && entry.getValue() != null) {
                try {
                    return new Quantity(String.valueOf(entry.getValue()))
                            .getNumericalAmount()
                            .setScale(0, RoundingMode.CEILING)
                            .longValueExact();
                } catch (IllegalArgumentException | ArithmeticException e) {
                    return 0;
                }
            }
        }
        return 0;
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> map(Object value) {
        return value instanceof Map ? (Map<String, Object>) value : Map.of();
    }

    /** The names of a list of named entries (volume mounts, env). */
    private static Set<String> names(Object entries) {
        Set<String> names = new LinkedHashSet<>();
        for (Object entry : list(entries)) {
            if (map(entry).get("name") instanceof String name) {
                names.add(name);
            }
        }
        return Set.copyOf(names);
    }

    private static List<?> list(Object value) {
        return value instanceof List ? (List<?>) value : List.of();
    }
}
