package io.camelkubeflow.trainer.watch;

import io.camelkubeflow.trainer.api.JobSetLabels;
import io.camelkubeflow.trainer.api.RuntimeRef;
import io.camelkubeflow.trainer.api.TrainJob;
import io.camelkubeflow.trainer.api.TrainJobRef;
import io.camelkubeflow.trainer.job.RuntimeLookup;
import io.camelkubeflow.trainer.runtime.RuntimeKind;
import io.camelkubeflow.trainer.runtime.TrainingRuntimeDescriptor;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The steps of TrainJobs ({@link TrainJobStep}), read from the pod informer of a namespace
 * ({@link ClusterInformers#podsOf}) instead of a pod LIST per job (what the Kubeflow SDK does), so reading the steps
 * of a whole list costs no request per job. Whether a job runs MPI (its launcher is {@code node-0}) is its runtime's
 * {@code mlPolicy.mpi}, as the SDK decides it, read from the runtime informers; a job whose runtime is gone is MPI
 * when it has a launcher pod.
 */
public final class TrainJobSteps {
    private static final String LAUNCHER = "launcher";
    private static final String NODE = "node";
    /** The env var of a trainer container that says how many processes a node runs (kept in the pod cache). */
    static final String NPROC_PER_NODE = "PET_NPROC_PER_NODE";
    /** The replicated jobs the SDK reports steps of, in the order steps are listed. */
    private static final List<String> STEP_JOBS = List.of(
            TrainingRuntimeDescriptor.DATASET_INITIALIZER, TrainingRuntimeDescriptor.MODEL_INITIALIZER, LAUNCHER, NODE);

    private final ClusterInformers informers;
    private final RuntimeLookup runtimes;

    /** @param runtimes where a job's runtime is read from (a watched cache: {@link WatchedRuntimes}) */
    public TrainJobSteps(ClusterInformers informers, RuntimeLookup runtimes) {
        this.informers = informers;
        this.runtimes = runtimes;
    }

    /**
     * The steps of one job.
     *
     * @param watched the namespace of the pod informer to read (null: the all-namespaces one)
     */
    public List<TrainJobStep> of(String watched, TrainJob job) {
        return of(watched, List.of(job)).get(TrainJobRef.of(job));
    }

    /** The steps of each job, by job; each runtime is looked up once. */
    public Map<TrainJobRef, List<TrainJobStep>> of(String watched, List<TrainJob> jobs) {
        Map<RuntimeOf, Optional<Boolean>> mpiRuntimes = new HashMap<>();
        Map<TrainJobRef, List<TrainJobStep>> steps = new LinkedHashMap<>();
        for (TrainJob job : jobs) {
            TrainJobRef ref = TrainJobRef.of(job);
            List<Pod> pods = informers.podsOf(watched, ref);
            steps.put(ref, fromPods(pods, runsMpi(job, pods, mpiRuntimes)));
        }
        return steps;
    }

    /** The pods of a job as the informer of {@code watched} has them now. */
    List<Pod> podsOf(String watched, TrainJob job) {
        return informers.podsOf(watched, TrainJobRef.of(job));
    }

    /** Whether a job with these pods runs MPI: its launcher is node-0. */
    boolean runsMpi(TrainJob job, List<Pod> pods) {
        return runsMpi(job, pods, new HashMap<>());
    }

    /** @param mpiRuntimes what each runtime said, so a list reads each (even a missing one) once */
    private boolean runsMpi(TrainJob job, List<Pod> pods, Map<RuntimeOf, Optional<Boolean>> mpiRuntimes) {
        RuntimeOf runtime = runtimeRef(job);
        Optional<Boolean> mpi =
                runtime == null ? Optional.empty() : mpiRuntimes.computeIfAbsent(runtime, this::runtimeRunsMpi);
        return mpi.orElseGet(() -> hasLauncherPod(pods));
    }

    /** A runtime as a job names it: its kind, name and (for a TrainingRuntime) the job's namespace. */
    private record RuntimeOf(RuntimeKind kind, String namespace, String name) {}

    private static RuntimeOf runtimeRef(TrainJob job) {
        RuntimeRef ref = job.getSpec() == null ? null : job.getSpec().runtimeRef();
        if (ref == null || ref.name() == null) {
            return null;
        }
        RuntimeKind kind = ref.kind() == null ? RuntimeKind.ClusterTrainingRuntime : RuntimeKind.of(ref.kind());
        return kind == null
                ? null
                : new RuntimeOf(kind, kind.namespaced() ? job.getMetadata().getNamespace() : null, ref.name());
    }

    /** Whether the runtime has an MPI policy; empty when it cannot be read. */
    private Optional<Boolean> runtimeRunsMpi(RuntimeOf runtime) {
        try {
            GenericKubernetesResource found = runtimes.find(runtime.kind(), runtime.namespace(), runtime.name());
            return found == null
                    ? Optional.empty()
                    : Optional.of(TrainingRuntimeDescriptor.from(found).hasPolicy("mpi"));
        } catch (RuntimeException unreadable) {
            // the steps are read all the same; only the MPI numbering falls back to the pods
            return Optional.empty();
        }
    }

    private static boolean hasLauncherPod(List<Pod> pods) {
        return pods.stream().anyMatch(pod -> LAUNCHER.equals(label(pod, JobSetLabels.REPLICATED_JOB)));
    }

    /**
     * The steps the pods of one job run, one per step: the newest pod of each (a replaced pod's successor), in step
     * order (initializers, then node-0, node-1, ...).
     */
    static List<TrainJobStep> fromPods(List<Pod> pods, boolean mpi) {
        Map<String, Pod> newest = new LinkedHashMap<>();
        for (Pod pod : pods) {
            String step =
                    stepName(label(pod, JobSetLabels.REPLICATED_JOB), label(pod, JobSetLabels.COMPLETION_INDEX), mpi);
            if (step != null) {
                newest.merge(step, pod, (one, other) -> created(other).compareTo(created(one)) > 0 ? other : one);
            }
        }
        List<TrainJobStep> steps = new ArrayList<>();
        newest.forEach((step, pod) -> steps.add(step(step, pod)));
        steps.sort(Comparator.comparingInt(TrainJobSteps::order));
        return steps;
    }

    /**
     * The step a pod of {@code replicatedJob} with completion index {@code index} runs, as the SDK names it; null for
     * a replicated job the SDK reports no step of (or an index that is no number).
     */
    public static String stepName(String replicatedJob, String index, boolean mpi) {
        if (TrainingRuntimeDescriptor.DATASET_INITIALIZER.equals(replicatedJob)
                || TrainingRuntimeDescriptor.MODEL_INITIALIZER.equals(replicatedJob)) {
            return replicatedJob;
        }
        if (!LAUNCHER.equals(replicatedJob) && !NODE.equals(replicatedJob)
                || index == null
                || !index.matches("\\d{1,6}")) {
            return null;
        }
        int number = Integer.parseInt(index);
        // the MPI launcher is node-0, so the node pods follow it
        return NODE + "-" + (mpi && NODE.equals(replicatedJob) ? number + 1 : number);
    }

    private static int order(TrainJobStep step) {
        if (step.name().startsWith(NODE + "-")) {
            return STEP_JOBS.size() + Integer.parseInt(step.name().substring(NODE.length() + 1));
        }
        return STEP_JOBS.indexOf(step.name());
    }

    private static TrainJobStep step(String name, Pod pod) {
        String replicatedJob = label(pod, JobSetLabels.REPLICATED_JOB);
        boolean trainer = LAUNCHER.equals(replicatedJob) || NODE.equals(replicatedJob);
        // the SDK reads the initializer's own container, and the node container of a launcher or node pod
        String containerName = trainer ? TrainingRuntimeDescriptor.TRAINER_CONTAINER : replicatedJob;
        Container container = pod.getSpec() == null
                ? null
                : pod.getSpec().getContainers().stream()
                        .filter(c -> containerName.equals(c.getName()))
                        .findFirst()
                        .orElse(null);
        String[] device = container == null ? new String[2] : device(container);
        if (trainer && container != null) {
            for (EnvVar env : container.getEnv()) {
                if (NPROC_PER_NODE.equals(env.getName())
                        && env.getValue() != null
                        && env.getValue().matches("\\d+")) {
                    device[1] = env.getValue();
                }
            }
        }
        return new TrainJobStep(
                name,
                pod.getStatus() == null ? null : pod.getStatus().getPhase(),
                device[0],
                device[1],
                pod.getMetadata().getName());
    }

    /** The device and its count from a container's limits, in the SDK's order of precedence; nulls without one. */
    private static String[] device(Container container) {
        Map<String, Quantity> limits = container.getResources() == null
                ? null
                : container.getResources().getLimits();
        if (limits == null || limits.isEmpty()) {
            return new String[2];
        }
        for (Map.Entry<String, String> named :
                List.of(Map.entry("nvidia.com/gpu", "gpu"), Map.entry("google.com/tpu", "tpu"))) {
            if (limits.containsKey(named.getKey())) {
                return new String[] {
                    named.getValue(), limits.get(named.getKey()).toString()
                };
            }
        }
        for (Map.Entry<String, Quantity> limit : limits.entrySet()) {
            if (limit.getKey().startsWith("nvidia.com/mig-")) {
                return new String[] {
                    limit.getKey().substring("nvidia.com/".length()),
                    limit.getValue().toString()
                };
            }
        }
        if (limits.containsKey("huawei.com/Ascend910")) {
            return new String[] {"npu", limits.get("huawei.com/Ascend910").toString()};
        }
        if (limits.containsKey("cpu")) {
            return new String[] {"cpu", limits.get("cpu").toString()};
        }
        return new String[2];
    }

    private static String created(Pod pod) {
        String created = pod.getMetadata().getCreationTimestamp();
        return created == null ? "" : created;
    }

    static String label(Pod pod, String key) {
        Map<String, String> labels = pod.getMetadata().getLabels();
        return labels == null ? null : labels.get(key);
    }
}
