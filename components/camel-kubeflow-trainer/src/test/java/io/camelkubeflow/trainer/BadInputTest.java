package io.camelkubeflow.trainer;

import static io.camelkubeflow.trainer.KubeflowTrainerConstants.*;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.camelkubeflow.trainer.job.TrainRequestValidator;
import io.camelkubeflow.trainer.support.InvalidOptionException;
import io.camelkubeflow.trainer.testing.ReliabilityFigures;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.apache.camel.FailedToCreateProducerException;
import org.apache.camel.ResolveEndpointFailedException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Each malformed request fails with an exception naming the field, and nothing is written to the cluster. */
class BadInputTest extends TrainerRouteTestSupport {
    static final AtomicInteger CASES = new AtomicInteger();
    static final AtomicInteger NAMED = new AtomicInteger();
    static final AtomicInteger WRITES = new AtomicInteger();
    static final String TORCH = "kubeflow-trainer:train?runtime=torch-distributed&namespace=ml";
    static final String TORCH_FILE = TORCH + "&pythonFile=/app/t.py";
    static final String TORCHTUNE = "kubeflow-trainer:train?runtime=torchtune-llama3.2-1b&namespace=ml";
    static final String WHOLE_NUMBER = "is not a whole number";

    static Stream<Arguments> badRequests() {
        return Stream.of(
                bad("no runtime", "kubeflow-trainer:train?pythonFile=/app/t.py", null, Map.of(), "runtime"),
                bad(
                        "unknown runtime",
                        "kubeflow-trainer:train?runtime=nope&pythonFile=/a.py",
                        null,
                        Map.of(),
                        "runtime"),
                bad(
                        "runtime name",
                        "kubeflow-trainer:train?runtime=Torch_Distributed&pythonFile=/a.py",
                        null,
                        Map.of(),
                        "runtime",
                        "is not a Kubernetes object name"),
                bad("runtime kind", TORCH_FILE + "&runtimeKind=Runtime", null, Map.of(), "runtimeKind"),
                // written as the catalog, a header, a message and the schema write it: no other spelling is taken
                bad(
                        "runtime kind in another case",
                        TORCH_FILE + "&runtimeKind=clustertrainingruntime",
                        null,
                        Map.of(),
                        "runtimeKind",
                        "'clustertrainingruntime' is not one of [ClusterTrainingRuntime, TrainingRuntime]"),
                bad(
                        "launcher in another case",
                        TORCH_FILE + "&launcher=TORCHRUN",
                        null,
                        Map.of(),
                        "launcher",
                        "'TORCHRUN' is not one of [builtin, torchrun, mpirun, python]"),
                bad(
                        "namespaced runtime missing",
                        TORCH_FILE + "&runtimeKind=TrainingRuntime",
                        null,
                        Map.of(),
                        "runtime"),
                bad("uppercase job name", TORCH_FILE + "&jobName=Nightly", null, Map.of(), "jobName"),
                bad("job name starting with digit", TORCH_FILE, null, Map.of(JOB_NAME, "1job"), "jobName"),
                bad("64-char job name", TORCH_FILE, null, Map.of(JOB_NAME, "j" + "x".repeat(63)), "jobName"),
                bad(
                        "job name prefix",
                        TORCH_FILE + "&jobNamePrefix=" + "p".repeat(51),
                        null,
                        Map.of(),
                        "jobNamePrefix"),
                bad("namespace", TORCH_FILE, null, Map.of(NAMESPACE, "ML_Team"), "namespace"),
                bad("cpu words", TORCH_FILE + "&cpu=2 cores", null, Map.of(), "cpu"),
                bad("negative memory", TORCH_FILE, null, Map.of(MEMORY, "-1Gi"), "memory"),
                bad("gpu", TORCH_FILE, null, Map.of(GPU, "one"), "gpu"),
                bad(
                        "resource name",
                        TORCH_FILE,
                        null,
                        Map.of(RESOURCES, Map.of("bad name", "1")),
                        "resources.bad name"),
                bad("both payloads", TORCH_FILE + "&command=python x.py", null, Map.of(), "command/pythonFile/script"),
                bad("no payload", TORCH, null, Map.of(), "command/pythonFile/script"),
                bad("empty command", TORCH, null, Map.of(COMMAND, List.of()), "command"),
                bad("unclosed quote", TORCH, null, Map.of(COMMAND, "python 'x.py"), COMMAND),
                bad("empty script body", TORCH + "&bodyType=script", "  ", Map.of(), "body"),
                bad(
                        "script too large",
                        TORCH + "&bodyType=script",
                        "#".repeat(TrainRequestValidator.MAX_SCRIPT_BYTES + 1),
                        Map.of(),
                        "script"),
                bad(
                        "script file name",
                        TORCH + "&bodyType=script&scriptFileName=../x.py",
                        "print(1)",
                        Map.of(),
                        "scriptFileName"),
                bad(
                        "script on torchtune",
                        "kubeflow-trainer:train?runtime=torchtune-llama3.2-1b&bodyType=script",
                        "print(1)",
                        Map.of(),
                        "script"),
                bad("env name", TORCH_FILE, null, Map.of(ENV, Map.of("1BAD", "x")), "env.1BAD"),
                bad("reserved torch env", TORCH_FILE + "&env.PET_NNODES=2", null, Map.of(), "env.PET_NNODES"),
                bad("reserved mpi env", TORCH_FILE, null, Map.of(ENV, Map.of("OMPI_MCA_x", "1")), "env.OMPI_MCA_x"),
                bad(
                        "malformed secret ref",
                        TORCH_FILE + "&env.TOKEN=secretKeyRef:only-name",
                        null,
                        Map.of(),
                        "env.TOKEN"),
                bad("label value", TORCH_FILE + "&labels.team=" + "v".repeat(64), null, Map.of(), "labels.team"),
                bad("label value chars", TORCH_FILE, null, Map.of(LABELS, Map.of("team", "a b")), "labels.team"),
                bad("label key", TORCH_FILE, null, Map.of(LABELS, Map.of("-bad", "x")), "labels.-bad"),
                bad(
                        "reserved label: an in-flight group",
                        TORCH_FILE + "&labels.camelkubeflow.io/group=nightly",
                        null,
                        Map.of(),
                        "labels.camelkubeflow.io/group"),
                bad(
                        "reserved label: managed-by",
                        TORCH_FILE,
                        null,
                        Map.of(LABELS, Map.of("app.kubernetes.io/managed-by", "camel-kubeflow-trainer")),
                        "labels.app.kubernetes.io/managed-by"),
                bad(
                        "reserved annotation: another key's hash",
                        TORCH_FILE,
                        null,
                        Map.of(ANNOTATIONS, Map.of("camelkubeflow.io/idempotency-key-sha256", "00")),
                        "annotations.camelkubeflow.io/idempotency-key-sha256"),
                bad("annotation key", TORCH_FILE, null, Map.of(ANNOTATIONS, Map.of("a/b/c", "x")), "annotations.a/b/c"),
                bad("zero nodes", TORCH_FILE + "&numNodes=0", null, Map.of(), "numNodes"),
                bad("nodes header type", TORCH_FILE, null, Map.of(NUM_NODES, "two"), NUM_NODES),
                // URI options are read as strictly as headers: never as a duration, never wrapped, never trimmed
                bad(
                        "nodes that wrap to 2",
                        TORCH_FILE + "&numNodes=4294967298",
                        null,
                        Map.of(),
                        "numNodes",
                        WHOLE_NUMBER),
                bad(
                        "nodes that wrap to 1",
                        TORCH_FILE + "&numNodes=4294967297",
                        null,
                        Map.of(),
                        "numNodes",
                        WHOLE_NUMBER),
                bad("nodes as a duration", TORCH_FILE + "&numNodes=2s", null, Map.of(), "numNodes", WHOLE_NUMBER),
                bad(
                        "procs as a duration",
                        TORCH_FILE + "&numProcPerNode=1m",
                        null,
                        Map.of(),
                        "numProcPerNode",
                        WHOLE_NUMBER),
                bad(
                        "deadline as a duration",
                        TORCH_FILE + "&activeDeadlineSeconds=1h",
                        null,
                        Map.of(),
                        "activeDeadlineSeconds",
                        WHOLE_NUMBER),
                bad(
                        "deadline past Long.MAX",
                        TORCH_FILE + "&activeDeadlineSeconds=9223372036854775808",
                        null,
                        Map.of(),
                        "activeDeadlineSeconds",
                        WHOLE_NUMBER),
                bad("nodes as a word", TORCH_FILE + "&numNodes=x", null, Map.of(), "numNodes", "'x' is not"),
                bad("nodes with a plus", TORCH_FILE + "&numNodes=%2B2", null, Map.of(), "numNodes", WHOLE_NUMBER),
                bad("nodes in hex", TORCH_FILE + "&numNodes=0x10", null, Map.of(), "numNodes", WHOLE_NUMBER),
                bad("nodes after a space", TORCH_FILE + "&numNodes=%202", null, Map.of(), "numNodes", WHOLE_NUMBER),
                bad("nodes as a fraction", TORCH_FILE + "&numNodes=2.0", null, Map.of(), "numNodes", WHOLE_NUMBER),
                bad("nodes with an exponent", TORCH_FILE + "&numNodes=1e3", null, Map.of(), "numNodes", WHOLE_NUMBER),
                bad("nodes in other digits", TORCH_FILE + "&numNodes=\uFF12", null, Map.of(), "numNodes", WHOLE_NUMBER),
                bad(
                        "in-flight as a duration",
                        TORCH_FILE + "&maxInFlight=1s",
                        null,
                        Map.of(),
                        "maxInFlight",
                        WHOLE_NUMBER),
                bad(
                        "tail lines as a duration",
                        "kubeflow-trainer:logs?namespace=ml&tailLines=2s",
                        null,
                        Map.of(JOB_NAME, "some-job"),
                        "tailLines",
                        WHOLE_NUMBER),
                bad(
                        "log bytes that wrap",
                        "kubeflow-trainer:logs?namespace=ml&maxLogBytes=18446744073709551617",
                        null,
                        Map.of(JOB_NAME, "some-job"),
                        "maxLogBytes",
                        WHOLE_NUMBER),
                bad(
                        "nodes header in other digits",
                        TORCH_FILE,
                        null,
                        Map.of(NUM_NODES, "\uFF12"),
                        NUM_NODES,
                        WHOLE_NUMBER),
                bad("nodes header with a plus", TORCH_FILE, null, Map.of(NUM_NODES, "+2"), NUM_NODES, WHOLE_NUMBER),
                bad("procs per node", TORCH_FILE, null, Map.of(NUM_PROC_PER_NODE, -1), "numProcPerNode"),
                bad("suspend header type", TORCH_FILE, null, Map.of(SUSPEND, List.of()), SUSPEND),
                bad(
                        "dataset uri",
                        "kubeflow-trainer:train?runtime=torchtune-llama3.2-1b&namespace=ml" + "&datasetUri=bucket/data",
                        null,
                        Map.of(),
                        "datasetUri",
                        "is not a storage URI"),
                bad(
                        "dataset on runtime without initializer",
                        TORCH_FILE + "&datasetUri=s3://b/d",
                        null,
                        Map.of(),
                        "datasetUri"),
                bad(
                        "model secret",
                        "kubeflow-trainer:train?runtime=torchtune-llama3.2-1b&modelUri=hf://m"
                                + "&modelSecret=Bad_Secret",
                        null,
                        Map.of(ARGS, "epochs=1"),
                        "modelSecret"),
                bad("deadline", TORCH_FILE + "&activeDeadlineSeconds=0", null, Map.of(), "activeDeadlineSeconds"),
                bad("managedBy", TORCH_FILE, null, Map.of(MANAGED_BY, "me"), "managedBy"),
                bad("queue", TORCH_FILE, null, Map.of(QUEUE, "Team_A"), "queue", "is not a Kueue object name"),
                bad("priority class", TORCH_FILE + "&priorityClass=" + "p".repeat(64), null, Map.of(), "priorityClass"),
                bad(
                        "Kueue's label",
                        TORCH_FILE,
                        null,
                        Map.of(LABELS, Map.of("kueue.x-k8s.io/queue-name", "other")),
                        "labels.kueue.x-k8s.io/queue-name",
                        "is Kueue's"),
                bad(
                        "Kueue's manager on a body's patch",
                        "kubeflow-trainer:train?namespace=ml",
                        kueuePatch("\"manager\": \"kueue.x-k8s.io/manager\""),
                        Map.of(),
                        "runtimePatches.manager",
                        "is Kueue's"),
                bad(
                        "Kueue's annotation on a body's pod template",
                        "kubeflow-trainer:train?namespace=ml",
                        kueuePatch(
                                "\"manager\": \"example.com/team\", \"trainingRuntimeSpec\": {\"template\": {\"spec\":"
                                        + " {\"replicatedJobs\": [{\"name\": \"node\", \"template\": {\"spec\": {\"template\":"
                                        + " {\"metadata\": {\"annotations\": {\"kueue.x-k8s.io/podset-required-topology\":"
                                        + " \"rack\"}}}}}}]}}}"),
                        Map.of(),
                        "runtimePatches.metadata.kueue.x-k8s.io/podset-required-topology",
                        "is Kueue's"),
                bad(
                        "Kueue's annotation",
                        TORCH_FILE,
                        null,
                        Map.of(ANNOTATIONS, Map.of("provreq.kueue.x-k8s.io/maxRunDurationSeconds", "1")),
                        "annotations.provreq.kueue.x-k8s.io/maxRunDurationSeconds",
                        "is Kueue's"),
                bad("launcher name", TORCH_FILE, null, Map.of(LAUNCHER, "deepspeed"), LAUNCHER),
                bad("mpirun without MPI", TORCH_FILE + "&launcher=mpirun", null, Map.of(), "launcher"),
                bad("image rule", TORCH_FILE, null, Map.of(IMAGE_RULES, "pytorch/*"), IMAGE_RULES),
                bad("image with space", TORCH_FILE, null, Map.of(IMAGE, "my image"), "image"),
                bad(
                        "pip option as package",
                        TORCH_FILE + "&packages=--index-url=https://evil.example",
                        null,
                        Map.of(),
                        "packages"),
                bad(
                        "pip index scheme",
                        TORCH_FILE + "&packages=numpy&pipIndexUrls=ftp://mirror/simple",
                        null,
                        Map.of(),
                        "pipIndexUrls"),
                bad("too many args", TORCH_FILE, null, Map.of(ARGS, Collections.nCopies(129, "a")), "args"),
                bad(
                        "malformed JSON body",
                        TORCH_FILE + "&bodyType=trainJob",
                        "{\"kind\": \"TrainJob\", ",
                        Map.of(),
                        "body"),
                bad(
                        "malformed YAML body",
                        TORCH_FILE + "&bodyType=trainJob",
                        "kind: TrainJob\nspec: {trainer: {a: b\n",
                        Map.of(),
                        "body"),
                bad("spec of the wrong shape", TORCH_FILE, "kind: TrainJob\nspec: [a, b]", Map.of(), "body.spec"),
                bad(
                        "removed spec.labels",
                        TORCH_FILE,
                        "kind: TrainJob\nspec:\n  labels: {a: b}\n",
                        Map.of(),
                        "body.spec.labels"),
                bad(
                        "unknown trainer field",
                        TORCH_FILE,
                        Map.of("kind", "TrainJob", "spec", Map.of("trainer", Map.of("gpus", 2))),
                        Map.of(),
                        "body.spec.trainer.gpus"),
                bad(
                        "body numNodes type",
                        TORCH_FILE,
                        "kind: TrainJob\nspec:\n  trainer: {numNodes: many}\n",
                        Map.of(),
                        "body.spec.trainer.numNodes"),
                bad("body type option", TORCH_FILE + "&bodyType=xml", "x", Map.of(), "bodyType"),
                bad("map header type", TORCH_FILE, null, Map.of(ENV, "A=1"), ENV),
                bad(
                        "skipIfRunning without runKey",
                        TORCH_FILE + "&skipIfRunning=true",
                        null,
                        Map.of(),
                        "skipIfRunning"),
                bad("maxInFlight zero", TORCH_FILE + "&maxInFlight=0", null, Map.of(), "maxInFlight"),
                bad(
                        "inFlightGroup",
                        TORCH_FILE + "&maxInFlight=1&inFlightGroup=night shift",
                        null,
                        Map.of(),
                        "inFlightGroup"),
                bad("image entrypoint without an image", TORCH + "&imageEntrypoint=true", null, Map.of(), "image"),
                bad(
                        "image entrypoint and a command",
                        TORCH + "&imageEntrypoint=true&image=team/img:1&command=python x.py",
                        null,
                        Map.of(),
                        "imageEntrypoint/command"),
                // both in one layer: a header's payload replaces the endpoint's instead
                bad(
                        "image entrypoint and a script",
                        TORCH + "&image=team/img:1",
                        null,
                        Map.of(IMAGE_ENTRYPOINT, true, SCRIPT, "print(1)"),
                        "imageEntrypoint/script"),
                bad(
                        "image entrypoint with packages",
                        TORCH + "&imageEntrypoint=true&image=team/img:1&packages=numpy",
                        null,
                        Map.of(),
                        "packages"),
                bad(
                        "image entrypoint in a workspace",
                        TORCH + "&imageEntrypoint=true&image=team/img:1",
                        null,
                        Map.of(WORKSPACE, "/tmp/project"),
                        "imageEntrypoint/workspace"),
                bad(
                        "image entrypoint on torchtune",
                        TORCHTUNE + "&imageEntrypoint=true&image=team/img:1",
                        null,
                        Map.of(),
                        "imageEntrypoint",
                        "builtin trainer"),
                bad(
                        "torchtune config on torch",
                        TORCH + "&torchtuneEpochs=1",
                        null,
                        Map.of(),
                        "torchtuneEpochs",
                        "framework=torchtune"),
                bad(
                        "torchtune config under a forced torchrun",
                        TORCHTUNE + "&launcher=torchrun",
                        null,
                        Map.of(TORCHTUNE_LORA_RANK, 8),
                        "torchtuneLoraRank",
                        "launcher forced to torchrun"),
                bad(
                        "torchtune config and a command",
                        TORCHTUNE + "&torchtuneEpochs=1&command=tune run x",
                        null,
                        Map.of(),
                        "torchtuneEpochs/command"),
                bad(
                        "torchtune config and a python file",
                        TORCHTUNE + "&pythonFile=/a.py",
                        null,
                        Map.of(TORCHTUNE_DTYPE, "bf16"),
                        "torchtuneDtype/pythonFile"),
                bad(
                        "torchtune config and the image entrypoint",
                        TORCHTUNE + "&torchtuneEpochs=1&imageEntrypoint=true" + "&image=team/img:1",
                        null,
                        Map.of(),
                        "torchtuneEpochs/imageEntrypoint"),
                bad("torchtune dtype", TORCHTUNE, null, Map.of(TORCHTUNE_DTYPE, "fp16"), "torchtuneDtype"),
                bad("torchtune loss", TORCHTUNE + "&torchtuneLoss=CrossEntropyLoss", null, Map.of(), "torchtuneLoss"),
                bad("torchtune epochs zero", TORCHTUNE + "&torchtuneEpochs=0", null, Map.of(), "torchtuneEpochs"),
                bad(
                        "torchtune batch size as a fraction",
                        TORCHTUNE + "&torchtuneBatchSize=2.5",
                        null,
                        Map.of(),
                        "torchtuneBatchSize",
                        WHOLE_NUMBER),
                bad(
                        "torchtune LoRA rank header",
                        TORCHTUNE,
                        null,
                        Map.of(TORCHTUNE_LORA_RANK, "eight"),
                        TORCHTUNE_LORA_RANK,
                        WHOLE_NUMBER),
                bad(
                        "torchtune LoRA dropout above 1",
                        TORCHTUNE,
                        null,
                        Map.of(TORCHTUNE_LORA_DROPOUT, 1.5),
                        "torchtuneLoraDropout"),
                bad(
                        "torchtune LoRA dropout as a word",
                        TORCHTUNE + "&torchtuneLoraDropout=NaN",
                        null,
                        Map.of(),
                        "torchtuneLoraDropout"),
                bad(
                        "torchtune LoRA dropout header as a word",
                        TORCHTUNE,
                        null,
                        Map.of(TORCHTUNE_LORA_DROPOUT, "half"),
                        TORCHTUNE_LORA_DROPOUT,
                        "is not a number"),
                bad(
                        "torchtune attention module",
                        TORCHTUNE + "&torchtuneLoraAttnModules=q_proj,gate_proj",
                        null,
                        Map.of(),
                        "torchtuneLoraAttnModules"),
                bad(
                        "torchtune attention modules empty",
                        TORCHTUNE,
                        null,
                        Map.of(TORCHTUNE_LORA_ATTN_MODULES, List.of()),
                        "torchtuneLoraAttnModules"),
                bad(
                        "torchtune dataset source",
                        TORCHTUNE + "&torchtuneDatasetSource=yaml",
                        null,
                        Map.of(),
                        "torchtuneDatasetSource"),
                bad(
                        "torchtune column map key",
                        TORCHTUNE,
                        null,
                        Map.of(TORCHTUNE_COLUMN_MAP, Map.of("instruction", "q")),
                        "torchtuneColumnMap.instruction"),
                bad(
                        "torchtune column map quote",
                        TORCHTUNE,
                        null,
                        Map.of(TORCHTUNE_COLUMN_MAP, Map.of("input", "q', 'x")),
                        "torchtuneColumnMap.input"),
                bad(
                        "torchtune system prompt on two lines",
                        TORCHTUNE,
                        null,
                        Map.of(TORCHTUNE_NEW_SYSTEM_PROMPT, "be brief\nepochs=99"),
                        "torchtuneNewSystemPrompt"),
                bad(
                        "torchtune args with a runtime path",
                        TORCHTUNE + "&torchtuneEpochs=1",
                        null,
                        Map.of(ARGS, List.of("epochs=2", "output_dir=/tmp/x")),
                        "args",
                        "args[1]"),
                bad(
                        "torchtune LoRA on two nodes",
                        TORCHTUNE + "&torchtuneLoraRank=8&numNodes=2",
                        null,
                        Map.of(),
                        "numNodes",
                        "LoRA"),
                bad(
                        "torchtune QLoRA on two GPUs",
                        TORCHTUNE + "&torchtuneQuantizeBase=true",
                        null,
                        Map.of(),
                        "torchtuneQuantizeBase",
                        "single device"),
                bad(
                        "torchtune QLoRA on Qwen",
                        "kubeflow-trainer:train?runtime=torchtune-qwen2.5-1.5b&namespace=ml&gpu=1",
                        null,
                        Map.of(TORCHTUNE_QUANTIZE_BASE, true),
                        "torchtuneQuantizeBase",
                        "qwen2_5/1.5B"),
                bad(
                        "torchtune 1B on two nodes",
                        TORCHTUNE + "&torchtuneEpochs=1&numNodes=2",
                        null,
                        Map.of(),
                        "numNodes",
                        "llama3_3/70B"),
                bad(
                        "idempotency expression yields nothing",
                        TORCH_FILE + "&idempotencyKey=${header.missing}",
                        null,
                        Map.of(),
                        "idempotencyKey"),
                bad(
                        "label selector option",
                        "kubeflow-trainer:list?namespace=bad&labelSelector=team>1",
                        null,
                        Map.of(),
                        "labelSelector"),
                bad(
                        "label selector header",
                        "kubeflow-trainer:list?namespace=bad",
                        null,
                        Map.of(LABEL_SELECTOR, "tier in ()"),
                        LABEL_SELECTOR,
                        "has no values"),
                bad(
                        "delete propagation header",
                        "kubeflow-trainer:delete?namespace=bad",
                        null,
                        Map.of(JOB_NAME, "some-job", DELETE_PROPAGATION, "Sideways"),
                        DELETE_PROPAGATION),
                bad(
                        "wait timeout",
                        "kubeflow-trainer:wait",
                        null,
                        Map.of(JOB_NAME, "some-job", WAIT_TIMEOUT, "soon"),
                        WAIT_TIMEOUT,
                        "is not a duration"),
                bad(
                        "a null item in a list header",
                        TORCH_FILE,
                        null,
                        Map.of(PACKAGES, Arrays.asList("numpy", null)),
                        PACKAGES,
                        "an item is null"),
                bad(
                        "a null item in an array header of words",
                        TORCH_FILE,
                        null,
                        Map.of(ARGS, new String[] {"--lr", null}),
                        ARGS,
                        "an item is null"),
                bad(
                        "queue timeout",
                        "kubeflow-trainer:wait",
                        null,
                        Map.of(JOB_NAME, "some-job", QUEUE_TIMEOUT, "a while"),
                        QUEUE_TIMEOUT,
                        "is not a duration"));
    }

