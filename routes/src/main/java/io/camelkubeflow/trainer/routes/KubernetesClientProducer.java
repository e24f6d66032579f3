package io.camelkubeflow.trainer.routes;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

import io.camelkubeflow.trainer.sandbox.TrainerSandbox;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.quarkus.runtime.StartupEvent;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.inject.Disposes;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.jboss.logging.Logger;

/** The one KubernetesClient of the app; the kubeflow-trainer component is autowired with it. */
@ApplicationScoped
public class KubernetesClientProducer {
    private static final Logger LOG = Logger.getLogger(KubernetesClientProducer.class);

    @ConfigProperty(name = "trainer.cluster", defaultValue = "auto")
    String cluster;

    @ConfigProperty(name = "trainer.sandbox.port", defaultValue = "0")
    int sandboxPort;

    @ConfigProperty(name = "trainer.sandbox.start-millis", defaultValue = "500")
    long sandboxStartMillis;

    @ConfigProperty(name = "trainer.sandbox.run-millis", defaultValue = "2000")
    long sandboxRunMillis;

    @ConfigProperty(name = "trainer.sandbox.run-scripts", defaultValue = "true")
    boolean sandboxRunScripts;

    /** YAML files the sandbox is given at start, as kubectl create -f would: RBAC, runtimes, Secrets... */
    @ConfigProperty(name = "trainer.sandbox.manifests")
    Optional<List<Path>> sandboxManifests;

    @ConfigProperty(name = "trainer.namespace", defaultValue = "default")
    String namespace;

    private TrainerSandbox sandbox;

    @Produces
    @Singleton
    KubernetesClient kubernetesClient() {
        ClusterConnection connection = ClusterConnection.choose(cluster, System.getenv(),
                Path.of(System.getProperty("user.home")));
        if (connection == ClusterConnection.CLUSTER) {
            KubernetesClient client = new KubernetesClientBuilder().build();
            // the component retries 429, 5xx and refused connections itself (about 3 s); fabric8's own 10 retries
            // would stack on it and hold a caller ~20 s before its 503
            client.getConfiguration().setRequestRetryBackoffLimit(0);
            LOG.infof("Using the Kubernetes cluster at %s", client.getMasterUrl());
            return client;
        }
        // the app's own namespace, as the cluster's admin would have made it (the manifests may have made it already)
        TrainerSandbox.Options options = TrainerSandbox.Options.defaults().withPort(sandboxPort)
                .withController(Duration.ofMillis(sandboxStartMillis), Duration.ofMillis(sandboxRunMillis))
                .withInstalled(sandboxManifests.orElse(List.of()), namespace);
        // installed beside the app's own start, on the other core; requests wait for it, and so does "started"
        sandbox = TrainerSandbox.starting(sandboxRunScripts ? options.withScriptsRun() : options);
        LOG.warnf("No Kubernetes cluster configured: using the LOCAL TRAINER SANDBOX at %s, an emulation holding the"
                + " Kubeflow Trainer CRDs and default runtimes, whose emulated controller runs TrainJobs%s. Set"
                + " trainer.cluster=cluster (or provide a kubeconfig) to use a real cluster.", sandbox.masterUrl(),
                sandboxRunScripts ? " (a staged Python script runs with the local python3, one process per node;"
                        + " other code does not run)"
                        : " without running their code");
        sandbox.client().getConfiguration().setRequestRetryBackoffLimit(0);
        return sandbox.client();
    }

    /** The app is up only once the sandbox it uses is: a manifest it could not create fails the start. */
    void awaitSandbox(@Observes StartupEvent start) {
        if (sandbox != null) {
            sandbox.awaitStarted();
            sandboxManifests.ifPresent(manifests -> LOG.infof("The sandbox holds the objects of %s", manifests));
        }
    }

    /** The local sandbox, when the app runs on it; else null. */
    TrainerSandbox sandbox() {
        return sandbox;
    }

    void close(@Disposes KubernetesClient client) {
        if (sandbox != null) {
            sandbox.close();
        } else {
            client.close();
        }
    }
}
