package io.camelkubeflow.trainer.routes;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ClusterConnectionTest {
    @TempDir
    Path home;

    @Test
    void autoUsesTheSandboxOnlyWhenNoClusterIsConfigured() throws Exception {
        assertEquals(ClusterConnection.SANDBOX, ClusterConnection.choose("auto", Map.of(), home));
        assertEquals(ClusterConnection.CLUSTER, ClusterConnection.choose("auto", Map.of("KUBECONFIG", "/k"), home));
        Files.createDirectories(home.resolve(".kube"));
        Files.writeString(home.resolve(".kube/config"), "apiVersion: v1\n");
        assertEquals(ClusterConnection.CLUSTER, ClusterConnection.choose("auto", Map.of(), home));
    }

    @Test
    void insideAPodItIsAlwaysTheClusterNeverASilentSandbox() {
        // a pod whose service account token is missing (automountServiceAccountToken: false) must fail on the
        // cluster's API, not run TrainJobs on a sandbox nobody sees
        assertEquals(ClusterConnection.CLUSTER, ClusterConnection.choose("auto",
                Map.of("KUBERNETES_SERVICE_HOST", "10.0.0.1"), home));
    }

    @Test
    void explicitChoicesWinAndTyposAreRefused() {
        assertEquals(ClusterConnection.SANDBOX, ClusterConnection.choose("sandbox", Map.of("KUBECONFIG", "/k"), home));
        assertEquals(ClusterConnection.CLUSTER, ClusterConnection.choose("Cluster", Map.of("KUBECONFIG", "/k"), home));
        assertThrows(IllegalArgumentException.class, () -> ClusterConnection.choose("local", Map.of(), home));
    }

    @Test
    void anExplicitClusterWithNoneConfiguredStopsTheAppInsteadOfRunningTheSandbox() {
        IllegalStateException refused = assertThrows(IllegalStateException.class,
                () -> ClusterConnection.choose("cluster", Map.of(), home));
        assertTrue(refused.getMessage().contains("set trainer.cluster=sandbox"), refused.getMessage());
        assertEquals(ClusterConnection.CLUSTER, ClusterConnection.choose("cluster",
                Map.of("KUBERNETES_MASTER", "https://api.example.com:6443"), home));
    }

    @Test
    void theAppsImagePinsTheClusterSoAContainerNeverRunsTheSandbox() throws Exception {
        assertTrue(Files.readAllLines(Path.of("src/main/docker/Dockerfile.jvm")).contains("ENV TRAINER_CLUSTER=cluster"));
        assertTrue(Files.readString(Path.of("../deploy/configmap.yaml")).contains("trainer.cluster=cluster"));
    }
}
