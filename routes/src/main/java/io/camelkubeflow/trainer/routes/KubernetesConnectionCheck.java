package io.camelkubeflow.trainer.routes;

import io.camelkubeflow.trainer.quarkus.LocalTrainerSandbox;
import io.quarkus.runtime.StartupEvent;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import org.apache.camel.CamelContext;
import org.apache.camel.health.HealthCheckHelper;
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
    LocalTrainerSandbox localSandbox;

    @Inject
    CamelContext camel;

    /**
     * Asks Camel's readiness checks once as the app starts, here, off the event loop: the component's check of a
     * namespace then asks the API server and waits for its answer (at most the client's request timeout), which it
     * keeps. SmallRye Health calls it on an event loop, where it only answers with that kept answer, so without this
     * the first {@code /q/health/ready} of every start was a 503 "no answer yet".
     */
    void onStart(@Observes StartupEvent start) {
        HealthCheckHelper.invokeReadiness(camel);
    }

    @Override
    public HealthCheckResponse call() {
        return HealthCheckResponse.named("kubernetes-connection")
                .up()
                .withData("connection", localSandbox.sandbox() != null ? "sandbox" : "cluster")
                .build();
    }
}
