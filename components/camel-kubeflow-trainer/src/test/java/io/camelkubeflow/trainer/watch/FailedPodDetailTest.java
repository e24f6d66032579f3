package io.camelkubeflow.trainer.watch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.camelkubeflow.trainer.sandbox.TrainerSandbox;
import io.camelkubeflow.trainer.testing.TrainerApiServer;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.utils.Serialization;
import org.junit.jupiter.api.Test;

class FailedPodDetailTest {
    private static Pod pod(String name, String status) {
        return Serialization.unmarshal("""
                metadata: {name: %s, labels: {jobset.sigs.k8s.io/jobset-name: job}}
                spec: {containers: [{name: node, image: i}]}
                %s
                """.formatted(name, status == null ? "" : "status: " + status), Pod.class);
    }

    @Test
    void theFirstContainerThatExitedNonZeroIsNamedWithItsCodeAndReason() {
        assertEquals("pod p container node exited with code 137 (OOMKilled)", FailedPodDetail.describe(pod("p", """
                {containerStatuses: [{name: sidecar, state: {terminated: {exitCode: 0}}},
                  {name: node, state: {terminated: {exitCode: 137, reason: OOMKilled}}}]}""")));
    }

    @Test
    void anInitContainerComesFirstAndAMissingReasonIsLeftOut() {
        assertEquals("pod p container fetch exited with code 2", FailedPodDetail.describe(pod("p", """
                {initContainerStatuses: [{name: fetch, state: {terminated: {exitCode: 2}}}],
                 containerStatuses: [{name: node, state: {terminated: {exitCode: 1, reason: Error}}}]}""")));
    }

    @Test
    void aCrashInThePreviousAttemptIsFoundWhileTheContainerRunsAgain() {
        assertEquals("pod p container node exited with code 1 (Error)", FailedPodDetail.describe(pod("p", """
                {containerStatuses: [{name: node, state: {running: {}},
                  lastState: {terminated: {exitCode: 1, reason: Error}}}]}""")));
    }

    @Test
    void podsWithoutAFailedContainerHaveNoDetail() {
        assertNull(FailedPodDetail.describe(pod("p", null)));
        assertNull(FailedPodDetail.describe(pod("p", "{phase: Pending}")));
        assertNull(FailedPodDetail.describe(pod("p", """
                {containerStatuses: [{name: node, state: {terminated: {exitCode: 0, reason: Completed}},
                  lastState: {}}, {name: waiting, state: {waiting: {reason: ContainerCreating}}}]}""")));
    }

    @Test
    void theJobsPodsAreLookedAtInNameOrderAndOtherJobsPodsAreIgnored() {
        try (TrainerSandbox sandbox = TrainerSandbox.start()) {
            TrainerApiServer.createNamespaces(sandbox);
            var pods = sandbox.client().pods().inNamespace("failed");
            String failed = "{containerStatuses: [{name: node, state: {terminated: {exitCode: %d}}}]}";
            pods.resource(pod("job-node-0-1", failed.formatted(3))).create();
            pods.resource(pod("job-node-0-0", failed.formatted(4))).create();
            Pod other = pod("another-node-0-0", failed.formatted(5));
            other.getMetadata().getLabels().put("jobset.sigs.k8s.io/jobset-name", "another");
            pods.resource(other).create();
            assertEquals(
                    "pod job-node-0-0 container node exited with code 4",
                    FailedPodDetail.find(sandbox.client(), "failed", "job"));
            assertEquals(
                    "pod another-node-0-0 container node exited with code 5",
                    FailedPodDetail.find(sandbox.client(), "failed", "another"));
            assertNull(FailedPodDetail.find(sandbox.client(), "failed", "none"));
        }
    }
}
