package io.camelkubeflow.trainer.quarkus.deployment;

import io.camelkubeflow.trainer.sandbox.TrainerSandbox;
import io.quarkus.deployment.builditem.Startable;
import java.nio.file.Path;
import java.util.Map;
import java.util.function.Function;

/**
 * The local Trainer sandbox as a Quarkus Dev Service: started before the app (in the build's class loader, as Quarkus
 * starts every Dev Service), its kubeconfig written (the admin token and the authority of its TLS certificate), and
 * {@code quarkus.kubeflow-trainer.kubeconfig} set to it, by which the runtime's TrainerCluster points Quarkus's
 * Kubernetes client at it. Not {@code quarkus.kubernetes-client.*}: those are fixed at build time, and Quarkus's
 * warning about a value set after the build would print the token. The app talks to the sandbox over HTTPS as to a
 * cluster.
 */
final class TrainerSandboxDevService implements Startable {
    static final String KUBECONFIG = "quarkus.kubeflow-trainer.kubeconfig";

    private final TrainerSandbox.Options options;
    private final Path kubeconfig;
    private TrainerSandbox sandbox;
    private Path kubeconfigWritten;

    TrainerSandboxDevService(TrainerSandbox.Options options, Path kubeconfig) {
        this.options = options;
        this.kubeconfig = kubeconfig;
    }

    /** What the app's configuration gets from the started sandbox. */
    static Map<String, Function<TrainerSandboxDevService, String>> appConfig() {
        return Map.of(KUBECONFIG, service -> service.kubeconfigWritten.toString());
    }

    @Override
    public void start() {
        sandbox = TrainerSandbox.start(options);
        kubeconfigWritten = sandbox.writeKubeconfig(kubeconfig);
    }

    Path kubeconfig() {
        return kubeconfigWritten;
    }

    @Override
    public String getConnectionInfo() {
        return sandbox.masterUrl();
    }

    @Override
    public String getContainerId() {
        // not a container: the sandbox runs in this JVM
        return null;
    }

    @Override
    public void close() {
        if (sandbox != null) {
            sandbox.close();
            sandbox = null;
        }
    }
}
