package io.camelkubeflow.trainer.quarkus;

import io.camelkubeflow.trainer.sandbox.TrainerSandbox;
import io.fabric8.kubernetes.client.Config;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;
import java.util.List;
import org.jboss.logging.Logger;

/**
 * The local sandbox an app runs in its own JVM when {@code quarkus.kubeflow-trainer.cluster} chooses it (TrainerCluster
 * decides): a bean only in an app that carries {@code io.camelkubeflow:camel-kubeflow-trainer-sandbox}, so the class
 * that names the sandbox's types is never looked at in one that does not. The app's own code reaches the sandbox
 * through it (its tokens, the requests it recorded).
 */
public class LocalTrainerSandbox {
    private static final Logger LOG = Logger.getLogger(LocalTrainerSandbox.class);

    /** The client's configuration, made (and the choice with it) on first use. */
    @Inject
    Instance<Config> clientConfig;

    private volatile TrainerSandbox sandbox;

    /** Starts the sandbox (its install goes on beside the app's start) and answers how its admin connects to it. */
    synchronized Config start(KubeflowTrainerConfig.SandboxConfig settings) {
        TrainerSandbox.Options options = TrainerSandbox.Options.defaults()
                .withPort(settings.port())
                .withController(settings.startDelay(), settings.runTime())
                .withInstalled(
                        settings.manifests().orElse(List.of()),
                        settings.namespaces().orElse(List.of()).toArray(String[]::new));
        sandbox = TrainerSandbox.starting(settings.runScripts() ? options.withScriptsRun() : options);
        LOG.warnf(
                "No Kubernetes cluster configured: using the LOCAL TRAINER SANDBOX at %s, an emulation holding the"
                        + " Kubeflow Trainer CRDs and default runtimes, whose emulated controller runs TrainJobs%s. Configure"
                        + " a cluster (a kubeconfig, quarkus.kubernetes-client.api-server-url) and set"
                        + " quarkus.kubeflow-trainer.cluster=cluster to use a real one.",
                sandbox.masterUrl(),
                settings.runScripts()
                        ? " (a staged Python script runs with the local python3, one process per node;"
                                + " other code does not run)"
                        : " without running their code");
        return sandbox.client().getConfiguration();
    }

    /** Waits for the sandbox's install: a manifest it could not create fails here. */
    void awaitStarted(KubeflowTrainerConfig.SandboxConfig settings) {
        if (sandbox != null) {
            sandbox.awaitStarted();
            settings.manifests().ifPresent(manifests -> LOG.infof("The sandbox holds the objects of %s", manifests));
        }
    }

    /** The local sandbox the client talks to, or null when it talks to another API server. */
    public TrainerSandbox sandbox() {
        // the choice is made with the client's configuration
        clientConfig.get();
        return sandbox;
    }

    @PreDestroy
    synchronized void close() {
        if (sandbox != null) {
            sandbox.close();
            sandbox = null;
        }
    }
}
