package io.camelkubeflow.trainer.sandbox;

import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The sandbox an app gets by naming it instead of a cluster ({@code masterUrl=sandbox} on the kubeflow-trainer
 * component, found through {@code META-INF/services/io/camelkubeflow/trainer/local-sandbox}): started on first use, the
 * namespaces asked for made as a cluster's admin would have, closed with its user. Only JDK types face the user, so the
 * sandbox still knows nothing of the component. Staged scripts do not run: the local default is not a remote shell.
 */
public final class LocalSandbox implements Function<String, KubernetesClient>, AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(LocalSandbox.class);
    private TrainerSandbox sandbox;

    /** The sandbox's client, once {@code namespace} exists in it. */
    @Override
    public synchronized KubernetesClient apply(String namespace) {
        if (sandbox == null) {
            sandbox = TrainerSandbox.start(TrainerSandbox.Options.standalone());
            LOG.warn(
                    "Using the LOCAL TRAINER SANDBOX at {}, an emulation holding the Kubeflow Trainer CRDs and default"
                            + " runtimes, whose emulated controller runs TrainJobs without running their code; not a cluster",
                    sandbox.masterUrl());
        }
        sandbox.createNamespace(namespace);
        return sandbox.client();
    }

    @Override
    public synchronized void close() {
        if (sandbox != null) {
            sandbox.close();
            sandbox = null;
        }
    }
}
