package io.camelkubeflow.trainer.routes;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

import io.camelkubeflow.trainer.sandbox.TrainerSandbox;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import jakarta.enterprise.context.ApplicationScoped;
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
        TrainerSandbox.Options options = TrainerSandbox.Options.defaults().withPort(sandboxPort)
                .withController(Duration.ofMillis(sandboxStartMillis), Duration.ofMillis(sandboxRunMillis));
        sandbox = TrainerSandbox.start(sandboxRunScripts ? options.withScriptsRun() : options);
        for (Path manifest : sandboxManifests.orElse(List.of())) {
            try (InputStream yaml = Files.newInputStream(manifest)) {
                sandbox.client().load(yaml).items().forEach(item -> sandbox.client().resource(item).create());
            } catch (IOException e) {
                throw new UncheckedIOException("cannot read trainer.sandbox.manifests file " + manifest, e);
            }
            LOG.infof("Created the objects of %s in the sandbox", manifest);
        }
        // the app's own namespace, as the cluster's admin would have made it (the manifests may have made it already)
        sandbox.createNamespace(namespace);
        LOG.warnf("No Kubernetes cluster configured: using the LOCAL TRAINER SANDBOX at %s, an emulation holding the"
                + " Kubeflow Trainer CRDs and default runtimes, whose emulated controller runs TrainJobs%s. Set"
                + " trainer.cluster=cluster (or provide a kubeconfig) to use a real cluster.", sandbox.masterUrl(),
                sandboxRunScripts ? " (a staged Python script runs with the local python3, one process per node;"
                        + " other code does not run)"
                        : " without running their code");
        sandbox.client().getConfiguration().setRequestRetryBackoffLimit(0);
        return sandbox.client();
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
