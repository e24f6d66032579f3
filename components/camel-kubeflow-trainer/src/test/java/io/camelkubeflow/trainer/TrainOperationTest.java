package io.camelkubeflow.trainer;

import static io.camelkubeflow.trainer.KubeflowTrainerConstants.*;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.camelkubeflow.trainer.api.RuntimePatch;
import io.camelkubeflow.trainer.api.TrainJob;
import io.camelkubeflow.trainer.api.TrainJobSpec;
import io.camelkubeflow.trainer.api.Trainer;
import io.camelkubeflow.trainer.job.TrainJobCapacityException;
import io.camelkubeflow.trainer.job.TrainJobConflictException;
import io.camelkubeflow.trainer.job.TrainJobFactory;
import io.camelkubeflow.trainer.job.TrainJobMetadata;
import io.camelkubeflow.trainer.sandbox.cluster.TrainJobControllerEmulation;
import io.camelkubeflow.trainer.support.InvalidOptionException;
import io.camelkubeflow.trainer.testing.RuntimeYaml;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.apache.camel.Exchange;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** kubeflow-trainer:train against the mock API server holding the real CRDs and default runtimes. */
class TrainOperationTest extends TrainerRouteTestSupport {
    static final String SCRIPT_PATH = TrainJobFactory.SCRIPT_DIR + "/train.py";
    static final String MPI = "mpirun --hostfile /etc/mpi/hostfile";
    /** mpirun with the common options' variables handed to every rank. */
    static final String MPI_WITH_ENV = MPI + " -x HF_TOKEN -x LOG_LEVEL";
    /** Options that must reach the TrainJob whatever the launcher and payload kind. */
    static final String COMMON_OPTIONS = "&namespace=ml&numNodes=2&numProcPerNode=4&cpu=4&memory=16Gi&gpu=1"
            + "&env.LOG_LEVEL=debug&env.HF_TOKEN=secretKeyRef:hf-token/token&labels.team=vision"
            + "&annotations.example.com/owner=ml-platform&activeDeadlineSeconds=3600&suspend=true"
            + "&managedBy=kueue.x-k8s.io/multikueue&queue=team-a&priorityClass=high&args=--epochs 3";

    static Stream<Arguments> launchersAndPayloads() {
        return Stream.of(
                Arguments.of("torch-distributed", "script", "torchrun " + SCRIPT_PATH, "torchrun", List.of("node")),
                Arguments.of(
                        "torch-distributed",
                        "pythonFile=/app/train.py",
                        "torchrun /app/train.py",
                        "torchrun",
                        List.of()),
                Arguments.of(
                        "torch-distributed",
                        "command=python -u train.py",
                        "torchrun --no_python python -u train.py",
                        "torchrun",
                        List.of()),
                Arguments.of(
                        "torch-distributed",
                        "command=torchrun --standalone train.py",
                        "torchrun --standalone train.py",
                        "torchrun",
                        List.of()),
                Arguments.of(
                        "deepspeed-distributed",
                        "script",
                        MPI_WITH_ENV + " python " + SCRIPT_PATH,
                        "mpirun",
                        List.of("node", "launcher")),
                Arguments.of(
                        "deepspeed-distributed",
                        "pythonFile=/app/ds.py",
                        MPI_WITH_ENV + " python /app/ds.py",
                        "mpirun",
                        List.of()),
                Arguments.of(
                        "mlx-distributed",
                        "command=python train.py",
                        MPI_WITH_ENV + " python train.py",
                        "mpirun",
                        List.of()),
                Arguments.of(
                        "mlx-distributed",
                        "script",
                        MPI_WITH_ENV + " python " + SCRIPT_PATH,
                        "mpirun",
                        List.of("node", "launcher")),
                Arguments.of("jax-distributed", "pythonFile=/app/jax.py", "python /app/jax.py", "python", List.of()),
                Arguments.of("xgboost-distributed", "script", "python " + SCRIPT_PATH, "python", List.of("node")),
                Arguments.of(
                        "xgboost-distributed",
                        "command=python -m xgb.train",
                        "python -m xgb.train",
                        "python",
                        List.of()),
                Arguments.of(
                        "torchtune-llama3.2-1b",
                        "command=tune run lora_finetune_single_device --config c",
                        "tune run lora_finetune_single_device --config c",
                        "builtin",
                        List.of()),
                Arguments.of("torchtune-llama3.2-1b", "argsOnly", null, "builtin", List.of()));
    }

