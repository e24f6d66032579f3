package io.camelkubeflow.trainer.quarkus;

import io.fabric8.kubernetes.client.Config;
import io.quarkus.kubernetes.client.KubernetesConfigCustomizer;
import io.quarkus.runtime.StartupEvent;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import org.eclipse.microprofile.config.ConfigProvider;
import org.jboss.logging.Logger;

/**
 * Points Quarkus's Kubernetes client (the component's) at the cluster {@code quarkus.kubeflow-trainer.cluster} chooses:
 * the Dev Service's sandbox through its kubeconfig, a configured cluster, or a local sandbox this JVM starts (the
 * prod-mode fallback of an app that carries the sandbox, which the Dev Service does not cover). The sandbox is an
 * optional dependency: no member of this bean names its types (a bean's members are read reflectively), those live in
 * LocalTrainerSandbox.
 */
@Singleton
public class TrainerCluster implements KubernetesConfigCustomizer {
    private static final Logger LOG = Logger.getLogger(TrainerCluster.class);
    /** The master URL fabric8 falls back to when nothing configures one. */
    private static final String UNCONFIGURED_MASTER_URL = Config.DEFAULT_MASTER_URL + "/";

    private static final String SANDBOX_ARTIFACT = "io.camelkubeflow:camel-kubeflow-trainer-sandbox";

    @Inject
    KubeflowTrainerConfig config;

    /** The client's configuration, made (and customized here) on first use. */
    @Inject
    Instance<Config> clientConfig;

    /** The sandbox this JVM may run: resolvable in an app that carries it (the build registers it then). */
    @Inject
    Instance<LocalTrainerSandbox> localSandbox;

    private volatile boolean sandboxChosen;

    /** What {@code cluster} makes of what is configured. */
    public enum Choice {
        /** The client as Quarkus configured it. */
        CONFIGURED,
        /** A local sandbox in this JVM. */
        SANDBOX;

        /**
         * @throws IllegalStateException {@code cluster} with none configured, or {@code sandbox} without its artifact
         */
        public static Choice of(KubeflowTrainerConfig.Cluster setting, boolean configured, boolean sandboxPresent) {
            return switch (setting) {
                case CLUSTER -> {
                    if (!configured) {
                        throw new IllegalStateException("quarkus.kubeflow-trainer.cluster=cluster (trainer.cluster in"
                                + " the routes app), but no Kubernetes cluster is configured: no"
                                + " quarkus.kubernetes-client.api-server-url, not in a pod, no $KUBECONFIG or"
                                + " ~/.kube/config, no $KUBERNETES_MASTER. Configure one, or set it to sandbox to run"
                                + " the local sandbox on purpose");
                    }
                    yield CONFIGURED;
                }
                case SANDBOX -> {
                    if (!sandboxPresent) {
                        throw new IllegalStateException("quarkus.kubeflow-trainer.cluster=sandbox needs the sandbox on"
                                + " the class path: add " + SANDBOX_ARTIFACT);
                    }
                    yield SANDBOX;
                }
                case AUTO -> !configured && sandboxPresent ? SANDBOX : CONFIGURED;
            };
        }
    }

    @Override
    public void customize(Config client) {
        if (config.kubeconfig().isPresent()) {
            connect(client, kubeconfig());
            return;
        }
        boolean configured = clusterConfigured(
                client,
                ConfigProvider.getConfig()
                        .getOptionalValue("quarkus.kubernetes-client.api-server-url", String.class)
                        .isPresent());
        if (Choice.of(config.cluster(), configured, localSandbox.isResolvable()) == Choice.CONFIGURED) {
            LOG.infof("Using the Kubernetes cluster at %s", client.getMasterUrl());
            return;
        }
        sandboxChosen = true;
        connect(client, localSandbox.get().start(config.sandbox()));
    }

    /**
     * Whether the client as Quarkus configured it names a cluster: an API server URL set, or one fabric8's
     * auto-configuration found (a kubeconfig, {@code KUBERNETES_MASTER}, or inside a pod the service's address, so a
     * pod whose service account token is missing fails on the cluster's API instead of running a sandbox nobody sees).
     * The Dev Service asks the same of fabric8's auto-configuration at build time.
     */
    public static boolean clusterConfigured(Config client, boolean apiServerUrlSet) {
        return apiServerUrlSet || !UNCONFIGURED_MASTER_URL.equals(client.getMasterUrl());
    }

    private Config kubeconfig() {
        try {
            return Config.fromKubeconfig(Files.readString(config.kubeconfig().get()));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read quarkus.kubeflow-trainer.kubeconfig", e);
        }
    }

    /**
     * The server, its authority (data or file) and the user of {@code cluster} (a bearer token, or a client
     * certificate and key); the client's other settings stay. A user set only in Quarkus's settings is not kept: the
     * kubeconfig names who connects.
     */
    private static void connect(Config client, Config cluster) {
        client.setMasterUrl(cluster.getMasterUrl());
        client.setCaCertData(cluster.getCaCertData());
        client.setCaCertFile(cluster.getCaCertFile());
        // a kubeconfig's token is read as the "auto" one
        client.setOauthToken(cluster.getOauthToken() != null ? cluster.getOauthToken() : cluster.getAutoOAuthToken());
        client.setClientCertData(cluster.getClientCertData());
        client.setClientCertFile(cluster.getClientCertFile());
        client.setClientKeyData(cluster.getClientKeyData());
        client.setClientKeyFile(cluster.getClientKeyFile());
        client.setClientKeyAlgo(cluster.getClientKeyAlgo());
        client.setTrustCerts(false);
    }

    /**
     * The choice is made at start, not on the first request: a {@code cluster} setting nothing satisfies, or a
     * sandbox manifest it cannot create, stops the start.
     */
    void awaitSandbox(@Observes StartupEvent start) {
        clientConfig.get();
        if (sandboxChosen) {
            localSandbox.get().awaitStarted(config.sandbox());
        }
    }
}
