package io.camelkubeflow.trainer.job;

import java.io.InputStream;

import io.camelkubeflow.trainer.api.Initializer;
import io.camelkubeflow.trainer.runtime.TrainingRuntimeDescriptor;
import io.camelkubeflow.trainer.sandbox.TrainerSandbox;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.utils.Serialization;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

/** The initializers a request asks for reach the TrainJob, each on its own. */
class TrainJobFactoryTest {
    private static TrainingRuntimeDescriptor torchtune() throws Exception {
        try (InputStream in = TrainJobFactoryTest.class.getResourceAsStream(TrainerSandbox.RUNTIMES
                + "torchtune/llama3_2/llama3_2_1B.yaml")) {
            return TrainingRuntimeDescriptor.from(Serialization.unmarshal(in, GenericKubernetesResource.class));
        }
    }

    private static Initializer initializer(TrainRequest request) throws Exception {
        return TrainJobFactory.build(request.runtime("torchtune-llama3.2-1b"), torchtune(), "ml", "j", null)
                .trainJob().getSpec().initializer();
    }

    @Test
    void aDatasetAloneIsKept() throws Exception {
        Initializer only = initializer(new TrainRequest().datasetUri("hf://tatsu-lab/alpaca"));
        assertEquals("hf://tatsu-lab/alpaca", only.dataset().storageUri());
        assertNull(only.model());
    }

    @Test
    void aModelAloneIsKeptWithItsSecret() throws Exception {
        Initializer only = initializer(new TrainRequest().modelUri("hf://meta-llama/Llama-3.2-1B").modelSecret("hf"));
        assertEquals("hf://meta-llama/Llama-3.2-1B", only.model().storageUri());
        assertEquals("hf", only.model().secretRef().getName());
        assertNull(only.dataset());
    }

    @Test
    void neitherMakesNoInitializer() throws Exception {
        assertNull(initializer(new TrainRequest()));
    }
}