    @ParameterizedTest(name = "{0} + {1}")
    @MethodSource("launchersAndPayloads")
    void everyLauncherAndPayloadKindGetsEveryOption(
            String runtime, String payload, String expectedCommand, String launcher, List<String> patchedJobs) {
        String uri = "kubeflow-trainer:train?runtime=" + runtime + COMMON_OPTIONS;
        Object body = null;
        if (payload.equals("script")) {
            uri += "&bodyType=script";
            body = "import sys\nprint('training', sys.argv)\n";
        } else if (!payload.equals("argsOnly")) {
            uri += "&" + payload;
        }
        Exchange exchange = send(uri, body, Map.of());
        TrainJob returned = trainJob(exchange);
        TrainJob job = stored("ml", returned.getMetadata().getName());
        assertEquals(returned.getMetadata().getUid(), job.getMetadata().getUid());

        assertEquals(launcher, exchange.getMessage().getHeader(LAUNCHER_CHOSEN));
        assertEquals(job.getMetadata().getName(), exchange.getMessage().getHeader(JOB_NAME));
        assertEquals("ml", exchange.getMessage().getHeader(NAMESPACE));
        assertEquals(job.getMetadata().getUid(), exchange.getMessage().getHeader(JOB_UID));
        assertEquals(false, exchange.getMessage().getHeader(ADOPTED));
        assertNotNull(exchange.getMessage().getHeader(LAUNCHER_REASON));

        assertEquals(runtime, job.getSpec().runtimeRef().name());
        assertEquals(
                expectedCommand == null ? null : List.of(expectedCommand.split(" ")),
                job.getSpec().trainer().command());
        assertEquals(List.of("--epochs", "3"), job.getSpec().trainer().args());
        assertCommonOptions(job);

        List<String> mounted = job.getSpec().runtimePatches() == null
                ? List.of()
                : job
                        .getSpec()
                        .runtimePatches()
                        .get(0)
                        .trainingRuntimeSpec()
                        .template()
                        .spec()
                        .replicatedJobs()
                        .stream()
                        .map(RuntimePatch.ReplicatedJobPatch::name)
                        .toList();
        assertEquals(patchedJobs, mounted);
        if (!patchedJobs.isEmpty()) {
            assertEquals(Map.of("train.py", "import sys\nprint('training', sys.argv)\n"), stagedScript(job));
        }
    }

    static void assertCommonOptions(TrainJob job) {
        var trainer = job.getSpec().trainer();
        assertEquals(2, trainer.numNodes());
        assertEquals(4, trainer.numProcPerNode());
        Map<String, Quantity> expected =
                Map.of("cpu", new Quantity("4"), "memory", new Quantity("16Gi"), "nvidia.com/gpu", new Quantity("1"));
        assertEquals(expected, trainer.resourcesPerNode().getLimits());
        assertEquals(expected, trainer.resourcesPerNode().getRequests());
        // URI options reach the component as a map: env order is not the URI's
        Map<String, EnvVar> env = new HashMap<>();
        trainer.env().forEach(var -> env.put(var.getName(), var));
        assertEquals(2, env.size());
        assertEquals(new EnvVar("LOG_LEVEL", "debug", null), env.get("LOG_LEVEL"));
        EnvVar token = env.get("HF_TOKEN");
        assertNull(token.getValue());
        assertEquals("hf-token", token.getValueFrom().getSecretKeyRef().getName());
        assertEquals("token", token.getValueFrom().getSecretKeyRef().getKey());
        assertEquals("vision", job.getMetadata().getLabels().get("team"));
        assertEquals("camel-kubeflow-trainer", job.getMetadata().getLabels().get(TrainJobMetadata.MANAGED_BY_LABEL));
        assertEquals("ml-platform", job.getMetadata().getAnnotations().get("example.com/owner"));
        assertEquals(3600L, job.getSpec().activeDeadlineSeconds());
        assertEquals(true, job.getSpec().suspend());
        assertEquals("kueue.x-k8s.io/multikueue", job.getSpec().managedBy());
        assertEquals("team-a", job.getMetadata().getLabels().get("kueue.x-k8s.io/queue-name"));
        assertEquals("high", job.getMetadata().getLabels().get("kueue.x-k8s.io/priority-class"));
    }

