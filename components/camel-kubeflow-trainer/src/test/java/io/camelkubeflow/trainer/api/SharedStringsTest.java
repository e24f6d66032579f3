package io.camelkubeflow.trainer.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;

import io.fabric8.kubernetes.client.utils.Serialization;
import java.util.List;
import org.junit.jupiter.api.Test;

class SharedStringsTest {
    private static final String JOB = """
            {"apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "TrainJob",
             "metadata": {"name": "%s", "namespace": "team-a"},
             "spec": {"runtimeRef": {"name": "torch-distributed", "kind": "ClusterTrainingRuntime",
                                     "apiGroup": "trainer.kubeflow.org"},
                      "trainer": {"command": ["torchrun", "/app/train.py"], "args": ["--epochs", "3"]},
                      "managedBy": "trainer.kubeflow.org/trainjob-controller"}}""";

    @Test
    void twoTrainJobsReadShareTheStringsEveryJobRepeats() {
        TrainJob first = Serialization.unmarshal(JOB.formatted("first"), TrainJob.class);
        TrainJob second = Serialization.unmarshal(JOB.formatted("second"), TrainJob.class);

        assertSame(first.getMetadata().getNamespace(), second.getMetadata().getNamespace());
        assertSame(
                first.getSpec().runtimeRef().name(),
                second.getSpec().runtimeRef().name());
        assertSame(
                first.getSpec().runtimeRef().kind(),
                second.getSpec().runtimeRef().kind());
        assertSame(
                first.getSpec().runtimeRef().apiGroup(),
                second.getSpec().runtimeRef().apiGroup());
        assertSame(first.getSpec().managedBy(), second.getSpec().managedBy());
        assertSame(
                first.getSpec().trainer().command().get(0),
                second.getSpec().trainer().command().get(0));
        assertSame(
                first.getSpec().trainer().command().get(1),
                second.getSpec().trainer().command().get(1));
        // a job's own strings stay its own
        assertNotSame(
                first.getSpec().trainer().args().get(0),
                second.getSpec().trainer().args().get(0));
    }

    @Test
    void sharedStringsReadTheSameValues() throws Exception {
        TrainJob job = Serialization.unmarshal(JOB.formatted("job"), TrainJob.class);

        assertEquals("team-a", job.getMetadata().getNamespace());
        assertEquals(
                new RuntimeRef("torch-distributed", "ClusterTrainingRuntime", "trainer.kubeflow.org"),
                job.getSpec().runtimeRef());
        assertEquals(
                List.of("torchrun", "/app/train.py"), job.getSpec().trainer().command());
        assertEquals("trainer.kubeflow.org/trainjob-controller", job.getSpec().managedBy());
        assertEquals(
                Serialization.jsonMapper().readTree(JOB.formatted("job")).path("spec"),
                Serialization.jsonMapper().valueToTree(job.getSpec()));
    }
}
