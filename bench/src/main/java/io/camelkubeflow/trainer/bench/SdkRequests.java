package io.camelkubeflow.trainer.bench;

import io.camelkubeflow.trainer.api.TrainJob;
import io.camelkubeflow.trainer.runtime.RuntimeKind;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.List;

/**
 * The requests of the Kubeflow Python SDK's {@code TrainerClient.get_job} (kubeflow 0.5.0), made from Java with a
 * plain fabric8 client: what its {@code wait_for_job_status} sends every 2 s and its {@code get_job_logs} before it
 * reads a log.
 */
final class SdkRequests {
    private SdkRequests() {}

    /** A TrainJob as {@code get_job} reads it, with the pods of its steps. */
    record Job(TrainJob trainJob, List<Pod> pods) {}

    /** GET the TrainJob, GET its runtime (the namespaced one first, then the cluster's), LIST the job's pods. */
    static Job getJob(KubernetesClient client, String namespace, String name, String runtime) {
        TrainJob job = client.resources(TrainJob.class)
                .inNamespace(namespace)
                .withName(name)
                .get();
        if (client.genericKubernetesResources(RuntimeKind.TrainingRuntime.context())
                        .inNamespace(namespace)
                        .withName(runtime)
                        .get()
                == null) {
            client.genericKubernetesResources(RuntimeKind.ClusterTrainingRuntime.context())
                    .withName(runtime)
                    .get();
        }
        List<Pod> pods = client.pods()
                .inNamespace(namespace)
                .withLabel("jobset.sigs.k8s.io/jobset-name", name)
                .list()
                .getItems();
        return new Job(job, pods);
    }
}