    @Test
    void packagesWrapTheMpiPayloadInOneQuotedScript() {
        Exchange exchange = send(
                "kubeflow-trainer:train?runtime=deepspeed-distributed&pythonFile=/app/ds.py"
                        + "&packages=deepspeed>=0.15,datasets&pipIndexUrls=https://pypi.example.com/simple",
                null,
                Map.of(ARGS, List.of("--config", "a b.json")));
        TrainJob job = trainJob(exchange);
        List<String> command = job.getSpec().trainer().command();
        assertEquals(List.of("mpirun", "--hostfile", "/etc/mpi/hostfile", "bash", "-c"), command.subList(0, 5));
        assertEquals(
                "set -euo pipefail\nexport PIP_DISABLE_PIP_VERSION_CHECK=1\n"
                        + "python -m pip install --quiet --no-warn-script-location --user --index-url"
                        + " https://pypi.example.com/simple 'deepspeed>=0.15' datasets\n"
                        + "exec python /app/ds.py --config 'a b.json'\n",
                command.get(5));
        assertNull(job.getSpec().trainer().args());
    }

    @Test
    void mpirunHandsTheTrainersVariablesToEveryRankAndTorchrunHasNoNeed() {
        // a rank on another node is started by orted over ssh: it has only the variables mpirun exports
        TrainJob mpi = trainJob(send(
                "kubeflow-trainer:train?runtime=deepspeed-distributed&pythonFile=/app/ds.py"
                        + "&env.PIP_NO_INDEX=1&env.HF_TOKEN=secretKeyRef:hf/token&outputUri=s3://models/ds/",
                null,
                Map.of()));
        assertEquals(
                List.of(
                        "mpirun",
                        "--hostfile",
                        "/etc/mpi/hostfile",
                        "-x",
                        "HF_TOKEN",
                        "-x",
                        "PIP_NO_INDEX",
                        "-x",
                        "OUTPUT_URI",
                        "python",
                        "/app/ds.py"),
                mpi.getSpec().trainer().command());
        TrainJob torch = trainJob(send(
                "kubeflow-trainer:train?runtime=torch-distributed&pythonFile=/app/t.py" + "&env.PIP_NO_INDEX=1",
                null,
                Map.of()));
        assertEquals(List.of("torchrun", "/app/t.py"), torch.getSpec().trainer().command());
    }

    @Test
    void underMpirunAVariableThatReadsAsAnOptionIsRefusedBeforeAnyWrite() {
        Exchange exchange = send(
                "kubeflow-trainer:train?runtime=deepspeed-distributed&pythonFile=/app/ds.py" + "&env.-H=x",
                null,
                Map.of());
        InvalidOptionException error = assertInstanceOf(InvalidOptionException.class, exchange.getException());
        assertEquals("env", error.getField());
        assertTrue(error.getMessage().contains("-x NAME"), error.getMessage());
        assertTrue(
                api.client().resources(TrainJob.class).inAnyNamespace().list().getItems().stream()
                        .noneMatch(job -> job.getSpec().trainer().env() != null
                                && job.getSpec().trainer().env().stream()
                                        .anyMatch(var -> var.getName().equals("-H"))),
                "no TrainJob with the variable was written");
    }

    @Test
    void initializersNeedARuntimeWithInitializerSteps() {
        Exchange exchange = send(
                "kubeflow-trainer:train?runtime=torchtune-llama3.2-1b&datasetUri=s3://data/alpaca"
                        + "&datasetSecret=s3-creds&modelUri=hf://meta-llama/Llama-3.2-1B-Instruct&modelSecret=hf-token",
                null,
                Map.of(ARGS, "epochs=1"));
        TrainJob job = trainJob(exchange);
        assertEquals("s3://data/alpaca", job.getSpec().initializer().dataset().storageUri());
        assertEquals(
                "s3-creds", job.getSpec().initializer().dataset().secretRef().getName());
        assertEquals(
                "hf://meta-llama/Llama-3.2-1B-Instruct",
                job.getSpec().initializer().model().storageUri());
        assertEquals("hf-token", job.getSpec().initializer().model().secretRef().getName());
        assertNull(job.getSpec().trainer().command());
        assertEquals(List.of("epochs=1"), job.getSpec().trainer().args());
    }

