package io.camelkubeflow.trainer.sandbox.cluster;

import static io.camelkubeflow.trainer.sandbox.cluster.ControllerWrites.now;

import io.camelkubeflow.trainer.sandbox.http.PodLogs;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodConditionBuilder;
import io.fabric8.kubernetes.api.model.PodIP;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the kubelet does with the pods of a TrainJob, emulated: their phase and container status as it reports them,
 * their logs (written to {@link PodLogs}), a container's crash and restart.
 */
final class Kubelet {
    /** The controller emulation's log, where these lines were written before this class was split from it. */
    private static final Logger LOG = LoggerFactory.getLogger(TrainJobControllerEmulation.class);

    private final KubernetesClient client;
    private final PodLogs podLogs;
    private final ScheduledExecutorService scheduler;

    Kubelet(KubernetesClient client, PodLogs podLogs, ScheduledExecutorService scheduler) {
        this.client = client;
        this.podLogs = podLogs;
        this.scheduler = scheduler;
    }

    /** The container crashes and a new one starts logging; the pod's status says so {@code statusDelay} ms later. */
    void restartContainer(Pod pod, int attempt, long statusDelay) {
        log(pod, "sandbox: crashed (attempt " + attempt + ")");
        podLogs.restart(pod.getMetadata().getNamespace(), pod.getMetadata().getName());
        log(pod, "sandbox: restarted (attempt " + (attempt + 1) + ")");
        String finishedAt = now();
        scheduler.schedule(
                () -> {
                    try {
                        client.pods()
                                .inNamespace(pod.getMetadata().getNamespace())
                                .withName(pod.getMetadata().getName())
                                .editStatus(p -> new PodBuilder(p)
                                        .editStatus()
                                        .editFirstContainerStatus()
                                        .withRestartCount(attempt)
                                        .withNewLastState()
                                        .withNewTerminated()
                                        .withExitCode(1)
                                        .withReason("Error")
                                        .withFinishedAt(finishedAt)
                                        .endTerminated()
                                        .endLastState()
                                        .endContainerStatus()
                                        .endStatus()
                                        .build());
                    } catch (RuntimeException e) {
                        LOG.warn(
                                "Sandbox controller could not restart {}: {}",
                                pod.getMetadata().getName(),
                                e.getMessage());
                    }
                },
                statusDelay,
                TimeUnit.MILLISECONDS);
    }

    /** The pod's container writes its last line and exits: its log streams end, its phase is final. */
    void exit(Pod pod, String lastLine, String phase, int exitCode) {
        log(pod, lastLine);
        podLogs.end(pod.getMetadata().getNamespace(), pod.getMetadata().getName());
        setPodPhase(pod, phase, exitCode);
    }

    void log(Pod pod, String line) {
        podLogs.append(pod.getMetadata().getNamespace(), pod.getMetadata().getName(), line);
    }

    void setPodPhase(Pod pod, String phase, Integer exitCode) {
        podLogs.started(pod.getMetadata().getNamespace(), pod.getMetadata().getName());
        client.pods()
                .inNamespace(pod.getMetadata().getNamespace())
                .withName(pod.getMetadata().getName())
                .editStatus(p -> {
                    var spec = p.getSpec().getContainers().get(0);
                    String container = spec.getName();
                    var before = p.getStatus().getContainerStatuses().isEmpty()
                            ? null
                            : p.getStatus().getContainerStatuses().get(0);
                    PodBuilder builder = new PodBuilder(p);
                    // the kubelet's Ready condition: true while the container runs
                    builder.editStatus()
                            .withPhase(phase)
                            .withContainerStatuses()
                            .withConditions(new PodConditionBuilder()
                                    .withType("Ready")
                                    .withStatus(exitCode == null ? "True" : "False")
                                    .withReason(exitCode == null ? null : "PodCompleted")
                                    .withLastTransitionTime(now())
                                    .build())
                            .endStatus();
                    // what a kubelet always reports of a container: its image, the digest it ran, its restarts
                    if (p.getStatus().getStartTime() == null) {
                        builder.editStatus()
                                .withStartTime(now())
                                .withHostIP("10.0.0.1")
                                .withPodIP(podIp(p))
                                .withPodIPs(new PodIP(podIp(p)))
                                .endStatus();
                    }
                    if (exitCode == null) {
                        builder.editStatus()
                                .addNewContainerStatus()
                                .withName(container)
                                .withReady(true)
                                .withStarted(true)
                                .withImage(spec.getImage())
                                .withImageID(PodRendering.imageId(spec.getImage()))
                                .withRestartCount(0)
                                .withContainerID(containerId(p))
                                .withNewState()
                                .withNewRunning()
                                .withStartedAt(now())
                                .endRunning()
                                .endState()
                                .endContainerStatus()
                                .endStatus();
                    } else {
                        String startedAt = before == null || before.getState().getRunning() == null
                                ? now()
                                : before.getState().getRunning().getStartedAt();
                        builder.editStatus()
                                .addNewContainerStatus()
                                .withName(container)
                                .withReady(false)
                                .withStarted(false)
                                .withImage(spec.getImage())
                                .withImageID(PodRendering.imageId(spec.getImage()))
                                .withRestartCount(0)
                                .withContainerID(containerId(p))
                                .withNewState()
                                .withNewTerminated()
                                .withExitCode(exitCode)
                                .withReason(exitCode == 0 ? "Completed" : "Error")
                                .withStartedAt(startedAt)
                                .withFinishedAt(now())
                                .withContainerID(containerId(p))
                                .endTerminated()
                                .endState()
                                .endContainerStatus()
                                .endStatus();
                    }
                    if (before != null) {
                        // a restarted container keeps its count and the crash it restarted from
                        builder.editStatus()
                                .editFirstContainerStatus()
                                .withRestartCount(before.getRestartCount())
                                .withLastState(before.getLastState())
                                .endContainerStatus()
                                .endStatus();
                    }
                    return builder.build();
                });
    }

    private static String podIp(Pod pod) {
        return "10.244.0." + (Math.floorMod(pod.getMetadata().getName().hashCode(), 250) + 2);
    }

    private static String containerId(Pod pod) {
        return "containerd://"
                + PodRendering.imageId(pod.getMetadata().getUid()).replaceAll(".*sha256:", "");
    }
}
