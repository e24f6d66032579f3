package io.camelkubeflow.trainer.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.camelkubeflow.trainer.sandbox.TrainerSandbox;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.InputStream;
import java.util.List;
import org.junit.jupiter.api.Test;

/** What a runtime's JobSet template says: which job trains, where user code runs, which image it has. */
class TrainingRuntimeDescriptorTest {
    private static GenericKubernetesResource load(String file) throws Exception {
        try (InputStream in = TrainingRuntimeDescriptorTest.class.getResourceAsStream(TrainerSandbox.RUNTIMES + file)) {
            return Serialization.unmarshal(in, GenericKubernetesResource.class);
        }
    }

    @Test
    void userCodeRunsOnlyInJobsWithANodeContainerNotInTheInitializers() throws Exception {
        TrainingRuntimeDescriptor torchtune =
                TrainingRuntimeDescriptor.from(load("torchtune/llama3_2/llama3_2_1B.yaml"));
        assertEquals(
                List.of("node"),
                torchtune.jobsRunningUserCode().stream()
                        .map(TrainingRuntimeDescriptor.ReplicatedJob::name)
                        .toList());
        assertEquals("node", torchtune.trainerJob().name());
        assertEquals("ClusterTrainingRuntime 'torchtune-llama3.2-1b'", torchtune.describe());
        assertEquals(
                TrainingRuntimeDescriptor.DATASET_INITIALIZER,
                torchtune
                        .replicatedJob(TrainingRuntimeDescriptor.DATASET_INITIALIZER)
                        .name());
        assertNull(torchtune.replicatedJob("launcher"));
    }

    @Test
    void aRuntimeWithoutTheAncestorLabelTrainsInItsNodeJob() throws Exception {
        GenericKubernetesResource unlabelled = load("torch_distributed.yaml");
        String yaml = Serialization.asYaml(unlabelled)
                .replace("trainer.kubeflow.org/trainjob-ancestor-step: \"trainer\"", "example.com/step: \"trainer\"")
                .replace("trainer.kubeflow.org/trainjob-ancestor-step: trainer", "example.com/step: trainer");
        TrainingRuntimeDescriptor runtime =
                TrainingRuntimeDescriptor.from(Serialization.unmarshal(yaml, GenericKubernetesResource.class));
        assertNull(runtime.replicatedJob("node").ancestorStep(), "the label is still there: " + yaml);
        assertEquals("node", runtime.trainerJob().name());
        assertEquals(runtime.replicatedJob("node").containerImages().get("node"), runtime.trainerImage());
    }

    @Test
    void kindsAreNamedAndPluralisedAsTheApiDoes() {
        assertEquals("clustertrainingruntimes", RuntimeKind.ClusterTrainingRuntime.plural());
        assertEquals("trainingruntimes", RuntimeKind.TrainingRuntime.plural());
        assertEquals(RuntimeKind.TrainingRuntime, RuntimeKind.of("TrainingRuntime"));
        assertNull(RuntimeKind.of("trainingruntime"));
    }
}