    @Test
    void aRedeliveredKafkaRecordAdoptsTheSameTrainJob() {
        Map<String, Object> record = Map.of("kafka.TOPIC", "retrain", "kafka.PARTITION", 3, "kafka.OFFSET", 42L);
        String uri = "kubeflow-trainer:train?runtime=torch-distributed&namespace=ml&bodyType=script";
        Exchange first = send(uri, "print(1)", record);
        int jobs = api.client()
                .resources(TrainJob.class)
                .inNamespace("ml")
                .list()
                .getItems()
                .size();
        Exchange second = send(uri, "print(1)", record);
        assertEquals(
                trainJob(first).getMetadata().getUid(),
                trainJob(second).getMetadata().getUid());
        assertEquals(false, first.getMessage().getHeader(ADOPTED));
        assertEquals(true, second.getMessage().getHeader(ADOPTED));
        assertEquals("kafka:retrain/3/42", second.getMessage().getHeader(IDEMPOTENCY_KEY));
        assertEquals(
                TrainJobMetadata.nameFor(null, "kafka:retrain/3/42"),
                second.getMessage().getHeader(JOB_NAME));
        // the redelivery's creates were refused (409) and it changed nothing
        assertEquals(
                jobs,
                api.client()
                        .resources(TrainJob.class)
                        .inNamespace("ml")
                        .list()
                        .getItems()
                        .size());
        assertEquals(
                trainJob(first).getMetadata().getResourceVersion(),
                stored("ml", trainJob(first).getMetadata().getName())
                        .getMetadata()
                        .getResourceVersion());
    }

    @Test
    void s3AndExpressionKeysAreIdempotentToo() {
        Map<String, Object> object = Map.of(
                "CamelAwsS3BucketName", "datasets", "CamelAwsS3Key", "new/train.csv", "CamelAwsS3ETag", "abc123");
        String uri = "kubeflow-trainer:train?runtime=torch-distributed&namespace=ml&pythonFile=/app/t.py";
        assertEquals(
                trainJob(send(uri, null, object)).getMetadata().getUid(),
                trainJob(send(uri, null, object)).getMetadata().getUid());

        String byOrder = uri + "&idempotencyKey=order-${header.orderId}&jobNamePrefix=order";
        TrainJob one = trainJob(send(byOrder, null, Map.of("orderId", "7")));
        TrainJob again = trainJob(send(byOrder, null, Map.of("orderId", "7")));
        TrainJob other = trainJob(send(byOrder, null, Map.of("orderId", "8")));
        assertEquals(one.getMetadata().getUid(), again.getMetadata().getUid());
        assertTrue(one.getMetadata().getName().startsWith("order-"));
        assertTrue(!one.getMetadata().getName().equals(other.getMetadata().getName()));
    }

    @Test
    void anExplicitNameMadeForAnotherKeyIsAClashNotAnAdoption() {
        String uri = "kubeflow-trainer:train?runtime=torch-distributed&namespace=ml&pythonFile=/app/t.py"
                + "&jobName=nightly-resnet";
        trainJob(send(uri, null, Map.of(IDEMPOTENCY_KEY, "night-1")));
        Exchange clash = send(uri, null, Map.of(IDEMPOTENCY_KEY, "night-2"));
        assertTrue(clash.getException() instanceof TrainJobConflictException, String.valueOf(clash.getException()));
        // the other key may be another caller's: the refusal does not tell it
        assertTrue(
                !clash.getException().getMessage().contains("night-1"),
                clash.getException().getMessage());
        // the only write tried was the create the server refused with 409
        assertEquals(1, api.writesSinceMark().size(), api.writesSinceMark().toString());
        assertEquals(
                true,
                send(uri, null, Map.of(IDEMPOTENCY_KEY, "night-1")).getMessage().getHeader(ADOPTED));
    }

