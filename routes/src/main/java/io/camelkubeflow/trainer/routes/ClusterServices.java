package io.camelkubeflow.trainer.routes;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Inject;
import jakarta.inject.Named;
import jakarta.inject.Singleton;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.apache.camel.CamelContext;
import org.apache.camel.cluster.CamelClusterService;
import org.apache.camel.component.file.cluster.FileLockClusterService;
import org.apache.camel.component.kubernetes.KubernetesConfiguration;
import org.apache.camel.component.kubernetes.cluster.KubernetesClusterService;
import org.apache.camel.component.kubernetes.cluster.LeaseResourceType;
import org.apache.camel.component.master.MasterComponent;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.jboss.logging.Logger;

/**
 * Who leads the event-driven routes ({@code master:} routes: completion, Kafka results) when several replicas run:
 * {@code trainer.ha.cluster-service=kubernetes} elects one pod with a Kubernetes Lease in the app's namespace (camel-
 * kubernetes' cluster service: every replica is a pod labelled {@code trainer.ha.cluster-labels}); {@code file}, the
 * local default, takes a lock file under {@code trainer.ha.file-root}, so instances sharing a directory elect one too.
 */
@ApplicationScoped
public class ClusterServices {
    private static final Logger LOG = Logger.getLogger(ClusterServices.class);

    @Inject
    KubernetesClient client;

    @ConfigProperty(name = "trainer.ha.cluster-service", defaultValue = "file")
    String kind;

    @ConfigProperty(name = "trainer.ha.file-root", defaultValue = ".camel-kubeflow-trainer/cluster")
    Path fileRoot;

    @ConfigProperty(name = "trainer.namespace")
    String namespace;

    /** The pod this replica runs in; deploy/ sets POD_NAME from the downward API. */
    @ConfigProperty(name = "trainer.ha.pod-name")
    Optional<String> podName;

    /** The labels that all replicas' pods carry: key=value, comma-separated. */
    @ConfigProperty(name = "trainer.ha.cluster-labels", defaultValue = "app.kubernetes.io/name=camel-kubeflow-trainer")
    String clusterLabels;

    @ConfigProperty(name = "trainer.ha.lease-duration-millis", defaultValue = "15000")
    long leaseDurationMillis;

    @ConfigProperty(name = "trainer.ha.renew-deadline-millis", defaultValue = "10000")
    long renewDeadlineMillis;

    @ConfigProperty(name = "trainer.ha.retry-period-millis", defaultValue = "2000")
    long retryPeriodMillis;

    /** The master component, with the cluster service its routes are led by (started and stopped with Camel). */
    @Produces
    @Singleton
    @Named("master")
    MasterComponent master(CamelContext camel) throws Exception {
        CamelClusterService service = switch (kind.trim()) {
            case "kubernetes" -> kubernetes();
            case "file" -> file();
            default ->
                throw new IllegalArgumentException("trainer.ha.cluster-service='" + kind + "' is not a choice;"
                        + " use kubernetes (a Lease, among pods) or file (a lock file, among local instances)");
        };
        camel.addService(service, true, true);
        MasterComponent master = new MasterComponent();
        master.setService(service);
        return master;
    }

    private CamelClusterService kubernetes() {
        KubernetesConfiguration connection = new KubernetesConfiguration();
        // its own client: the cluster service closes it when it stops
        connection.setKubernetesClient(new KubernetesClientBuilder()
                .withConfig(client.getConfiguration())
                .build());
        KubernetesClusterService service = new KubernetesClusterService(connection);
        service.setKubernetesNamespace(namespace);
        service.setKubernetesResourcesNamespace(namespace);
        service.setPodName(
                podName.orElseThrow(
                        () -> new IllegalStateException(
                                "trainer.ha.cluster-service=kubernetes"
                                        + " needs the pod's name: set POD_NAME (deploy/ sets it from the downward API) or trainer.ha.pod-name")));
        service.setClusterLabels(labels(clusterLabels));
        service.setLeaseResourceType(LeaseResourceType.Lease);
        service.setLeaseDurationMillis(leaseDurationMillis);
        service.setRenewDeadlineMillis(renewDeadlineMillis);
        service.setRetryPeriodMillis(retryPeriodMillis);
        LOG.infof(
                "Event routes are led by one replica: a Lease in namespace %s among pods labelled %s",
                namespace, clusterLabels);
        return service;
    }

    private static Map<String, String> labels(String text) {
        Map<String, String> labels = new LinkedHashMap<>();
        for (String pair : text.split(",")) {
            String[] keyValue = pair.trim().split("=", 2);
            if (keyValue.length != 2 || keyValue[0].isBlank()) {
                throw new IllegalArgumentException("trainer.ha.cluster-labels='" + text + "': write key=value pairs"
                        + " separated by commas, e.g. app.kubernetes.io/name=camel-kubeflow-trainer");
            }
            labels.put(keyValue[0].trim(), keyValue[1].trim());
        }
        return labels;
    }

    private CamelClusterService file() {
        FileLockClusterService service = new FileLockClusterService();
        service.setRoot(fileRoot.toAbsolutePath().toString());
        // the first try soon, then every second: a local instance leads as soon as it has started
        service.setAcquireLockDelay(100, TimeUnit.MILLISECONDS);
        service.setAcquireLockInterval(1, TimeUnit.SECONDS);
        return service;
    }
}
