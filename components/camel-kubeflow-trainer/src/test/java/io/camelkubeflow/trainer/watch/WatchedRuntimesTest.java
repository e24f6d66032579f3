package io.camelkubeflow.trainer.watch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import io.camelkubeflow.trainer.job.RuntimeLookup;
import io.camelkubeflow.trainer.runtime.RuntimeKind;
import io.camelkubeflow.trainer.sandbox.TrainerSandbox;
import io.camelkubeflow.trainer.testing.RuntimeYaml;
import io.camelkubeflow.trainer.testing.TrainerApiServer;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.StatusBuilder;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class WatchedRuntimesTest {
    /** The direct lookup, recording what it was asked and answering {@code answer}. */
    private static final class CountingLookup implements RuntimeLookup {
        final List<String> asked = new ArrayList<>();
        final GenericKubernetesResource answer;

        CountingLookup(GenericKubernetesResource answer) {
            this.answer = answer;
        }

        @Override
        public GenericKubernetesResource find(RuntimeKind kind, String namespace, String name) {
            asked.add(kind + " " + namespace + "/" + name);
            return answer;
        }
    }

    @Test
    void runtimesInTheCacheAreServedFromItAndOthersAreLookedUpDirectly() {
        try (TrainerSandbox sandbox = TrainerSandbox.start();
                WatchConnectionMonitor monitor = new WatchConnectionMonitor((watch, down) -> {});
                ClusterInformers informers = new ClusterInformers(sandbox.client(), monitor)) {
            TrainerApiServer.createNamespaces(sandbox);
            sandbox.createRuntime(
                    RuntimeYaml.of("team-torch", "team-a", "torch", "{numNodes: 1, torch: {}}", "pytorch/pytorch"));
            CountingLookup direct = new CountingLookup(null);
            WatchedRuntimes runtimes = new WatchedRuntimes(informers, direct);

            GenericKubernetesResource cluster =
                    runtimes.find(RuntimeKind.ClusterTrainingRuntime, "anywhere", "torch-distributed");
            assertEquals("torch-distributed", cluster.getMetadata().getName());
            GenericKubernetesResource namespaced = runtimes.find(RuntimeKind.TrainingRuntime, "team-a", "team-torch");
            assertEquals("team-a", namespaced.getMetadata().getNamespace());
            assertEquals(
                    cluster.getMetadata().getUid(),
                    runtimes.find(RuntimeKind.ClusterTrainingRuntime, "elsewhere", "torch-distributed")
                            .getMetadata()
                            .getUid());
            assertEquals(List.of(), direct.asked, "a cached runtime needs no request");

            assertNull(runtimes.find(RuntimeKind.TrainingRuntime, "team-b", "team-torch"));
            assertNull(runtimes.find(RuntimeKind.ClusterTrainingRuntime, "team-a", "team-torch"));
            assertEquals(
                    List.of("TrainingRuntime team-b/team-torch", "ClusterTrainingRuntime team-a/team-torch"),
                    direct.asked,
                    "a runtime the cache does not hold is looked up directly");
        }
    }

    @Test
    void withoutTheRightToListRuntimesEveryLookupIsDirectAndTheListIsNotTriedAgain() {
        KubernetesMockServer server = new KubernetesMockServer(false);
        server.init();
        server.expect()
                .get()
                .withPath("/apis/trainer.kubeflow.org/v1alpha1/clustertrainingruntimes?resourceVersion=0")
                .andReturn(
                        403,
                        new StatusBuilder()
                                .withCode(403)
                                .withReason("Forbidden")
                                .withMessage("clustertrainingruntimes is forbidden")
                                .build())
                .always();
        try (var client = server.createClient();
                WatchConnectionMonitor monitor = new WatchConnectionMonitor((watch, down) -> {});
                ClusterInformers informers = new ClusterInformers(client, monitor)) {
            GenericKubernetesResource found = new GenericKubernetesResource();
            CountingLookup direct = new CountingLookup(found);
            WatchedRuntimes runtimes = new WatchedRuntimes(informers, direct);
            assertSame(found, runtimes.find(RuntimeKind.ClusterTrainingRuntime, "ml", "torch-distributed"));
            int requests = server.getRequestCount();
            assertSame(found, runtimes.find(RuntimeKind.ClusterTrainingRuntime, "ml", "torch-distributed"));
            assertSame(found, runtimes.find(RuntimeKind.TrainingRuntime, "ml", "team-torch"));
            assertEquals(requests, server.getRequestCount(), "the refused list was tried again");
            assertEquals(3, direct.asked.size());
        } finally {
            server.destroy();
        }
    }
}