    @Test
    void headersOverrideTheEndpointPerMessage() {
        Exchange exchange = send(
                "kubeflow-trainer:train?runtime=torch-distributed&namespace=ml"
                        + "&command=python train.py&env.A=endpoint&env.B=endpoint&labels.team=a",
                null,
                Map.of(
                        RUNTIME,
                        "jax-distributed",
                        SCRIPT,
                        "print('from header')",
                        ENV,
                        Map.of("B", "header"),
                        LABELS,
                        Map.of("stage", "dev"),
                        NUM_NODES,
                        "3",
                        CPU,
                        "2"));
        TrainJob job = trainJob(exchange);
        assertEquals("jax-distributed", job.getSpec().runtimeRef().name());
        assertEquals(List.of("python", SCRIPT_PATH), job.getSpec().trainer().command());
        assertEquals(
                List.of(new EnvVar("A", "endpoint", null), new EnvVar("B", "header", null)),
                job.getSpec().trainer().env());
        assertEquals(
                Map.of("team", "a", "stage", "dev", TrainJobMetadata.MANAGED_BY_LABEL, "camel-kubeflow-trainer"),
                job.getMetadata().getLabels());
        assertEquals(3, job.getSpec().trainer().numNodes());
    }

    @Test
    void namespacedTrainingRuntimesAreFoundWithRuntimeKind() {
        api.createRuntime(RuntimeYaml.of("team-torch", "team-a", "torch", "{numNodes: 1, torch: {}}", "team/torch:1"));
        TrainJob job = trainJob(send(
                "kubeflow-trainer:train?runtime=team-torch&runtimeKind=TrainingRuntime"
                        + "&namespace=team-a&pythonFile=/app/t.py",
                null,
                Map.of()));
        assertEquals("TrainingRuntime", job.getSpec().runtimeRef().kind());
        assertEquals(List.of("torchrun", "/app/t.py"), job.getSpec().trainer().command());
    }

    @Test
    void customImagesFollowTheUsersImageRulesAndUnknownRuntimesSayWhy() {
        api.createRuntime(RuntimeYaml.of("in-house", null, "in-house", null, "registry.example.com/ml/torch-cu12:3"));
        Exchange fallback = send("kubeflow-trainer:train?runtime=in-house&pythonFile=/app/t.py", null, Map.of());
        assertEquals("python", fallback.getMessage().getHeader(LAUNCHER_CHOSEN));
        assertEquals("FALLBACK", fallback.getMessage().getHeader(LAUNCHER_RULE));
        assertTrue(
                fallback.getMessage().getHeader(LAUNCHER_REASON, String.class).contains("no mlPolicy"));

        Exchange ruled = send(
                "kubeflow-trainer:train?runtime=in-house&pythonFile=/app/t.py"
                        + "&imageRules=registry.example.com/*torch*=torchrun",
                null,
                Map.of());
        assertEquals("torchrun", ruled.getMessage().getHeader(LAUNCHER_CHOSEN));
        assertEquals("IMAGE_RULE", ruled.getMessage().getHeader(LAUNCHER_RULE));
        assertEquals(
                List.of("torchrun", "/app/t.py"),
                trainJob(ruled).getSpec().trainer().command());
    }

    @Test
    void trainJobBodiesInEveryFormAreMergedWithTheEndpointDefaults() {
        String uri = "kubeflow-trainer:train?runtime=torch-distributed&namespace=ml&env.FROM_ENDPOINT=1&cpu=2";
        String yaml = """
                apiVersion: trainer.kubeflow.org/v1alpha1
                kind: TrainJob
                metadata: {name: from-yaml, labels: {source: body}}
                spec:
                  trainer:
                    command: [python, /app/plain.py]
                    numNodes: 3
                    env: [{name: FROM_BODY, value: "2"}]
                """;
        TrainJob fromYaml = trainJob(send(uri, yaml, Map.of()));
        assertEquals("from-yaml", fromYaml.getMetadata().getName());
        // a TrainJob body's command is a finished container command: no launcher is put in front of it
        assertEquals(
                List.of("python", "/app/plain.py"), fromYaml.getSpec().trainer().command());
        assertEquals(3, fromYaml.getSpec().trainer().numNodes());
        assertEquals(
                List.of("FROM_ENDPOINT", "FROM_BODY"),
                fromYaml.getSpec().trainer().env().stream().map(EnvVar::getName).toList());
        assertEquals(
                new Quantity("2"),
                fromYaml.getSpec().trainer().resourcesPerNode().getLimits().get("cpu"));
        assertEquals("body", fromYaml.getMetadata().getLabels().get("source"));

        String json = "{\"apiVersion\":\"trainer.kubeflow.org/v1alpha1\",\"kind\":\"TrainJob\",\"metadata\":"
                + "{\"name\":\"from-json\"},\"spec\":{\"runtimeRef\":{\"name\":\"jax-distributed\"},"
                + "\"trainer\":{\"args\":[\"--x\"]}}}";
        TrainJob fromJson = trainJob(send(uri + "&pythonFile=/app/jax.py", json, Map.of()));
        assertEquals("jax-distributed", fromJson.getSpec().runtimeRef().name());
        assertEquals(
                List.of("python", "/app/jax.py"), fromJson.getSpec().trainer().command());
        assertEquals(List.of("--x"), fromJson.getSpec().trainer().args());

        Map<String, Object> map = new HashMap<>(Map.of(
                "kind",
                "TrainJob",
                "metadata",
                Map.of("name", "from-map"),
                "spec",
                Map.of("trainer", Map.of("command", List.of("torchrun", "/app/t.py")))));
        assertEquals(
                "from-map", trainJob(send(uri, map, Map.of())).getMetadata().getName());

        TrainJob typed = new TrainJob();
        typed.setMetadata(new ObjectMetaBuilder().withName("from-typed").build());
        typed.setSpec(new TrainJobSpec(
                null,
                new Trainer(null, List.of("torchrun", "/app/t.py"), null, null, 5, null, null),
                null,
                null,
                null,
                null,
                null));
        TrainJob fromTyped = trainJob(send(uri, typed, Map.of()));
        assertEquals(5, fromTyped.getSpec().trainer().numNodes());
        assertEquals("torch-distributed", fromTyped.getSpec().runtimeRef().name());
    }

