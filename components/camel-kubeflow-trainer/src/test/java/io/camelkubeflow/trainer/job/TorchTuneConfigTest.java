package io.camelkubeflow.trainer.job;

import java.util.List;

import io.camelkubeflow.trainer.support.InvalidOptionException;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

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
        assertEquals(List.of("model.use_dora=True", "model.lora_attn_modules=[q_proj,v_proj,output_proj]"),
                new TorchTuneConfig().useDora(true).args(null));
        assertEquals(List.of("dataset=torchtune.datasets.instruct_dataset", "dataset.train_on_input=True"),
                new TorchTuneConfig().trainOnInput(true).args("s3://bucket/data"));
    }

    @Test
    void aLaterLayerWinsFieldByFieldAndAColumnMapComesWholeFromOne() {
        TorchTuneConfig endpoint = new TorchTuneConfig().epochs(3).dtype("bf16").column("input", "q")
                .column("output", "a");
        TorchTuneConfig header = new TorchTuneConfig().epochs(1).column("input", "question");
        assertEquals(List.of("dtype=bf16", "epochs=1", "dataset=torchtune.datasets.instruct_dataset",
                "dataset.column_map={'input': 'question'}"), endpoint.overlay(header).args(null));
    }

    @Test
    void aRuntimeNamesAModelTheTrainerSupports() {
        TorchTuneConfig.checkRuntime("torchtune-qwen2.5-1.5b", 1);
        TorchTuneConfig.checkRuntime("torchtune-llama3.3-70b", 4);
        assertEquals("runtime", assertThrows(InvalidOptionException.class,
                () -> TorchTuneConfig.checkRuntime("my-torchtune", null)).getField());
        assertEquals("runtime", assertThrows(InvalidOptionException.class,
                () -> TorchTuneConfig.checkRuntime("torchtune-mistral-7b", null)).getField());
    }
}
