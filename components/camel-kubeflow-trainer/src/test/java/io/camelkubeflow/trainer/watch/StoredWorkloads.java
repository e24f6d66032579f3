package io.camelkubeflow.trainer.watch;

import io.camelkubeflow.trainer.api.TrainJob;
import io.camelkubeflow.trainer.job.KueueWorkloads;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Kueue's Workloads written into the sandbox's store as Kueue's controller writes them (the sandbox has no Kueue: the
 * test decides each step): the Workload CRD served (its schema left open), a job's Workload, its conditions.
 */
public final class StoredWorkloads {
    private final KubernetesClient client;
    private final String namespace;

    public StoredWorkloads(KubernetesClient client, String namespace) {
        this.client = client;
        this.namespace = namespace;
    }

    /** Serves Workloads (kueue.x-k8s.io/v1beta2), as installing Kueue does. */
    public static void serveWorkloads(KubernetesClient client) {
        client.apiextensions()
                .v1()
                .customResourceDefinitions()
                .resource(Serialization.unmarshal("""
                {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
                 "metadata": {"name": "workloads.kueue.x-k8s.io"},
                 "spec": {"group": "kueue.x-k8s.io", "scope": "Namespaced",
                          "names": {"plural": "workloads", "singular": "workload", "kind": "Workload",
                                    "listKind": "WorkloadList"},
                          "versions": [{"name": "v1beta2", "served": true, "storage": true,
                                        "schema": {"openAPIV3Schema": {"type": "object",
                                                   "x-kubernetes-preserve-unknown-fields": true}}}]}}
                """, CustomResourceDefinition.class))
                .create();
    }

    /** The Workload Kueue makes for a job in {@code queue}: owned by it, labelled with its uid, no conditions yet. */
    public GenericKubernetesResource createFor(TrainJob job, String queue) {
        String name = "trainjob-" + job.getMetadata().getName() + "-1";
        return client.genericKubernetesResources(KueueWorkloads.WORKLOADS)
                .inNamespace(namespace)
                .resource(Serialization.unmarshal(
                        """
                        {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "Workload",
                         "metadata": {"name": "%s", "labels": {"kueue.x-k8s.io/job-uid": "%s"},
                                      "ownerReferences": [{"apiVersion": "trainer.kubeflow.org/v1alpha1",
                                          "kind": "TrainJob", "name": "%s", "uid": "%s", "controller": true}]},
                         "spec": {"queueName": "%s", "active": true, "podSets": [{"name": "node", "count": 1}]}}
                        """.formatted(
                                        name,
                                        job.getMetadata().getUid(),
                                        job.getMetadata().getName(),
                                        job.getMetadata().getUid(),
                                        queue),
                        GenericKubernetesResource.class))
                .create();
    }

    /** Sets the Workload's conditions, each {@code type,status,reason,message}, as Kueue writes them. */
    public void conditions(GenericKubernetesResource workload, String... conditions) {
        List<Map<String, Object>> list = new ArrayList<>();
        for (String condition : conditions) {
            String[] parts = condition.split(",", 4);
            list.add(Map.of(
                    "type",
                    parts[0],
                    "status",
                    parts[1],
                    "reason",
                    parts[2],
                    "message",
                    parts[3],
                    "lastTransitionTime",
                    "2026-01-01T00:00:00Z"));
        }
        patch(workload, Serialization.asJson(Map.of("status", Map.of("conditions", list))));
    }

    /** A JSON merge patch of the Workload. */
    void patch(GenericKubernetesResource workload, String patch) {
        client.genericKubernetesResources(KueueWorkloads.WORKLOADS)
                .inNamespace(namespace)
                .withName(workload.getMetadata().getName())
                .patch(PatchContext.of(PatchType.JSON_MERGE), patch);
    }
}