    @Test
    void aStreamBodyIsStagedAsTheScript() {
        byte[] source = "print('from a stream, like an S3 object')\n".getBytes(StandardCharsets.UTF_8);
        TrainJob job = trainJob(send(
                "kubeflow-trainer:train?runtime=torch-distributed&namespace=ml&bodyType=script"
                        + "&scriptFileName=s3_job.py",
                new ByteArrayInputStream(source),
                Map.of()));
        assertEquals(
                List.of("torchrun", TrainJobFactory.SCRIPT_DIR + "/s3_job.py"),
                job.getSpec().trainer().command());
        assertEquals(
                new String(source, StandardCharsets.UTF_8), stagedScript(job).get("s3_job.py"));
    }

    @Test
    void theScriptOptionReadsAClasspathResource() {
        TrainJob job = trainJob(send(
                "kubeflow-trainer:train?runtime=xgboost-distributed&namespace=ml"
                        + "&script=classpath:scripts/train_xgb.py",
                null,
                Map.of()));
        assertEquals(List.of("python", SCRIPT_PATH), job.getSpec().trainer().command());
        assertTrue(stagedScript(job).get("train.py").contains("import xgboost"));
    }

    @Test
    void aBodysOwnRuntimePatchesAreKeptBesideTheScriptMount() {
        String yaml = """
                kind: TrainJob
                spec:
                  runtimePatches:
                    - manager: example.com/gpu-scheduler
                      trainingRuntimeSpec:
                        template:
                          spec:
                            replicatedJobs:
                              - name: node
                                template:
                                  spec:
                                    template:
                                      spec:
                                        nodeSelector: {gpu: a100}
                                        tolerations: [{key: gpu, operator: Exists, effect: NoSchedule}]
                """;
        TrainJob job = trainJob(send(
                "kubeflow-trainer:train?runtime=torch-distributed&namespace=ml" + "&script=print(1)", yaml, Map.of()));
        List<RuntimePatch> patches = job.getSpec().runtimePatches();
        assertEquals(
                List.of("example.com/gpu-scheduler", TrainJobMetadata.PATCH_MANAGER),
                patches.stream().map(RuntimePatch::manager).toList());
        var podSpec = patches.get(0)
                .trainingRuntimeSpec()
                .template()
                .spec()
                .replicatedJobs()
                .get(0)
                .template()
                .spec()
                .template()
                .spec();
        assertEquals(Map.of("gpu", "a100"), podSpec.nodeSelector());
        assertEquals("gpu", podSpec.tolerations().get(0).getKey());
    }

