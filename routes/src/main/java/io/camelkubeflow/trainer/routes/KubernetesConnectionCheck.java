package io.camelkubeflow.trainer.routes;

import io.fabric8.kubernetes.client.KubernetesClient;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Readiness;

/**
 * Readiness says which Kubernetes API the app acts on, so nobody mistakes the local sandbox for a cluster: {@code
 * connection} is {@code sandbox} or {@code cluster}, with the API's URL.
 */
@Readiness
@ApplicationScoped
public class KubernetesConnectionCheck implements HealthCheck {
    @Inject
    KubernetesClient client;

    @Inject
    KubernetesClientProducer clients;

    @Override
    public HealthCheckResponse call() {
        return HealthCheckResponse.named("kubernetes-connection").up()
                .withData("connection", clients.sandbox() != null ? "sandbox" : "cluster")
                .withData("apiServer", String.valueOf(client.getMasterUrl()))
                .build();
    }
}
