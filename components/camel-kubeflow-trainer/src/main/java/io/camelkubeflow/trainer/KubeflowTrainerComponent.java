package io.camelkubeflow.trainer;

import java.util.Map;

import io.camelkubeflow.trainer.watch.TrainJobWatcher;
import io.fabric8.kubernetes.client.KubernetesClient;
import org.apache.camel.Endpoint;
import org.apache.camel.spi.Metadata;
import org.apache.camel.spi.annotations.Component;
import org.apache.camel.support.DefaultComponent;
import org.apache.camel.util.PropertiesHelper;
import org.apache.camel.util.URISupport;

/** The {@code kubeflow-trainer:} component: start, wait for and follow Kubeflow Trainer v2 TrainJobs. */
@Component("kubeflow-trainer")
public class KubeflowTrainerComponent extends DefaultComponent {

    @Metadata(autowired = true, description = "The KubernetesClient shared by all endpoints that set none of their own"
                                              + " (Camel Quarkus registers one from the Quarkus kubernetes-client).")
    private KubernetesClient kubernetesClient;

    private final Map<KubernetesClient, TrainJobWatcher> watchers = new java.util.concurrent.ConcurrentHashMap<>();

    @Override
    protected Endpoint createEndpoint(String uri, String remaining, Map<String, Object> parameters) throws Exception {
        KubeflowTrainerOperation operation;
        try {
            operation = KubeflowTrainerOperation.valueOf(remaining);
        } catch (IllegalArgumentException e) {
            // sanitized, and without the enum's own message: a URI missing its '?' holds its secrets in 'remaining'
            throw new IllegalArgumentException("Unknown kubeflow-trainer operation '" + URISupport.sanitizeUri(remaining)
                    + "' in " + URISupport.sanitizeUri(uri) + "; use one of " + java.util.Arrays.stream(
                            KubeflowTrainerOperation.values()).map(o -> "kubeflow-trainer:" + o).toList());
        }
        KubeflowTrainerConfiguration configuration = new KubeflowTrainerConfiguration();
        configuration.setKubernetesClient(kubernetesClient);
        // multi-value options (env.X=, labels.X=, ...) are collected here, as Camel leaves prefixed keys to the component
        configuration.setEnv(PropertiesHelper.extractProperties(parameters, "env."));
        configuration.setLabels(PropertiesHelper.extractProperties(parameters, "labels."));
        configuration.setAnnotations(PropertiesHelper.extractProperties(parameters, "annotations."));
        configuration.setResources(PropertiesHelper.extractProperties(parameters, "resources."));
        KubeflowTrainerEndpoint endpoint = new KubeflowTrainerEndpoint(uri, this, operation, configuration);
        setProperties(endpoint, parameters);
        return endpoint;
    }

    /** One watcher per client, shared by all its endpoints: one watch connection per namespace in all. */
    TrainJobWatcher watcherFor(KubernetesClient client) {
        return watchers.computeIfAbsent(client, TrainJobWatcher::new);
    }

    /** Closes the watcher of a client an endpoint built itself and is about to close. */
    void releaseWatcher(KubernetesClient client) {
        TrainJobWatcher watcher = watchers.remove(client);
        if (watcher != null) {
            watcher.close();
        }
    }

    @Override
    protected void doStop() throws Exception {
        watchers.values().forEach(TrainJobWatcher::close);
        watchers.clear();
        super.doStop();
    }

    public KubernetesClient getKubernetesClient() {
        return kubernetesClient;
    }

    public void setKubernetesClient(KubernetesClient kubernetesClient) {
        this.kubernetesClient = kubernetesClient;
    }
}
