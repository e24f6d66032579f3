package io.camelkubeflow.trainer.routes;

import io.camelkubeflow.trainer.quarkus.LocalTrainerSandbox;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Readiness;

/**
 * Readiness says which Kubernetes API the app acts on, so nobody mistakes the local sandbox for a cluster: {@code
 * connection} is {@code sandbox} or {@code cluster}. Not the API's URL: health endpoints are open, and the address
 * of the local sandbox is for its owner (the app's log names it at start).
 */
@Readiness
@ApplicationScoped
public class KubernetesConnectionCheck implements HealthCheck {
    @Inject
    LocalTrainerSandbox clients;

    @Override
    public HealthCheckResponse call() {
        return HealthCheckResponse.named("kubernetes-connection").up()
                .withData("connection", clients.sandbox() != null ? "sandbox" : "cluster")
                .build();
    }
}
