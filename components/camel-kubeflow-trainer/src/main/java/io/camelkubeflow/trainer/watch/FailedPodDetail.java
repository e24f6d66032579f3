package io.camelkubeflow.trainer.watch;

import io.camelkubeflow.trainer.api.JobSetLabels;
import io.fabric8.kubernetes.api.model.ContainerStateTerminated;
import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.stream.Stream;

/** Finds why a TrainJob's pods failed: the first container that exited non-zero, now or in its previous attempt. */
public final class FailedPodDetail {
    private FailedPodDetail() {}

    /** "pod P container C exited with code N (Reason)", or null when no failed container is found. */
    public static String find(KubernetesClient client, String namespace, String jobName) {
        List<Pod> pods = client.pods()
                .inNamespace(namespace)
                .withLabel(JobSetLabels.JOBSET_NAME, jobName)
                .list()
                .getItems();
        return pods.stream()
                .sorted(Comparator.comparing((Pod p) -> p.getMetadata().getName()))
                .map(FailedPodDetail::describe)
                .filter(Objects::nonNull)
                .findFirst()
                .orElse(null);
    }

    static String describe(Pod pod) {
        if (pod.getStatus() == null) {
            return null;
        }
        return Stream.concat(
                        pod.getStatus().getInitContainerStatuses().stream(),
                        pod.getStatus().getContainerStatuses().stream())
                .map(status -> describe(pod, status))
                .filter(Objects::nonNull)
                .findFirst()
                .orElse(null);
    }

    private static String describe(Pod pod, ContainerStatus status) {
        // JobSet restarts failed pods (OnFailure): the crash may be in the previous attempt
        for (ContainerStateTerminated terminated : new ContainerStateTerminated[] {
            status.getState() == null ? null : status.getState().getTerminated(),
            status.getLastState() == null ? null : status.getLastState().getTerminated()
        }) {
            if (terminated != null && terminated.getExitCode() != null && terminated.getExitCode() != 0) {
                return "pod " + pod.getMetadata().getName() + " container " + status.getName() + " exited with code "
                        + terminated.getExitCode()
                        + (terminated.getReason() == null ? "" : " (" + terminated.getReason() + ")");
            }
        }
        return null;
    }
}
