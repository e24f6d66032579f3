package io.camelkubeflow.trainer;

import java.net.HttpURLConnection;
import java.util.Map;

import io.camelkubeflow.trainer.api.TrainJob;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import org.apache.camel.health.HealthCheckResultBuilder;
import org.apache.camel.impl.health.AbstractHealthCheck;

/**
 * Readiness of the component's Kubernetes API: the API server answers, Kubeflow Trainer is installed (the TrainJob
 * API exists) and TrainJobs may be listed in the namespace. One list request of at most one item per call. Not a
 * liveness check: restarting the app does not bring an API server back.
 */
final class KubeflowTrainerHealthCheck extends AbstractHealthCheck {
    private final KubernetesClient client;
    private final String namespace;

    KubeflowTrainerHealthCheck(String id, KubernetesClient client, String namespace) {
        super("camel", id);
        this.client = client;
        this.namespace = namespace;
    }

    /** {@code kubeflow-trainer:<namespace>@<host:port>}: which namespace of which API server the check is about. */
    static String id(KubernetesClient client, String namespace) {
        java.net.URL api = client.getMasterUrl();
        return "kubeflow-trainer:" + namespace + "@" + api.getHost() + ":"
                + (api.getPort() == -1 ? api.getDefaultPort() : api.getPort());
    }

    @Override
    public boolean isLiveness() {
        return false;
    }

    @Override
    protected void doCall(HealthCheckResultBuilder builder, Map<String, Object> options) {
        builder.detail("api.server", String.valueOf(client.getMasterUrl()));
        builder.detail("namespace", namespace);
        try {
            client.resources(TrainJob.class).inNamespace(namespace)
                    .list(new io.fabric8.kubernetes.api.model.ListOptionsBuilder().withLimit(1L).build());
            builder.up();
        } catch (KubernetesClientException e) {
            // the explanation as a detail too: health endpoints (MicroProfile Health) show details, not the message;
            // no stack trace, as health endpoints are open to probes
            String explanation = explain(e);
            builder.message(explanation).detail("reason", explanation).down();
        }
    }

    private String explain(KubernetesClientException e) {
        if (e.getCode() <= 0) {
            return "the API server at " + client.getMasterUrl() + " does not answer: " + e.getMessage()
                    + (e.getCause() == null ? "" : " (" + e.getCause().getMessage() + ")");
        }
        return switch (e.getCode()) {
            case HttpURLConnection.HTTP_NOT_FOUND -> "Kubeflow Trainer is not installed: the API server at "
                    + client.getMasterUrl() + " has no " + TrainJob.GROUP + "/" + TrainJob.VERSION + " trainjobs; install"
                    + " Kubeflow Trainer v2 (its CRDs and controller) in this cluster";
            case HttpURLConnection.HTTP_UNAUTHORIZED, HttpURLConnection.HTTP_FORBIDDEN -> "not allowed to list TrainJobs"
                    + " in namespace " + namespace + " (" + e.getCode() + "): bind the Role in deploy/ to the app's"
                    + " service account";
            default -> "the API server at " + client.getMasterUrl() + " answered " + e.getCode() + ": "
                    + e.getMessage();
        };
    }
}
