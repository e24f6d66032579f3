package io.camelkubeflow.trainer.job;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.camelkubeflow.trainer.runtime.TrainingRuntimeDescriptor;
import io.camelkubeflow.trainer.sandbox.TrainerSandbox;
import io.camelkubeflow.trainer.support.InvalidOptionException;
import io.camelkubeflow.trainer.workspace.WorkspaceArchives;
import io.camelkubeflow.trainer.workspace.WorkspaceLimits;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The refusals made before a TrainJob is built, each read from the launcher's traits: the builtin trainer's settings and
 * an image's entrypoint against a runtime that runs its own program or none, a command that starts the whole payload
 * on one rank beside a workspace.
 */
class TrainRequestFitTest {
    @TempDir
    static Path folder;

    private static TrainingRuntimeDescriptor runtime(String file) throws Exception {
        try (InputStream in = TrainRequestFitTest.class.getResourceAsStream(TrainerSandbox.RUNTIMES + file)) {
            return TrainingRuntimeDescriptor.from(Serialization.unmarshal(in, GenericKubernetesResource.class));
        }
    }

    private static InvalidOptionException refused(TrainRequest request, String runtimeFile) throws Exception {
        TrainingRuntimeDescriptor runtime = runtime(runtimeFile);
        return assertThrows(
                InvalidOptionException.class,
                () -> TrainJobFactory.build(request.runtime(runtime.name()), runtime, "ml", "j", null));
    }

    private static TrainRequest inWorkspace(List<String> command) throws Exception {
        Files.writeString(folder.resolve("train.py"), "print('trained')\n");
        return new TrainRequest()
                .command(command)
                .workspaceContent(WorkspaceArchives.fromDirectory(folder, "workspace", WorkspaceLimits.DEFAULT));
    }

    @Test
    void theBuiltinTrainersSettingsNeedARuntimeThatRunsItsOwnProgram() throws Exception {
        TrainRequest request = new TrainRequest().pythonFile("/a.py");
        request.torchtune().useDora(true);
        InvalidOptionException error = refused(request, "torch_distributed.yaml");
        assertTrue(error.getMessage().contains("runs torchrun"), error.getMessage());
    }

    @Test
    void anImagesEntrypointCannotReplaceARuntimesOwnProgram() throws Exception {
        InvalidOptionException error = refused(
                new TrainRequest().imageEntrypoint(true).image("team/img:1"), "torchtune/llama3_2/llama3_2_1B.yaml");
        assertEquals("imageEntrypoint", error.getField());
        assertTrue(error.getMessage().contains("the builtin trainer (tune run)"), error.getMessage());
    }

    @Test
    void aCommandThatRunsMpirunItselfBesideAWorkspaceIsRefusedTorchrunIsNot() throws Exception {
        InvalidOptionException error =
                refused(inWorkspace(List.of("mpirun", "-n", "2", "python", "train.py")), "deepspeed_distributed.yaml");
        assertEquals("command", error.getField());
        assertTrue(error.getMessage().contains("without mpirun"), error.getMessage());
        // Open MPI's other names, by path too
        assertEquals(
                "command",
                refused(
                                inWorkspace(List.of("/usr/bin/mpiexec.openmpi", "python", "train.py")),
                                "deepspeed_distributed.yaml")
                        .getField());
        TrainingRuntimeDescriptor torch = runtime("torch_distributed.yaml");
        TrainJobFactory.build(
                inWorkspace(List.of("torchrun", "train.py")).runtime(torch.name()), torch, "ml", "j", null);
    }
}
