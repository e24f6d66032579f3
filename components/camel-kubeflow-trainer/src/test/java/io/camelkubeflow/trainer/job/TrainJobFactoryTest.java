package io.camelkubeflow.trainer.job;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.camelkubeflow.trainer.api.Initializer;
import io.camelkubeflow.trainer.api.RuntimePatch;
import io.camelkubeflow.trainer.api.TrainJob;
import io.camelkubeflow.trainer.runtime.TrainingRuntimeDescriptor;
import io.camelkubeflow.trainer.sandbox.TrainerSandbox;
import io.camelkubeflow.trainer.support.InvalidOptionException;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.InputStream;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/** The TrainJob a request becomes: initializers each on their own, runtime patches, recorded keys, CRD limits. */
class TrainJobFactoryTest {
    private static TrainingRuntimeDescriptor runtime(String file) throws Exception {
        try (InputStream in = TrainJobFactoryTest.class.getResourceAsStream(TrainerSandbox.RUNTIMES + file)) {
            return TrainingRuntimeDescriptor.from(Serialization.unmarshal(in, GenericKubernetesResource.class));
        }
    }

    private static TrainingRuntimeDescriptor torchtune() throws Exception {
        return runtime("torchtune/llama3_2/llama3_2_1B.yaml");
    }

    private static TrainJob torch(TrainRequest request, String jobName, String key) throws Exception {
        return TrainJobFactory.build(
                        request.runtime("torch-distributed"), runtime("torch_distributed.yaml"), "ml", jobName, key)
                .trainJob();
    }

    private static RuntimePatch patch(String manager) {
        return new RuntimePatch(manager, null, null);
    }

    @Test
    void sixteenRuntimePatchesFitTheCrdAndTheScriptsIsRebuiltNotCopied() throws Exception {
        TrainRequest request = new TrainRequest().script("print(1)");
        IntStream.range(0, 15).forEach(i -> request.runtimePatch(patch("example.com/p" + i)));
        // a body copied from an earlier job of this component carries its script patch: it is not kept twice
        request.runtimePatch(patch(TrainJobMetadata.PATCH_MANAGER));
        List<RuntimePatch> patches = torch(request, "j", null).getSpec().runtimePatches();
        assertEquals(16, patches.size());
        assertEquals(
                1,
                patches.stream()
                        .filter(p -> TrainJobMetadata.PATCH_MANAGER.equals(p.manager()))
                        .count());
        assertEquals(TrainJobMetadata.PATCH_MANAGER, patches.get(15).manager());
        assertNotNull(patches.get(15).trainingRuntimeSpec(), "the copied patch was kept instead of the new one");

        request.runtimePatch(patch("example.com/p15"));
        InvalidOptionException tooMany = assertThrows(InvalidOptionException.class, () -> torch(request, "j", null));
        assertEquals("runtimePatches", tooMany.getField());
    }

    @Test
    void theNameIsCheckedUnderTheFieldItCameFrom() throws Exception {
        assertEquals(
                "jobName",
                assertThrows(
                                InvalidOptionException.class,
                                () -> torch(
                                        new TrainRequest().pythonFile("/a.py").jobName("Bad_Name"), "Bad_Name", null))
                        .getField());
        assertEquals(
                "jobNamePrefix",
                assertThrows(
                                InvalidOptionException.class,
                                () -> torch(new TrainRequest().pythonFile("/a.py"), "x".repeat(64), null))
                        .getField());
    }

    @Test
    void keysUpTo512CharactersAreRecordedLongerOnesOnlyByHash() throws Exception {
        Map<String, String> recorded = torch(
                        new TrainRequest().pythonFile("/a.py").runKey("r".repeat(512)), "j", "k".repeat(512))
                .getMetadata()
                .getAnnotations();
        assertEquals("r".repeat(512), recorded.get(TrainJobMetadata.RUN_KEY_ANNOTATION));
        assertEquals("k".repeat(512), recorded.get(TrainJobMetadata.IDEMPOTENCY_KEY_ANNOTATION));
        TrainJob longer = torch(new TrainRequest().pythonFile("/a.py").runKey("r".repeat(513)), "j", "k".repeat(513));
        assertNull(longer.getMetadata().getAnnotations().get(TrainJobMetadata.RUN_KEY_ANNOTATION));
        assertNull(longer.getMetadata().getAnnotations().get(TrainJobMetadata.IDEMPOTENCY_KEY_ANNOTATION));
        assertEquals(
                TrainJobMetadata.sha256("k".repeat(513)),
                longer.getMetadata().getAnnotations().get(TrainJobMetadata.IDEMPOTENCY_HASH_ANNOTATION));
        assertEquals(
                TrainJobMetadata.runKeyLabel("r".repeat(513)),
                longer.getMetadata().getLabels().get(TrainJobMetadata.RUN_KEY_LABEL));
    }

    @Test
    void theLaunchersWordsCountAgainstTheCrdsLimitOnTheCommand() throws Exception {
        // torchrun --no_python adds two words to a command
        List<String> fits = Collections.nCopies(TrainRequestValidator.MAX_LIST_ITEMS - 2, "x");
        assertEquals(
                TrainRequestValidator.MAX_LIST_ITEMS,
                torch(new TrainRequest().command(fits), "j", null)
                        .getSpec()
                        .trainer()
                        .command()
                        .size());
        List<String> tooLong = Collections.nCopies(TrainRequestValidator.MAX_LIST_ITEMS - 1, "x");
        InvalidOptionException error =
                assertThrows(InvalidOptionException.class, () -> torch(new TrainRequest().command(tooLong), "j", null));
        assertEquals("command", error.getField());
    }

    private static Initializer initializer(TrainRequest request) throws Exception {
        return TrainJobFactory.build(request.runtime("torchtune-llama3.2-1b"), torchtune(), "ml", "j", null)
                .trainJob()
                .getSpec()
                .initializer();
    }

    @Test
    void aDatasetAloneIsKept() throws Exception {
        TrainRequest request = new TrainRequest();
        request.dataset().uri("hf://tatsu-lab/alpaca");
        Initializer only = initializer(request);
        assertEquals("hf://tatsu-lab/alpaca", only.dataset().storageUri());
        assertNull(only.model());
    }

    @Test
    void aModelAloneIsKeptWithItsSecret() throws Exception {
        TrainRequest request = new TrainRequest();
        request.model().uri("hf://meta-llama/Llama-3.2-1B").secret("hf");
        Initializer only = initializer(request);
        assertEquals("hf://meta-llama/Llama-3.2-1B", only.model().storageUri());
        assertEquals("hf", only.model().secretRef().getName());
        assertNull(only.dataset());
    }

    @Test
    void neitherMakesNoInitializer() throws Exception {
        assertNull(initializer(new TrainRequest()));
    }
}