    @Test
    void anInlineScriptTravelsInTheTrainJobAsAReadOnlyFileOfItsPods() {
        TrainJob job = trainJob(send(
                "kubeflow-trainer:train?runtime=deepspeed-distributed&namespace=inline" + "&script=print(1)",
                null,
                Map.of()));
        assertEquals(
                List.of(),
                api.client().configMaps().inNamespace("inline").list().getItems());
        // MPI: the launcher runs mpirun, the nodes run the file, so both get it
        List<RuntimePatch.ReplicatedJobPatch> jobs = job.getSpec()
                .runtimePatches()
                .get(0)
                .trainingRuntimeSpec()
                .template()
                .spec()
                .replicatedJobs();
        assertEquals(
                List.of("node", "launcher"),
                jobs.stream().map(RuntimePatch.ReplicatedJobPatch::name).toList());
        for (RuntimePatch.ReplicatedJobPatch replicatedJob : jobs) {
            var pod = replicatedJob.template().spec().template().spec();
            var mount = pod.containers().get(0).volumeMounts().get(0);
            assertEquals("node", pod.containers().get(0).name());
            assertEquals(TrainJobFactory.SCRIPT_DIR, mount.getMountPath());
            assertEquals(true, mount.getReadOnly());
            assertEquals(mount.getName(), pod.volumes().get(0).getName());
            assertEquals(0444, pod.volumes().get(0).getDownwardAPI().getDefaultMode());
        }
        assertEquals(Map.of("train.py", "print(1)"), stagedScript(job));
    }

    @Test
    void maxInFlightRejectsBeyondTheCapWithoutWriting() {
        String uri = "kubeflow-trainer:train?runtime=torch-distributed&namespace=capped&pythonFile=/a.py"
                + "&maxInFlight=2&inFlightGroup=nightly";
        Map<String, Object> long_ =
                Map.of(ANNOTATIONS, Map.of(TrainJobControllerEmulation.RUN_MILLIS_ANNOTATION, "60000"));
        assertNull(send(uri, null, long_).getException());
        assertNull(send(uri, null, long_).getException());
        Exchange third = send(uri, null, long_);
        assertTrue(third.getException() instanceof TrainJobCapacityException, String.valueOf(third.getException()));
        assertTrue(
                third.getException().getMessage().contains("2 TrainJobs of group 'nightly' are in flight"),
                third.getException().getMessage());
        assertEquals(List.of(), api.writesSinceMark());
        // another group is not counted
        assertNull(send(uri.replace("nightly", "adhoc"), null, long_).getException());
    }

    @Test
    void skipIfRunningReturnsTheRunningJobForTheSameRunKey() throws Exception {
        String uri = "kubeflow-trainer:train?runtime=torch-distributed&namespace=skips&pythonFile=/a.py"
                + "&skipIfRunning=true&runKey=${header.model}";
        Map<String, Object> resnet = Map.of(
                "model", "resnet", ANNOTATIONS, Map.of(TrainJobControllerEmulation.RUN_MILLIS_ANNOTATION, "1500"));
        Exchange first = send(uri, null, resnet);
        Exchange second = send(uri, null, resnet);
        assertEquals(false, first.getMessage().getHeader(SKIPPED));
        assertEquals(true, second.getMessage().getHeader(SKIPPED));
        assertEquals(first.getMessage().getHeader(JOB_NAME), second.getMessage().getHeader(JOB_NAME));
        assertEquals(List.of(), api.writesSinceMark());
        Exchange otherModel = send(uri, null, Map.of("model", "bert"));
        assertEquals(false, otherModel.getMessage().getHeader(SKIPPED));

        template.send("kubeflow-trainer:wait", first);
        Exchange afterwards = send(uri, null, resnet);
        assertEquals(false, afterwards.getMessage().getHeader(SKIPPED), "a finished job does not block the next");
        assertTrue(!afterwards
                .getMessage()
                .getHeader(JOB_NAME)
                .equals(first.getMessage().getHeader(JOB_NAME)));
    }

    @Test
    void aListHeaderGivenAsAnArrayOrASetIsTakenItemByItem() {
        TrainJob job = trainJob(send(
                "kubeflow-trainer:train?runtime=torch-distributed&namespace=ml",
                null,
                Map.of(
                        SCRIPT,
                        "print(1)",
                        PACKAGES,
                        new String[] {"numpy==2.0", "pandas"},
                        PIP_INDEX_URLS,
                        Set.of("https://pypi.example/simple"))));
        String spec = Serialization.asJson(job.getSpec());
        assertTrue(spec.contains("numpy==2.0") && spec.contains("pandas"), spec);
        assertTrue(spec.contains("https://pypi.example/simple"), spec);
        assertFalse(spec.contains("[Ljava") || spec.contains("[https"), spec);
    }
}
