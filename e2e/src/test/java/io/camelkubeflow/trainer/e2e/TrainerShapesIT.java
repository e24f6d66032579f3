package io.camelkubeflow.trainer.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.camelkubeflow.trainer.KubeflowTrainerComponent;
import io.camelkubeflow.trainer.api.TrainJob;
import io.camelkubeflow.trainer.sandbox.TrainerSandbox;
import io.camelkubeflow.trainer.support.InvalidOptionException;
import io.camelkubeflow.trainer.testing.BoundedProcess;
import io.camelkubeflow.trainer.testing.Eventually;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.apache.camel.CamelContext;
import org.apache.camel.Exchange;
import org.apache.camel.impl.DefaultCamelContext;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The two trainer shapes of the Kubeflow SDK 0.5.0 on the real control plane. The torchtune builtin trainer's typed
 * config: the args the component writes are the ones the SDK (from PyPI, in the build's venv) makes for the same
 * config, the real webhook admits the TrainJob, and the real Trainer completes {@code tune run} in the JobSet it
 * renders exactly as the sandbox does for the same request. The image's own entrypoint: the real webhook admits a
 * TrainJob with no command, the pods JobSet makes carry none, and the node agent (which runs pods as local processes
 * and knows no image) says so when it starts them; whether the image's ENTRYPOINT then runs is a container runtime's
 * work, which this control plane has none of.
 */
class TrainerShapesIT {
    private static final ResourceDefinitionContext JOBSETS = new ResourceDefinitionContext.Builder()
            .withGroup("jobset.x-k8s.io")
            .withVersion("v1alpha2")
            .withPlural("jobsets")
            .withNamespaced(true)
            .build();
    private static RealCluster cluster;
    private static TrainerSandbox sandbox;
    private static KubernetesClient sandboxClient;
    private static CamelContext onSandbox;

    @BeforeAll
    static void start(@TempDir Path home) throws Exception {
        cluster = RealCluster.start(TrainerShapesIT.class);
        sandbox = TrainerSandbox.start(TrainerSandbox.Options.standalone());
        sandbox.createNamespace(cluster.namespace);
        sandboxClient = RealCluster.client(sandbox.writeKubeconfig(home.resolve("kubeconfig"), cluster.namespace));
        onSandbox = new DefaultCamelContext();
        onSandbox
                .getComponent("kubeflow-trainer", KubeflowTrainerComponent.class)
                .setKubernetesClient(sandboxClient);
        onSandbox.start();
    }

    @AfterAll
    static void stop() {
        onSandbox.stop();
        sandboxClient.close();
        sandbox.close();
        cluster.close();
    }

    /** The same config as the component's options and as the SDK's Python; the recipe and config the Trainer picks. */
    static Stream<Arguments> configs() {
        return Stream.of(
                Arguments.of(
                        "full",
                        "torchtuneDtype=bf16&torchtuneBatchSize=8&torchtuneEpochs=3"
                                + "&torchtuneLoss=torchtune.modules.loss.CEWithChunkedOutputLoss",
                        "TorchTuneConfig(dtype=DataType.BF16, batch_size=8, epochs=3, loss=Loss.CEWithChunkedOutputLoss)",
                        "full_finetune_distributed --config llama3_2/1B_full"),
                Arguments.of(
                        "lora",
                        "torchtuneEpochs=1&torchtuneLoraApplyToMlp=true&torchtuneLoraApplyToOutput=false"
                                + "&torchtuneLoraRank=8&torchtuneLoraAlpha=16&torchtuneLoraDropout=0.05",
                        "TorchTuneConfig(epochs=1, peft_config=LoraConfig(apply_lora_to_mlp=True,"
                                + " apply_lora_to_output=False, lora_rank=8, lora_alpha=16, lora_dropout=0.05))",
                        "lora_finetune_distributed --config llama3_2/1B_lora"),
                Arguments.of(
                        "qlora",
                        "numProcPerNode=1&torchtuneDtype=fp32&torchtuneLoraAttnModules=q_proj,k_proj"
                                + "&torchtuneQuantizeBase=true&torchtuneUseDora=false&torchtuneLoraDropout=0.00001",
                        "TorchTuneConfig(dtype=DataType.FP32, peft_config=LoraConfig(lora_attn_modules=['q_proj',"
                                + " 'k_proj'], quantize_base=True, use_dora=False, lora_dropout=0.00001))",
                        "lora_finetune_single_device --config llama3_2/1B_qlora_single_device"),
                Arguments.of(
                        "dataset",
                        "torchtuneBatchSize=2&datasetUri=hf://tatsu-lab/alpaca/data"
                                + "&torchtuneDatasetSource=parquet&torchtuneDatasetSplit=RAW(train[:10%])"
                                + "&torchtuneTrainOnInput=false&torchtuneNewSystemPrompt=RAW(You are a helpful assistant.)"
                                + "&torchtuneColumnMap.input=question&torchtuneColumnMap.output=answer",
                        "TorchTuneConfig(batch_size=2, dataset_preprocess_config=TorchTuneInstructDataset("
                                + "source=DataFormat.PARQUET, split='train[:10%]', train_on_input=False,"
                                + " new_system_prompt='You are a helpful assistant.', column_map={'input': 'question',"
                                + " 'output': 'answer'}))|hf://tatsu-lab/alpaca/data",
                        "full_finetune_distributed --config llama3_2/1B_full"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("configs")
    @Timeout(120)
    void theTypedConfigIsTheSdksAndTheRealTrainerCompletesItAsTheSandboxDoes(
            String name, String options, String sdkConfig, String recipeAndConfig) throws Exception {
        List<String> sdkArgs = sdkArgs(sdkConfig);
        String job = "torchtune-" + name;
        String uri = "kubeflow-trainer:train?runtime=torchtune-llama3.2-1b&jobName=" + job + "&" + options;
        TrainJob created = cluster.request(uri, null).getMessage().getBody(TrainJob.class);
        assertEquals(List.of("tune", "run"), created.getSpec().trainer().command());
        assertEquals(sdkArgs, created.getSpec().trainer().args(), "the args the SDK makes for " + sdkConfig);

        Container real = trainerContainer(cluster.admin, job);
        List<String> expected = new ArrayList<>(List.of("tune", "run"));
        if (!recipeAndConfig.contains("single_device")) {
            expected.add("--rdzv_endpoint=" + job + "-node-0-0." + job + ":29500");
        }
        expected.addAll(List.of(recipeAndConfig.split(" ")));
        expected.addAll(List.of(
                "output_dir=/workspace/output",
                "tokenizer.path=/workspace/model/original/tokenizer.model",
                "checkpointer.checkpoint_dir=/workspace/model"));
        assertEquals(expected, real.getCommand());
        assertEquals(sdkArgs, real.getArgs());
        assertTrue(
                real.getEnv().stream().map(EnvVar::getName).noneMatch(n -> n.startsWith("PET_MASTER")),
                real.getEnv().toString());

        Exchange emulated =
                onSandbox.createProducerTemplate().request(uri + "&namespace=" + cluster.namespace, e -> {});
        assertNull(emulated.getException());
        Container rendered = trainerContainer(sandboxClient, job);
        assertEquals(real.getCommand(), rendered.getCommand(), "the sandbox's JobSet");
        assertEquals(real.getArgs(), rendered.getArgs(), "the sandbox's JobSet");
        assertEquals(names(real.getEnv()), names(rendered.getEnv()), "the sandbox's JobSet");
    }

    /** What the webhook would refuse the component refuses first: nothing reaches the API server. */
    @Test
    @Timeout(60)
    void aTypedConfigTheWebhookWouldRefuseIsRefusedBeforeAnyWrite() throws Exception {
        long mark = cluster.auditMark();
        for (String[] refused : new String[][] {
            {"torchtuneQuantizeBase=true", "torchtuneQuantizeBase"},
            {"torchtuneEpochs=1&numNodes=2", "numNodes"},
            {"torchtuneEpochs=1&args=RAW(output_dir=/tmp)", "args"}
        }) {
            Exchange exchange = cluster.template.request(
                    "kubeflow-trainer:train?runtime=torchtune-llama3.2-1b" + "&namespace=" + cluster.namespace + "&"
                            + refused[0],
                    e -> {});
            assertEquals(
                    refused[1],
                    assertInstanceOf(InvalidOptionException.class, exchange.getException())
                            .getField());
        }
        assertEquals(List.of(), cluster.writesSince(mark, RealCluster.ADMIN_USER), "writes the API server saw");
    }

    /**
     * The image's own entrypoint: admitted with no command, the JobSet's pods carry none, with the image, env,
     * resources and nodes as asked; the node agent, which runs containers' commands on this machine, reports the pod
     * it was given has none.
     */
    @Test
    @Timeout(120)
    void theImagesEntrypointIsAdmittedAndItsPodsCarryNoCommand() throws Exception {
        String job = "image-entrypoint";
        TrainJob created = cluster.request(
                        "kubeflow-trainer:train?runtime=torch-distributed&jobName=" + job
                                + "&imageEntrypoint=true&image=example.com/team/trainer:1.0&numNodes=2&cpu=1&env.EPOCHS=3",
                        null)
                .getMessage()
                .getBody(TrainJob.class);
        assertNull(created.getSpec().trainer().command());
        assertNull(created.getSpec().trainer().args());

        List<Pod> pods = new ArrayList<>();
        Eventually.await(
                Duration.ofSeconds(60),
                () -> {
                    pods.clear();
                    pods.addAll(cluster.admin
                            .pods()
                            .inNamespace(cluster.namespace)
                            .withLabel("jobset.sigs.k8s.io/jobset-name", job)
                            .list()
                            .getItems());
                    return pods.size() == 2;
                },
                () -> "not the 2 node pods of " + job + ": " + pods.size());
        for (Pod pod : pods) {
            Container node = pod.getSpec().getContainers().stream()
                    .filter(c -> c.getName().equals("node"))
                    .findFirst()
                    .orElseThrow();
            assertEquals("example.com/team/trainer:1.0", node.getImage());
            assertEquals(List.of(), node.getCommand());
            assertEquals(List.of(), node.getArgs());
            assertTrue(
                    node.getEnv().contains(new EnvVar("EPOCHS", "3", null)),
                    node.getEnv().toString());
            assertEquals("1", node.getResources().getLimits().get("cpu").toString());
        }
        String pod = pods.get(0).getMetadata().getName();
        Eventually.await(
                Duration.ofSeconds(60),
                () -> cluster.admin.v1().events().inNamespace(cluster.namespace).list().getItems().stream()
                        .anyMatch(e -> pod.equals(e.getInvolvedObject().getName())
                                && "Failed".equals(e.getReason())
                                && e.getMessage().contains("has no command")),
                () -> "the node agent said nothing of " + pod + "'s missing command");
    }

    private static List<String> names(List<EnvVar> env) {
        return env.stream().map(EnvVar::getName).sorted().toList();
    }

    /** The node container of the trainer job in the JobSet the Trainer rendered for {@code job}. */
    private static Container trainerContainer(KubernetesClient client, String job) throws InterruptedException {
        GenericKubernetesResource[] jobSet = new GenericKubernetesResource[1];
        Eventually.await(
                Duration.ofSeconds(60),
                () -> (jobSet[0] = client.genericKubernetesResources(JOBSETS)
                                .inNamespace(cluster.namespace)
                                .withName(job)
                                .get())
                        != null,
                () -> "no JobSet for " + job);
        LaunchersIT.JobSet rendered =
                Serialization.unmarshal(Serialization.asJson(jobSet[0]), LaunchersIT.JobSet.class);
        return rendered.podSpec("node").getContainers().stream()
                .filter(c -> c.getName().equals("node"))
                .findFirst()
                .orElseThrow();
    }

    /**
     * The trainer.args the SDK's Kubernetes backend makes for a TorchTuneConfig written in Python, with a Hugging Face
     * dataset initializer after a '|'.
     */
    private static List<String> sdkArgs(String config) throws Exception {
        String[] parts = config.split("\\|");
        String initializer = parts.length > 1
                ? "Initializer(dataset=HuggingFaceDatasetInitializer(storage_uri='" + parts[1] + "'))"
                : "None";
        String program = "import json\n"
                + "from kubeflow.trainer.types.types import *\n"
                + "from kubeflow.trainer.backends.kubernetes import utils\n"
                + "print(json.dumps(utils.get_args_using_torchtune_config(" + parts[0] + ", " + initializer + ")))\n";
        BoundedProcess.Result python = BoundedProcess.run(
                Duration.ofSeconds(60), List.of(System.getProperty("kubeflow.sdk.python"), "-c", program));
        assertEquals(0, python.exitCode(), python.printed());
        String output = python.output();
        @SuppressWarnings("unchecked")
        List<String> args =
                Serialization.unmarshal(output.lines().reduce((a, b) -> b).orElseThrow(), List.class);
        return args;
    }
}
