package io.camelkubeflow.trainer.job;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.camelkubeflow.trainer.support.InvalidOptionException;
import java.util.List;
import org.junit.jupiter.api.Test;

class TorchTuneConfigTest {
    /** Python's repr of each float, as the SDK 0.5.0 writes model.lora_dropout (printed by python3 in its venv). */
    @Test
    void aDropoutIsWrittenAsPythonWritesTheFloat() {
        double[] values = {0.05, 0.0001, 0.00001, 1.0, 0.123456789, 0.5e-4, 0.3, 0.0};
        List<String> python = List.of("0.05", "0.0001", "1e-05", "1.0", "0.123456789", "5e-05", "0.3", "0.0");
        for (int i = 0; i < values.length; i++) {
            assertEquals(python.get(i), TorchTuneConfig.pythonFloat(values[i]), Double.toString(values[i]));
        }
    }

    @Test
    void theLoraGroupIsOnWithAnyOfItsFieldsAndNamesTheDefaultModules() {
        assertEquals(
                List.of("model.use_dora=True", "model.lora_attn_modules=[q_proj,v_proj,output_proj]"),
                new TorchTuneConfig().useDora(true).args(null));
        assertEquals(
                List.of("dataset=torchtune.datasets.instruct_dataset", "dataset.train_on_input=True"),
                new TorchTuneConfig().trainOnInput(true).args("s3://bucket/data"));
    }

    @Test
    void aLaterLayerWinsFieldByFieldAndAColumnMapComesWholeFromOne() {
        TorchTuneConfig endpoint = new TorchTuneConfig()
                .epochs(3)
                .dtype("bf16")
                .column("input", "q")
                .column("output", "a");
        TorchTuneConfig header = new TorchTuneConfig().epochs(1).column("input", "question");
        assertEquals(
                List.of(
                        "dtype=bf16",
                        "epochs=1",
                        "dataset=torchtune.datasets.instruct_dataset",
                        "dataset.column_map={'input': 'question'}"),
                endpoint.overlay(header).args(null));
    }

    @Test
    void aRuntimeNamesAModelTheTrainerSupports() {
        TorchTuneConfig config = new TorchTuneConfig().epochs(1);
        config.checkRuntime("torchtune-qwen2.5-1.5b", 1, null, 2);
        config.checkRuntime("torchtune-llama3.3-70b", 4, null, 8);
        assertEquals(
                "runtime",
                assertThrows(InvalidOptionException.class, () -> config.checkRuntime("my-torchtune", null, null, 2))
                        .getField());
        assertEquals(
                "runtime",
                assertThrows(
                                InvalidOptionException.class,
                                () -> config.checkRuntime("torchtune-mistral-7b", null, null, 2))
                        .getField());
    }

    /** The webhook's QLoRA rules: never on Qwen 2.5, on Llama 3.2 only on one device; DoRA turns QLoRA off. */
    @Test
    void qloraRunsWhereTheTrainersWebhookTakesIt() {
        TorchTuneConfig qlora = new TorchTuneConfig().quantizeBase(true);
        qlora.checkRuntime("torchtune-llama3.2-1b", 1, null, 1);
        qlora.checkRuntime("torchtune-llama3.2-3b", null, 1, 2);
        qlora.checkRuntime("torchtune-llama3.3-70b", 1, null, 8);
        new TorchTuneConfig().quantizeBase(true).useDora(true).checkRuntime("torchtune-qwen2.5-1.5b", 1, null, 2);
        assertEquals(
                "torchtuneQuantizeBase",
                assertThrows(
                                InvalidOptionException.class,
                                () -> qlora.checkRuntime("torchtune-llama3.2-1b", 1, null, 2))
                        .getField());
        assertEquals(
                "torchtuneQuantizeBase",
                assertThrows(InvalidOptionException.class, () -> qlora.checkRuntime("torchtune-qwen2.5-1.5b", 1, 1, 1))
                        .getField());
    }
}
