package io.camelkubeflow.trainer.watch;

import io.camelkubeflow.trainer.api.TrainJob;
import io.camelkubeflow.trainer.api.TrainJobStatus;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.utils.Serialization;

/** TrainJobs written straight into the sandbox's store, status included, so watch tests set each phase themselves. */
final class StoredTrainJobs {
    /** jobsStatus of a job whose trainer pods run. */
    static final String RUNNING = "jobsStatus: [{name: node, active: 1, ready: 1}]";
    /** jobsStatus of a job whose pods are between two writes: a running job does not go back to Created. */
    static final String NO_PODS = "jobsStatus: [{name: node, active: 0, ready: 0}]";

    private final KubernetesClient client;
    private final String namespace;

    StoredTrainJobs(KubernetesClient client, String namespace) {
        this.client = client;
        this.namespace = namespace;
    }

    static String condition(String type, String reason, String message, String lastTransitionTime) {
        return "conditions: [{type: %s, status: \"True\", reason: %s, message: \"%s\", lastTransitionTime: \"%s\"}]"
                .formatted(type, reason, message, lastTransitionTime);
    }

    TrainJob create(String name) {
        return client.resources(TrainJob.class)
                .inNamespace(namespace)
                .resource(Serialization.unmarshal("""
                apiVersion: trainer.kubeflow.org/v1alpha1
                kind: TrainJob
                metadata: {name: %s}
                spec: {runtimeRef: {name: torch-distributed}}
                """.formatted(name), TrainJob.class))
                .create();
    }

    /** A job as Kueue's webhook leaves one that names a LocalQueue: labelled, and suspended until Kueue admits it. */
    TrainJob createQueued(String name, String queue) {
        return client.resources(TrainJob.class)
                .inNamespace(namespace)
                .resource(Serialization.unmarshal("""
                apiVersion: trainer.kubeflow.org/v1alpha1
                kind: TrainJob
                metadata: {name: %s, labels: {kueue.x-k8s.io/queue-name: %s}}
                spec: {runtimeRef: {name: torch-distributed}, suspend: true}
                """.formatted(name, queue), TrainJob.class))
                .create();
    }

    /** Admits the job as Kueue does: unsuspends it. */
    TrainJob admit(String name) {
        return client.resources(TrainJob.class)
                .inNamespace(namespace)
                .withName(name)
                .patch(PatchContext.of(PatchType.JSON_MERGE), "{\"spec\": {\"suspend\": false}}");
    }

    /** Replaces the job's status with {@code statusYaml} (the fields of TrainJob.status). */
    TrainJob status(String name, String statusYaml) {
        TrainJob job = get(name);
        job.setStatus(Serialization.unmarshal(statusYaml, TrainJobStatus.class));
        return client.resources(TrainJob.class)
                .inNamespace(namespace)
                .resource(job)
                .updateStatus();
    }

    TrainJob get(String name) {
        return client.resources(TrainJob.class)
                .inNamespace(namespace)
                .withName(name)
                .get();
    }

    void delete(String name) {
        client.resources(TrainJob.class).inNamespace(namespace).withName(name).delete();
    }
}
