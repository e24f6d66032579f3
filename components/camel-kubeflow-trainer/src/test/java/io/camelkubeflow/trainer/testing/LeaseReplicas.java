package io.camelkubeflow.trainer.testing;

import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.util.Map;
import org.apache.camel.component.kubernetes.KubernetesConfiguration;
import org.apache.camel.component.kubernetes.cluster.KubernetesClusterService;
import org.apache.camel.component.kubernetes.cluster.LeaseResourceType;

/**
 * A replica of an app that elects its leader with camel-kubernetes' Lease cluster service, as the routes app does
 * in a cluster: its pod (Running and Ready, labelled as the group's) and its cluster service, with short lease times
 * so tests see elections quickly.
 */
public final class LeaseReplicas {
    private LeaseReplicas() {}

    /**
     * Registers the pod {@code pod} in {@code namespace} with {@code labels} and answers the cluster service of that
     * replica, on a client of its own made from {@code client}'s configuration (the service closes it when it stops).
     */
    public static KubernetesClusterService clusterService(
            TrainerApiServer api, KubernetesClient client, String namespace, String pod, Map<String, String> labels) {
        api.client()
                .pods()
                .inNamespace(namespace)
                .resource(new PodBuilder()
                        .withNewMetadata()
                        .withName(pod)
                        .addToLabels(labels)
                        .endMetadata()
                        .withNewSpec()
                        .addNewContainer()
                        .withName("app")
                        .withImage("app")
                        .endContainer()
                        .endSpec()
                        .build())
                .create();
        // status is a subresource: set apart from the create, as the kubelet would
        api.client()
                .pods()
                .inNamespace(namespace)
                .withName(pod)
                .editStatus(p -> new PodBuilder(p)
                        .withNewStatus()
                        .withPhase("Running")
                        .addNewCondition()
                        .withType("Ready")
                        .withStatus("True")
                        .endCondition()
                        .endStatus()
                        .build());
        KubernetesConfiguration connection = new KubernetesConfiguration();
        connection.setKubernetesClient(new KubernetesClientBuilder()
                .withConfig(client.getConfiguration())
                .build());
        KubernetesClusterService cluster = new KubernetesClusterService(connection);
        cluster.setKubernetesNamespace(namespace);
        cluster.setKubernetesResourcesNamespace(namespace);
        cluster.setPodName(pod);
        cluster.setClusterLabels(labels);
        cluster.setLeaseResourceType(LeaseResourceType.Lease);
        cluster.setLeaseDurationMillis(2000);
        cluster.setRenewDeadlineMillis(1500);
        cluster.setRetryPeriodMillis(200);
        return cluster;
    }
}