    /** A TrainJob body with one runtime patch of the given fields. */
    private static String kueuePatch(String patchFields) {
        return "{\"apiVersion\": \"trainer.kubeflow.org/v1alpha1\", \"kind\": \"TrainJob\", \"spec\": {\"runtimeRef\":"
                + " {\"name\": \"torch-distributed\"}, \"trainer\": {\"command\": [\"python\", \"/a.py\"]},"
                + " \"runtimePatches\": [{" + patchFields + "}]}}";
    }

    static Arguments bad(String name, String uri, Object body, Map<String, Object> headers, String field) {
        return bad(name, uri, body, headers, field, null);
    }

    /** @param says what the message must say, where a later check would refuse the same field for another reason */
    static Arguments bad(String name, String uri, Object body, Map<String, Object> headers, String field, String says) {
        return Arguments.of(name, uri, body, headers, field, says);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("badRequests")
    void failsNamingTheFieldBeforeAnyWrite(
            String name, String uri, Object body, Map<String, Object> headers, String field, String says) {
        Throwable failure;
        try {
            failure = send(uri, body, headers).getException();
        } catch (FailedToCreateProducerException | ResolveEndpointFailedException e) {
            // a malformed endpoint option fails when the endpoint is made (a value none of an enum option's) or its
            // producer starts, before any message
            failure = e.getCause();
        }
        int writes = api.writesSinceMark().size();
        CASES.incrementAndGet();
        WRITES.addAndGet(writes);
        if (failure instanceof InvalidOptionException named && field.equals(named.getField())) {
            NAMED.incrementAndGet();
        }
        InvalidOptionException error =
                assertInstanceOf(InvalidOptionException.class, failure, "expected an InvalidOptionException");
        assertEquals(field, error.getField(), error.getMessage());
        assertTrue(error.getMessage().contains("'" + field + "'"), error.getMessage());
        if (says != null) {
            assertTrue(error.getMessage().contains(says), error.getMessage());
        }
        assertEquals(0, writes, "bad input must not write anything: " + api.writesSinceMark());
    }

    /** A refusal quotes what it refuses with its line breaks and escapes visible, so it cannot forge a log line. */
    @Test
    void aRefusedHeaderValueIsQuotedWithoutItsControlCharacters() {
        String forged = "nightly\r\n2026-01-01 12:00:00,000 INFO  TrainJob admin/approved created\u001b[2K";
        for (Map<String, Object> headers : List.<Map<String, Object>>of(
                Map.of(JOB_NAME, forged),
                Map.of(LABELS, Map.of("team", forged)),
                Map.of(LABELS, Map.of(forged, "x")),
                Map.of(NUM_NODES, forged),
                Map.of(ENV, Map.of("A\u2028B", "1")))) {
            Exception failure = send(TORCH_FILE, null, headers).getException();
            InvalidOptionException refused = assertInstanceOf(InvalidOptionException.class, failure);
            assertTrue(
                    refused.getMessage().codePoints().noneMatch(c -> Character.isISOControl(c) || c == 0x2028),
                    refused.getMessage());
            assertTrue(
                    refused.getMessage().contains("\\r\\n")
                            || refused.getMessage().contains("\\u2028"),
                    refused.getMessage());
            assertEquals(0, api.writesSinceMark().size());
        }
    }

    /** The options the docs give as durations keep their units; whole numbers in plain digits are taken as written. */
    @Test
    void durationsKeepTheirUnitsAndNumbersTheirDigits() {
        KubeflowTrainerConfiguration options = camel.getEndpoint(
                        "kubeflow-trainer:wait?waitTimeout=6h&queueTimeout=15m"
                                + "&apiRetryBackoff=1s&logStartTimeout=2m&numNodes=0004&activeDeadlineSeconds=-1"
                                + "&maxLogBytes=9223372036854775807&tailLines=-2147483648",
                        KubeflowTrainerEndpoint.class)
                .getConfiguration();
        assertEquals(21_600_000L, options.getWaitTimeout());
        assertEquals(900_000L, options.getQueueTimeout());
        assertEquals(1_000L, options.getApiRetryBackoff());
        assertEquals(120_000L, options.getLogStartTimeout());
        assertEquals(4, options.getNumNodes());
        assertEquals(-1L, options.getActiveDeadlineSeconds());
        assertEquals(Long.MAX_VALUE, options.getMaxLogBytes());
        assertEquals(Integer.MIN_VALUE, options.getTailLines());
    }

    @AfterAll
    static void recordFigures() {
        ReliabilityFigures.record(
                "bad input catalogue",
                CASES + " malformed inputs, " + NAMED + " failed naming their field, " + WRITES
                        + " writes to the API server",
                CASES.get() >= 40 && NAMED.get() == CASES.get() && WRITES.get() == 0);
    }
}
