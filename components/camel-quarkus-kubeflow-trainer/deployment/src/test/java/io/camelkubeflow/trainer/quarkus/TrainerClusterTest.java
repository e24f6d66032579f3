package io.camelkubeflow.trainer.quarkus;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.camelkubeflow.trainer.quarkus.KubeflowTrainerConfig.Cluster;
import io.camelkubeflow.trainer.quarkus.TrainerCluster.Choice;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What quarkus.kubeflow-trainer.cluster (the routes app's trainer.cluster) makes of what is configured. */
class TrainerClusterTest {
    @Test
    void autoUsesTheSandboxOnlyWhenNoClusterIsConfiguredAndTheAppCarriesIt() {
        assertEquals(Choice.SANDBOX, Choice.of(Cluster.AUTO, false, true));
        assertEquals(Choice.CONFIGURED, Choice.of(Cluster.AUTO, true, true));
        assertEquals(Choice.CONFIGURED, Choice.of(Cluster.AUTO, false, false), "without the sandbox: the client as is");
    }

    @Test
    void aClusterIsConfiguredByAUrlOrByWhatTheClientFound() {
        Config unconfigured = new ConfigBuilder(Config.empty())
                .withMasterUrl(Config.DEFAULT_MASTER_URL + "/")
                .build();
        assertFalse(TrainerCluster.clusterConfigured(unconfigured, false));
        assertTrue(TrainerCluster.clusterConfigured(unconfigured, true), "quarkus.kubernetes-client.api-server-url");
        // inside a pod fabric8 takes the service's address from KUBERNETES_SERVICE_HOST, with or without a token: a
        // pod whose token is missing fails on the cluster's API, it never runs a sandbox nobody sees
        assertTrue(TrainerCluster.clusterConfigured(
                new ConfigBuilder(Config.empty())
                        .withMasterUrl("https://10.0.0.1:443/")
                        .build(),
                false));
    }

    @Test
    void explicitChoicesWin() {
        assertEquals(Choice.SANDBOX, Choice.of(Cluster.SANDBOX, true, true));
        assertEquals(Choice.CONFIGURED, Choice.of(Cluster.CLUSTER, true, true));
        IllegalStateException missing =
                assertThrows(IllegalStateException.class, () -> Choice.of(Cluster.SANDBOX, false, false));
        assertTrue(
                missing.getMessage().contains("io.camelkubeflow:camel-kubeflow-trainer-sandbox"), missing.getMessage());
    }

    @Test
    void anExplicitClusterWithNoneConfiguredStopsTheAppInsteadOfRunningTheSandbox() {
        IllegalStateException refused =
                assertThrows(IllegalStateException.class, () -> Choice.of(Cluster.CLUSTER, false, true));
        assertTrue(refused.getMessage().contains("trainer.cluster"), refused.getMessage());
        assertTrue(refused.getMessage().contains("set it to sandbox"), refused.getMessage());
    }

    /**
     * quarkus.kubeflow-trainer.kubeconfig is any kubeconfig, not only the Dev Service's: its user's client certificate
     * and its authority as a file are how the client connects, as the token and the authority's data are.
     */
    @Test
    void aKubeconfigsClientCertificateAndAuthorityFileAreHowTheClientConnects(@TempDir Path dir) throws Exception {
        Path kubeconfig = dir.resolve("config");
        Files.writeString(kubeconfig, """
                apiVersion: v1
                kind: Config
                clusters:
                - name: c
                  cluster: {server: "https://10.0.0.1:6443", certificate-authority: %s}
                users:
                - name: u
                  user: {client-certificate-data: Y2VydA==, client-key-data: a2V5}
                contexts:
                - name: c
                  context: {cluster: c, user: u}
                current-context: c
                """.formatted(dir.resolve("ca.crt")));
        TrainerCluster cluster = new TrainerCluster();
        cluster.config = kubeconfigOnly(kubeconfig);
        Config client = new ConfigBuilder(Config.empty())
                .withOauthToken("quarkus-own-token")
                .build();
        cluster.customize(client);
        assertEquals("https://10.0.0.1:6443/", client.getMasterUrl());
        assertEquals(dir.resolve("ca.crt").toString(), client.getCaCertFile());
        assertEquals("Y2VydA==", client.getClientCertData());
        assertEquals("a2V5", client.getClientKeyData());
        assertEquals(null, client.getOauthToken(), "the kubeconfig's user has no token");
    }

    private static KubeflowTrainerConfig kubeconfigOnly(Path kubeconfig) {
        return new KubeflowTrainerConfig() {
            @Override
            public Cluster cluster() {
                return Cluster.AUTO;
            }

            @Override
            public Optional<Path> kubeconfig() {
                return Optional.of(kubeconfig);
            }

            @Override
            public SandboxConfig sandbox() {
                throw new AssertionError("no sandbox with a kubeconfig");
            }
        };
    }
}
