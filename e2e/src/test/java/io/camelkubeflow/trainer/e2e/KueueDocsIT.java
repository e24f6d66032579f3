package io.camelkubeflow.trainer.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import io.camelkubeflow.trainer.testing.DocCommandBlocks;
import io.camelkubeflow.trainer.testing.DocCommandBlocks.Block;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The docs' command blocks marked {@code <!-- run: kueue -->} (a platform team's queue setup, reading a namespace's
 * Workloads: docs/queues.md) run as written, in order, with kubectl against the control plane with Kueue, as its
 * admin; the routes app's DocsCommandBlocksIT holds every other block. What they made is removed after.
 */
class KueueDocsIT {
    private static final Path PROJECT =
            Path.of(System.getProperty("user.dir")).resolve("..").normalize();

    @TempDir
    Path work;

    @Test
    @Timeout(300)
    void theBlocksMarkedKueueRunAgainstTheControlPlaneWithKueue() throws Exception {
        List<Block> blocks = DocCommandBlocks.blocks(PROJECT).stream()
                .filter(block -> "run: kueue".equals(block.marker()))
                .toList();
        assertFalse(blocks.isEmpty(), "no block marked '<!-- run: kueue -->'");
        List<String> failures = new ArrayList<>();
        for (Block block : blocks) {
            String failure = DocCommandBlocks.run(
                    block,
                    block.text(),
                    work,
                    Map.of("KUBECONFIG", RealCluster.kueueKubeconfig().toString()));
            if (failure != null) {
                failures.add(failure);
            }
        }
        assertEquals(List.of(), failures);
    }

    @AfterAll
    static void removeWhatTheDocsMade() {
        try (KubernetesClient admin = RealCluster.client(RealCluster.kueueKubeconfig())) {
            admin.genericKubernetesResources("kueue.x-k8s.io/v1beta2", "LocalQueue")
                    .inNamespace("ml")
                    .withName("team-a")
                    .delete();
            admin.genericKubernetesResources("kueue.x-k8s.io/v1beta2", "ClusterQueue")
                    .withName("cluster-queue")
                    .delete();
            admin.genericKubernetesResources("kueue.x-k8s.io/v1beta2", "ResourceFlavor")
                    .withName("default-flavor")
                    .delete();
            admin.namespaces().withName("ml").delete();
        }
    }
}
