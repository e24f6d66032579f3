package io.camelkubeflow.trainer;

import static io.camelkubeflow.trainer.KubeflowTrainerConstants.*;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.camelkubeflow.trainer.api.TrainJob;
import io.camelkubeflow.trainer.support.InvalidOptionException;
import io.camelkubeflow.trainer.testing.Eventually;
import io.camelkubeflow.trainer.testing.RuntimeYaml;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.Pod;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.camel.Exchange;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The two trainer shapes of the Kubeflow SDK 0.5.0 beside a payload: the torchtune builtin trainer's typed config
 * (BuiltinTrainer(TorchTuneConfig(...))) and the image's own entrypoint (CustomTrainerContainer), as the TrainJob the
 * CRD accepts and the node container the sandbox renders from it. Their refusals are in {@link BadInputTest}.
 */
class TrainerShapesTest extends TrainerRouteTestSupport {
    static final String TORCHTUNE = "kubeflow-trainer:train?runtime=torchtune-llama3.2-1b&namespace=ml";
    /** What the torchtune runtime's command sets that the Trainer carries over to the builtin trainer's. */
    static final List<String> RUNTIME_PATHS = List.of(
            "output_dir=/workspace/output",
            "tokenizer.path=/workspace/model/original/tokenizer.model",
            "checkpointer.checkpoint_dir=/workspace/model");

