package io.camelkubeflow.trainer.watch;

/**
 * One step of a TrainJob as the Kubeflow SDK names it: {@code dataset-initializer}, {@code model-initializer},
 * {@code node-0}, {@code node-1}... (with MPI the launcher is {@code node-0} and the node pods follow from
 * {@code node-1}), read from the pod that runs it.
 *
 * @param status      the pod's phase (Pending, Running, Succeeded, Failed), null before it has one
 * @param device      {@code gpu}, {@code tpu}, {@code mig-<profile>}, {@code npu} or {@code cpu}, from the
 *                    container's resource limits; null when it has none (the SDK's "Unknown")
 * @param deviceCount the limit of that device as the pod states it ({@code 2}, {@code 500m}); for a trainer node,
 *                    the processes per node when the Trainer set them ({@code PET_NPROC_PER_NODE}); null when unknown
 */
public record TrainJobStep(String name, String status, String device, String deviceCount, String podName) {}
