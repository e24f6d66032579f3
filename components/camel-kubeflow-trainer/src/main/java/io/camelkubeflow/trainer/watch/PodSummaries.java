package io.camelkubeflow.trainer.watch;

import io.camelkubeflow.trainer.api.JobSetLabels;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerState;
import io.fabric8.kubernetes.api.model.ContainerStateTerminated;
import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.PodStatus;
import io.fabric8.kubernetes.api.model.ResourceRequirements;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What the pod informers keep of each TrainJob pod: only what the component reads from its cache, so a client that
 * serves waits, log reads and progress for 10,000 jobs holds about 1.4 KiB per pod ({@link JsonItemStore}), not the
 * 17 KiB of a whole one (a pod's spec, its volumes, env and the kubelet's status make the rest). Kept: the name, namespace,
 * uid, resource version, creation time and {@link JobSetLabels#ALL the JobSet labels} it is found by; the
 * restart policy and each container's name, limits (the steps' device) and {@link TrainJobSteps#NPROC_PER_NODE};
 * the phase, the Ready condition and, per container, its name, readiness, restarts and the exit code and reason of
 * its state and last state when they are terminated. A reader that needs more of a pod reads it from the API server.
 */
final class PodSummaries {
    private static final String READY = "Ready";

    private PodSummaries() {}

    /** Makes {@code pod} its summary, in place. */
    static void summarize(Pod pod) {
        ObjectMeta meta = pod.getMetadata();
        ObjectMeta kept = new ObjectMeta();
        kept.setName(meta.getName());
        kept.setNamespace(meta.getNamespace());
        kept.setUid(meta.getUid());
        kept.setResourceVersion(meta.getResourceVersion());
        kept.setCreationTimestamp(meta.getCreationTimestamp());
        Map<String, String> labels = new HashMap<>();
        if (meta.getLabels() != null) {
            JobSetLabels.ALL.forEach(key -> {
                if (meta.getLabels().containsKey(key)) {
                    labels.put(key, meta.getLabels().get(key));
                }
            });
        }
        kept.setLabels(labels);
        pod.setMetadata(kept);
        if (pod.getSpec() != null) {
            PodSpec spec = new PodSpec();
            spec.setRestartPolicy(pod.getSpec().getRestartPolicy());
            spec.setContainers(pod.getSpec().getContainers().stream()
                    .map(PodSummaries::summarize)
                    .toList());
            pod.setSpec(spec);
        }
        if (pod.getStatus() != null) {
            PodStatus status = new PodStatus();
            status.setPhase(pod.getStatus().getPhase());
            status.setConditions(pod.getStatus().getConditions().stream()
                    .filter(c -> READY.equals(c.getType()))
                    .map(c -> {
                        PodCondition ready = new PodCondition();
                        ready.setType(READY);
                        ready.setStatus(c.getStatus());
                        return ready;
                    })
                    .toList());
            status.setInitContainerStatuses(summarize(pod.getStatus().getInitContainerStatuses()));
            status.setContainerStatuses(summarize(pod.getStatus().getContainerStatuses()));
            pod.setStatus(status);
        }
    }

    private static Container summarize(Container container) {
        Container kept = new Container();
        kept.setName(container.getName());
        if (container.getResources() != null && container.getResources().getLimits() != null) {
            ResourceRequirements limits = new ResourceRequirements();
            limits.setLimits(container.getResources().getLimits());
            kept.setResources(limits);
        }
        kept.setEnv(container.getEnv().stream()
                .filter(env -> TrainJobSteps.NPROC_PER_NODE.equals(env.getName()))
                .toList());
        return kept;
    }

    private static List<ContainerStatus> summarize(List<ContainerStatus> statuses) {
        return statuses.stream()
                .map(status -> {
                    ContainerStatus kept = new ContainerStatus();
                    kept.setName(status.getName());
                    kept.setState(terminated(status.getState()));
                    kept.setLastState(terminated(status.getLastState()));
                    kept.setReady(status.getReady());
                    kept.setRestartCount(status.getRestartCount());
                    return kept;
                })
                .toList();
    }

    /** A state with the exit code and reason of its termination, if it is one; else an empty state. */
    private static ContainerState terminated(ContainerState state) {
        ContainerState kept = new ContainerState();
        if (state != null && state.getTerminated() != null) {
            ContainerStateTerminated terminated = new ContainerStateTerminated();
            terminated.setExitCode(state.getTerminated().getExitCode());
            terminated.setReason(state.getTerminated().getReason());
            kept.setTerminated(terminated);
        }
        return kept;
    }
}