    /**
     * Configs written as the SDK's and the trainer.args the SDK 0.5.0 made for them (printed by
     * kubeflow.trainer.backends.kubernetes.utils.get_args_using_torchtune_config in the e2e module's venv;
     * TrainerShapesIT compares with the SDK live), with the recipe and config the Trainer picks on the runtime's two GPUs.
     */
    static Stream<Arguments> sdkConfigs() {
        return Stream.of(
                Arguments.of(
                        "full fine-tune",
                        "&torchtuneDtype=bf16&torchtuneBatchSize=8&torchtuneEpochs=3"
                                + "&torchtuneLoss=torchtune.modules.loss.CEWithChunkedOutputLoss",
                        Map.of(),
                        List.of(
                                "dtype=bf16",
                                "batch_size=8",
                                "epochs=3",
                                "loss=torchtune.modules.loss.CEWithChunkedOutputLoss"),
                        "full_finetune_distributed",
                        "llama3_2/1B_full"),
                Arguments.of(
                        "LoRA",
                        "&torchtuneEpochs=1&torchtuneLoraApplyToMlp=true"
                                + "&torchtuneLoraApplyToOutput=false&torchtuneLoraRank=8&torchtuneLoraAlpha=16",
                        Map.of(TORCHTUNE_LORA_DROPOUT, 0.05),
                        List.of(
                                "epochs=1",
                                "model.apply_lora_to_mlp=True",
                                "model.apply_lora_to_output=False",
                                "model.lora_rank=8",
                                "model.lora_alpha=16",
                                "model.lora_dropout=0.05",
                                "model.lora_attn_modules=[q_proj,v_proj,output_proj]"),
                        "lora_finetune_distributed",
                        "llama3_2/1B_lora"),
                // the webhook takes QLoRA on Llama 3.2 on one device only
                Arguments.of(
                        "QLoRA",
                        "&numProcPerNode=1&torchtuneDtype=fp32&torchtuneLoraAttnModules=q_proj,k_proj"
                                + "&torchtuneQuantizeBase=true&torchtuneUseDora=false&torchtuneLoraDropout=0.00001",
                        Map.of(),
                        List.of(
                                "dtype=fp32",
                                "model.lora_dropout=1e-05",
                                "model.quantize_base=True",
                                "model.use_dora=False",
                                "model.lora_attn_modules=[q_proj,k_proj]"),
                        "lora_finetune_single_device",
                        "llama3_2/1B_qlora_single_device"),
                Arguments.of(
                        "DoRA on two GPUs",
                        "&torchtuneQuantizeBase=true&torchtuneUseDora=true",
                        Map.of(),
                        List.of(
                                "model.quantize_base=True",
                                "model.use_dora=True",
                                "model.lora_attn_modules=[q_proj,v_proj,output_proj]"),
                        "lora_finetune_distributed",
                        "llama3_2/1B_lora"),
                Arguments.of(
                        "instruct dataset from Hugging Face",
                        "&torchtuneBatchSize=2"
                                + "&datasetUri=hf://tatsu-lab/alpaca/data&torchtuneDatasetSource=parquet"
                                + "&torchtuneDatasetSplit=RAW(train[:10%])&torchtuneTrainOnInput=false"
                                + "&torchtuneColumnMap.input=question&torchtuneColumnMap.output=answer",
                        Map.of(TORCHTUNE_NEW_SYSTEM_PROMPT, "You are a helpful assistant."),
                        List.of(
                                "batch_size=2",
                                "dataset.data_dir=/workspace/dataset/data",
                                "dataset=torchtune.datasets.instruct_dataset",
                                "dataset.source=parquet",
                                "dataset.split=train[:10%]",
                                "dataset.train_on_input=False",
                                "dataset.new_system_prompt=You are a helpful assistant.",
                                "dataset.column_map={'input': 'question', 'output': 'answer'}"),
                        "full_finetune_distributed",
                        "llama3_2/1B_full"),
                Arguments.of(
                        "a dataset file",
                        "&torchtuneEpochs=2" + "&datasetUri=hf://tatsu-lab/alpaca/data/train-00000.parquet",
                        Map.of(),
                        List.of("epochs=2", "dataset.data_files=/workspace/dataset/data/train-00000.parquet"),
                        "full_finetune_distributed",
                        "llama3_2/1B_full"),
                Arguments.of(
                        "a dataset repository",
                        "&torchtuneEpochs=2&datasetUri=hf://tatsu-lab/alpaca",
                        Map.of(),
                        List.of("epochs=2", "dataset.data_dir=/workspace/dataset/."),
                        "full_finetune_distributed",
                        "llama3_2/1B_full"),
                Arguments.of(
                        "LoRA on one GPU, as headers",
                        "&gpu=1",
                        Map.of(TORCHTUNE_LORA_ATTN_MODULES, List.of("q_proj", "v_proj"), TORCHTUNE_LORA_RANK, "4"),
                        List.of("model.lora_rank=4", "model.lora_attn_modules=[q_proj,v_proj]"),
                        "lora_finetune_single_device",
                        "llama3_2/1B_lora_single_device"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("sdkConfigs")
    void theTypedConfigRunsTuneRunWithTheSdksArgsAndTheRecipeTheTrainerPicks(
            String name,
            String options,
            Map<String, Object> headers,
            List<String> sdkArgs,
            String recipe,
            String config)
            throws Exception {
        TrainJob job = trainJob(send(TORCHTUNE + options, null, headers));
        assertEquals(List.of("tune", "run"), job.getSpec().trainer().command());
        assertEquals(sdkArgs, job.getSpec().trainer().args());

        Container node = container(nodePod(job), "node");
        boolean singleDevice = recipe.endsWith("single_device");
        List<String> expected = new ArrayList<>(List.of("tune", "run"));
        if (!singleDevice) {
            String name0 = job.getMetadata().getName();
            expected.add("--rdzv_endpoint=" + name0 + "-node-0-0." + name0 + ":29500");
        }
        expected.addAll(List.of(recipe, "--config", config));
        expected.addAll(RUNTIME_PATHS);
        assertEquals(expected, node.getCommand());
        assertEquals(sdkArgs, node.getArgs());
        // tune run takes its rendezvous from the command line: the plugin gives it no master address
        assertTrue(
                node.getEnv().stream().map(EnvVar::getName).noneMatch(n -> n.startsWith("PET_MASTER")),
                node.getEnv().toString());
        assertTrue(
                node.getEnv().stream().anyMatch(e -> e.getName().equals("PET_NNODES")),
                node.getEnv().toString());
    }

    @Test
    void rawArgsFollowTheTypedConfigsAndOverrideIt() throws Exception {
        TrainJob job = trainJob(send(TORCHTUNE + "&torchtuneEpochs=1", null, Map.of(ARGS, "optimizer.lr=2e-5")));
        assertEquals(
                List.of("epochs=1", "optimizer.lr=2e-5"),
                job.getSpec().trainer().args());
    }

    @Test
    void withoutTheTypedConfigArgsStillFollowTheRuntimesOwnCommand() throws Exception {
        TrainJob job = trainJob(send(TORCHTUNE, null, Map.of(ARGS, "epochs=1")));
        assertNull(job.getSpec().trainer().command());
        Container node = container(nodePod(job), "node");
        assertEquals("full_finetune_distributed", node.getCommand().get(3));
        assertEquals(List.of("epochs=1"), node.getArgs());
    }

    @Test
    void theImagesEntrypointRunsWithNoCommandAndEverySettingOnTheNode() throws Exception {
        TrainJob job = trainJob(send(
                "kubeflow-trainer:train?runtime=torch-distributed&namespace=ml"
                        + "&imageEntrypoint=true&image=example.com/team/trainer:1.0&numNodes=2&cpu=2&env.EPOCHS=3"
                        + "&labels.team=vision",
                null,
                Map.of()));
        assertEquals("example.com/team/trainer:1.0", job.getSpec().trainer().image());
        assertNull(job.getSpec().trainer().command());
        assertNull(job.getSpec().trainer().args());
        assertEquals(2, job.getSpec().trainer().numNodes());
        assertEquals("vision", job.getMetadata().getLabels().get("team"));
        List<Pod> pods = nodePods(job, "node", 2);
        for (Pod pod : pods) {
            Container node = container(pod, "node");
            assertEquals("example.com/team/trainer:1.0", node.getImage());
            assertEquals(List.of(), node.getCommand());
            assertEquals(List.of(), node.getArgs());
            assertTrue(
                    node.getEnv().contains(new EnvVar("EPOCHS", "3", null)),
                    node.getEnv().toString());
            assertEquals("2", node.getResources().getLimits().get("cpu").toString());
        }
    }

    @Test
    void argsReplaceOnlyTheImagesCmd() throws Exception {
        TrainJob job = trainJob(send(
                "kubeflow-trainer:train?runtime=torch-distributed&namespace=ml"
                        + "&imageEntrypoint=true&image=example.com/team/trainer:1.0",
                null,
                Map.of(ARGS, "--epochs 3")));
        assertNull(job.getSpec().trainer().command());
        Container node = container(nodePod(job), "node");
        assertEquals(List.of(), node.getCommand());
        assertEquals(List.of("--epochs", "3"), node.getArgs());
    }

    /** Under MPI the launcher job runs the trainer: the image's entrypoint there, the nodes keep their sshd. */
    @Test
    void onMpiTheLauncherRunsTheImagesEntrypoint() throws Exception {
        TrainJob job = trainJob(send(
                "kubeflow-trainer:train?runtime=deepspeed-distributed&namespace=ml"
                        + "&imageEntrypoint=true&image=example.com/team/mpi-trainer:1.0",
                null,
                Map.of()));
        assertEquals(
                "mpirun",
                send(
                                "kubeflow-trainer:train?runtime=deepspeed-distributed&namespace=ml&pythonFile=/a.py",
                                null,
                                Map.of())
                        .getMessage()
                        .getHeader(LAUNCHER_CHOSEN));
        Container launcher = container(nodePods(job, "launcher", 1).get(0), "node");
        assertEquals("example.com/team/mpi-trainer:1.0", launcher.getImage());
        assertEquals(List.of(), launcher.getCommand());
        Container worker = container(nodePods(job, "node", 1).get(0), "node");
        assertEquals(List.of("/usr/sbin/sshd"), worker.getCommand());
    }

    /** The Trainer keeps a runtime's trainer command when the TrainJob gives none: the image's would never run. */
    @Test
    void aRuntimeWhoseTrainerHasItsOwnCommandCannotRunTheImagesEntrypoint() throws Exception {
        api.createRuntime(RuntimeYaml.of("team-commanded", "ml", null, "{numNodes: 1, torch: {}}", "team/base:1")
                .replace("{name: node, image: team/base:1}", "{name: node, image: team/base:1, command: [train]}"));
        api.mark();
        Exchange refused = template.send(
                "kubeflow-trainer:train?runtime=team-commanded&runtimeKind=TrainingRuntime"
                        + "&namespace=ml&imageEntrypoint=true&image=team/img:1",
                exchange -> {});
        InvalidOptionException error = assertInstanceOf(InvalidOptionException.class, refused.getException());
        assertEquals("imageEntrypoint", error.getField());
        assertTrue(error.getMessage().contains("sets its trainer container's command"), error.getMessage());
        assertEquals(List.of(), api.writesSinceMark());
    }

    /** A builtin runtime runs its own program: another program as the command is refused, as the SDK refuses it. */
    @Test
    void aCommandOfAnotherProgramOnABuiltinRuntimeIsRefusedNamingTheRule() {
        for (String command : List.of("python3 train.py", "bash -c 'tune run x'", "torchrun train.py")) {
            api.mark();
            Exchange refused = template.send(
                    TORCHTUNE, exchange -> exchange.getMessage().setHeader(KubeflowTrainerConstants.COMMAND, command));
            InvalidOptionException error = assertInstanceOf(InvalidOptionException.class, refused.getException());
            assertEquals("command", error.getField(), command);
            assertTrue(
                    error.getMessage().contains("the runtime runs the builtin trainer (tune run), its own program"),
                    error.getMessage());
            assertEquals(List.of(), api.writesSinceMark());
        }
        Exchange tuneRun = template.send(
                TORCHTUNE,
                exchange -> exchange.getMessage()
                        .setHeader(
                                KubeflowTrainerConstants.COMMAND, "tune run lora_finetune_single_device --config c"));
        assertEquals(null, tuneRun.getException());
    }

    private static Pod nodePod(TrainJob job) throws InterruptedException {
        return nodePods(job, "node", 1).get(0);
    }

    private static List<Pod> nodePods(TrainJob job, String replicatedJob, int count) throws InterruptedException {
        String name = job.getMetadata().getName();
        List<List<Pod>> found = new ArrayList<>(List.of(List.of()));
        Eventually.await(
                Duration.ofSeconds(30),
                () -> {
                    found.set(
                            0,
                            api.client()
                                    .pods()
                                    .inNamespace("ml")
                                    .withLabel("jobset.sigs.k8s.io/jobset-name", name)
                                    .withLabel("jobset.sigs.k8s.io/replicatedjob-name", replicatedJob)
                                    .list()
                                    .getItems());
                    return found.get(0).size() >= count;
                },
                () -> "no " + replicatedJob + " pods for " + name);
        return found.get(0);
    }

    private static Container container(Pod pod, String name) {
        return pod.getSpec().getContainers().stream()
                .filter(c -> c.getName().equals(name))
                .findFirst()
                .orElseThrow();
    }
}
