package io.camelkubeflow.trainer;

import static io.camelkubeflow.trainer.KubeflowTrainerConstants.*;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.camelkubeflow.trainer.access.AccessDeniedException;
import io.camelkubeflow.trainer.access.Caller;
import io.camelkubeflow.trainer.api.JobSetLabels;
import io.camelkubeflow.trainer.api.StorageInitializer;
import io.camelkubeflow.trainer.api.TrainJob;
import io.camelkubeflow.trainer.job.PolicyViolationException;
import io.camelkubeflow.trainer.job.RequestPolicy;
import io.camelkubeflow.trainer.sandbox.TrainerSandbox;
import io.camelkubeflow.trainer.support.InvalidOptionException;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvFromSourceBuilder;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.EnvVarBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.rbac.PolicyRuleBuilder;
import io.fabric8.kubernetes.api.model.rbac.RoleBindingBuilder;
import io.fabric8.kubernetes.api.model.rbac.RoleBuilder;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.apache.camel.Exchange;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Typed initializers (the SDK's HuggingFace/S3/DataCache initializers): the TrainJob's spec.initializer as the
 * Trainer's initializer images read it, the initializer pods the sandbox renders from it (as the Trainer's JobSet
 * builder does), and the refusals (a plain credential, a setting of another kind, a runtime without the step) with
 * nothing written; every Secret named is reviewed as the caller and held to the request policy.
 */
class InitializersTest extends TrainerRouteTestSupport {
    private static final String TORCHTUNE = "kubeflow-trainer:train?runtime=torchtune-llama3.2-1b&namespace=init";

    @BeforeAll
    static void rightsAndPolicy() throws IOException {
        // not among the release's default runtimes: installed as a user would, from its manifest
        try (var runtime = TrainerSandbox.class.getResourceAsStream(TrainerSandbox.DATA_CACHE_RUNTIME)) {
            api.sandbox().createRuntime(new String(runtime.readAllBytes(), StandardCharsets.UTF_8));
        }
        api.client()
                .resource(new RoleBuilder()
                        .withNewMetadata()
                        .withName("trainer")
                        .withNamespace("init")
                        .endMetadata()
                        .withRules(
                                new PolicyRuleBuilder()
                                        .withApiGroups("trainer.kubeflow.org")
                                        .withResources("trainjobs")
                                        .withVerbs("create")
                                        .build(),
                                new PolicyRuleBuilder()
                                        .withApiGroups("")
                                        .withResources("secrets")
                                        .withVerbs("get")
                                        .withResourceNames("hf-token")
                                        .build())
                        .build())
                .create();
        api.client()
                .resource(new RoleBindingBuilder()
                        .withNewMetadata()
                        .withName("alice")
                        .withNamespace("init")
                        .endMetadata()
                        .addNewSubject()
                        .withKind("User")
                        .withName("alice")
                        .endSubject()
                        .withNewRoleRef()
                        .withApiGroup("rbac.authorization.k8s.io")
                        .withKind("Role")
                        .withName("trainer")
                        .endRoleRef()
                        .build())
                .create();
        camel.getRegistry()
                .bind(
                        "initPolicy",
                        RequestPolicy.safeDefaults()
                                .withNamespaces(Set.of("init"))
                                .withRuntimes(Set.of("torchtune-llama3.2-1b"))
                                .withSecrets(Set.of("hf-token")));
    }

    @Test
    void typedSettingsReachTheTrainJobAndTheInitializerPodsAsTheTrainerRendersThem() throws Exception {
        Exchange exchange = send(
                TORCHTUNE + "&jobName=typed-init&datasetUri=hf://tatsu-lab/alpaca"
                        + "&datasetIgnorePatterns=*.md,*.png&datasetAccessToken=secretKeyRef:hf-token/token"
                        + "&modelUri=s3://models/llama&modelEndpoint=http://minio.storage:9000&modelRegion=eu-central-1"
                        + "&modelRoleArn=arn:aws:iam::123456789012:role/train&modelSecret=s3-creds"
                        + "&modelAccessKeyId=secretKeyRef:s3-keys/id&modelSecretAccessKey=secretKeyRef:s3-keys/secret",
                null,
                Map.of(ARGS, "epochs=1"));
        assertNull(exchange.getException());
        TrainJob job = stored("init", "typed-init");
        StorageInitializer dataset = job.getSpec().initializer().dataset();
        assertEquals("hf://tatsu-lab/alpaca", dataset.storageUri());
        List<EnvVar> datasetEnv = List.of(
                new EnvVar("IGNORE_PATTERNS", "*.md,*.png", null), secretEnv("ACCESS_TOKEN", "hf-token", "token"));
        assertEquals(datasetEnv, dataset.env());
        assertNull(dataset.secretRef());
        StorageInitializer model = job.getSpec().initializer().model();
        assertEquals("s3://models/llama", model.storageUri());
        // the SDK's default ignore patterns for a model, then the settings in their declared order
        List<EnvVar> modelEnv = List.of(
                new EnvVar("IGNORE_PATTERNS", "*.msgpack,*.h5,*.bin,*.pt,*.pth", null),
                new EnvVar("ENDPOINT", "http://minio.storage:9000", null),
                new EnvVar("REGION", "eu-central-1", null),
                new EnvVar("ROLE_ARN", "arn:aws:iam::123456789012:role/train", null),
                secretEnv("ACCESS_KEY_ID", "s3-keys", "id"),
                secretEnv("SECRET_ACCESS_KEY", "s3-keys", "secret"));
        assertEquals(modelEnv, model.env());
        assertEquals("s3-creds", model.secretRef().getName());

        // the pods: the storage URI replaces the runtime's default where it stands, the env follows, the Secret is
        // handed whole as envFrom; only the container named as the step gets them
        Container datasetContainer = initializerContainer("typed-init", "dataset-initializer");
        assertEquals(
                concat(List.of(new EnvVar("STORAGE_URI", "hf://tatsu-lab/alpaca", null)), datasetEnv),
                ownEnv(datasetContainer));
        assertEquals(List.of(), datasetContainer.getEnvFrom());
        Container modelContainer = initializerContainer("typed-init", "model-initializer");
        assertEquals(
                concat(List.of(new EnvVar("STORAGE_URI", "s3://models/llama", null)), modelEnv),
                ownEnv(modelContainer));
        assertEquals(
                List.of(new EnvFromSourceBuilder()
                        .withNewSecretRef()
                        .withName("s3-creds")
                        .endSecretRef()
                        .build()),
                modelContainer.getEnvFrom());
    }

    @Test
    void aUriWithoutASchemeTakesTheNamedKindsAndAModelsPatternsCanBeNone() {
        Exchange exchange = send(
                TORCHTUNE + "&jobName=kind-named&datasetKind=hf&datasetUri=tatsu-lab/alpaca"
                        + "&modelUri=hf://meta-llama/Llama-3.2-1B-Instruct",
                null,
                Map.of(ARGS, "epochs=1", MODEL_IGNORE_PATTERNS, List.of()));
        assertNull(exchange.getException());
        TrainJob job = stored("init", "kind-named");
        assertEquals(
                "hf://tatsu-lab/alpaca", job.getSpec().initializer().dataset().storageUri());
        assertNull(job.getSpec().initializer().model().env(), "an empty pattern list sets none");
    }

    static Stream<Arguments> refusals() {
        String tune = TORCHTUNE + "&datasetUri=hf://tatsu-lab/alpaca";
        return Stream.of(
                // a credential is a Secret's key, never the value: refused without repeating it (per message here;
                // an endpoint's is refused when its producer is made, see credentialsInEndpointOptions...)
                Arguments.of(
                        "a plain token",
                        tune,
                        Map.of(DATASET_ACCESS_TOKEN, "hf_PlainTokenValue123"),
                        DATASET_ACCESS_TOKEN,
                        "secretKeyRef:hf-token/token",
                        "hf_PlainTokenValue123"),
                Arguments.of(
                        "a plain S3 key",
                        TORCHTUNE + "&modelUri=s3://m/x",
                        Map.of(MODEL_SECRET_ACCESS_KEY, "wJalr/K7MDENG"),
                        MODEL_SECRET_ACCESS_KEY,
                        "secretKeyRef:",
                        "wJalr"),
                Arguments.of(
                        "credentials in the URI",
                        TORCHTUNE,
                        Map.of(DATASET_URI, "s3://AKIAX:wJalrSecret@bucket/d"),
                        "datasetUri",
                        "datasetSecret",
                        "wJalrSecret"),
                Arguments.of(
                        "a Secret that is no name",
                        tune,
                        Map.of(DATASET_ACCESS_TOKEN, "secretKeyRef:Hf_Token/token"),
                        DATASET_ACCESS_TOKEN,
                        "not a Kubernetes object name",
                        "Hf_Token"),
                Arguments.of(
                        "a setting of another kind",
                        tune + "&datasetEndpoint=http://minio:9000",
                        Map.of(),
                        "datasetEndpoint",
                        "only the s3 initializer reads it",
                        null),
                Arguments.of(
                        "a kind the scheme contradicts",
                        tune + "&datasetKind=s3",
                        Map.of(),
                        "datasetKind",
                        "contradicts the storage URI's scheme 'hf'",
                        null),
                Arguments.of(
                        "a cache model",
                        TORCHTUNE + "&modelUri=cache://schema/table",
                        Map.of(),
                        "modelUri",
                        "takes hf, s3",
                        null),
                Arguments.of(
                        "a cache without its metadata",
                        TORCHTUNE + "&datasetUri=cache://db/table" + "&datasetCacheDataNodes=3",
                        Map.of(),
                        "datasetCacheMetadataLoc",
                        "the data cache needs it",
                        null),
                Arguments.of(
                        "one cache data node",
                        TORCHTUNE + "&datasetUri=cache://db/table&datasetCacheDataNodes=1"
                                + "&datasetCacheMetadataLoc=s3://b/t/metadata.json",
                        Map.of(),
                        "datasetCacheDataNodes",
                        "at least 2",
                        null),
                Arguments.of(
                        "a pattern with a comma",
                        TORCHTUNE + "&modelUri=hf://m/x",
                        Map.of(MODEL_IGNORE_PATTERNS, List.of("*.bin,*.pt")),
                        "modelIgnorePatterns",
                        "an item of its own",
                        null),
                Arguments.of(
                        "a pattern with a new line",
                        TORCHTUNE + "&modelUri=hf://m/x",
                        Map.of(MODEL_IGNORE_PATTERNS, List.of("*.bin", "x\n")),
                        "modelIgnorePatterns",
                        "or a control character",
                        null),
                Arguments.of(
                        "settings without a kind",
                        TORCHTUNE + "&datasetRegion=eu-central-1",
                        Map.of(),
                        "datasetRegion",
                        "no storage URI is given",
                        null),
                // the runtime: the Trainer takes an initializer only where the runtime has the step (its webhook's
                // rule), and a cache dataset only where the step runs the data cache
                Arguments.of(
                        "a dataset on a runtime without the step",
                        "kubeflow-trainer:train?runtime=torch-distributed"
                                + "&namespace=init&pythonFile=/a.py&datasetUri=s3://data/set",
                        Map.of(),
                        "datasetUri",
                        "torchtune-llama3.2-1b",
                        null),
                Arguments.of(
                        "a model on a runtime without the step",
                        "kubeflow-trainer:train?runtime=torch-distributed"
                                + "&namespace=init&pythonFile=/a.py&modelSecret=hf-token",
                        Map.of(),
                        "modelSecret",
                        "has no model-initializer replicated job",
                        null),
                Arguments.of(
                        "a cache on a runtime without the cache",
                        TORCHTUNE + "&datasetUri=cache://db/table"
                                + "&datasetCacheDataNodes=2&datasetCacheMetadataLoc=s3://b/t/metadata.json",
                        Map.of(),
                        "datasetUri",
                        "has no data cache initializer",
                        null),
                Arguments.of(
                        "the cache runtime, whose step lacks the initializer volume",
                        "kubeflow-trainer:train?runtime=torch-distributed-with-cache&namespace=init&pythonFile=/a.py"
                                + "&datasetUri=cache://db/table&datasetCacheDataNodes=2"
                                + "&datasetCacheMetadataLoc=s3://b/t/metadata.json",
                        Map.of(),
                        "datasetUri",
                        "does not mount the 'initializer' volume",
                        null));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("refusals")
    void refusedNamingTheFieldBeforeAnyWrite(
            String what, String uri, Map<String, Object> message, String field, String fix, String notEchoed) {
        Map<String, Object> headers = new HashMap<>(message);
        headers.put(ARGS, "epochs=1");
        Exchange refused = send(uri, null, headers);
        InvalidOptionException error = assertInstanceOf(InvalidOptionException.class, refused.getException());
        assertEquals(field, error.getField(), error.getMessage());
        assertTrue(error.getMessage().contains(fix), error.getMessage());
        if (notEchoed != null) {
            assertFalse(error.getMessage().contains(notEchoed), error.getMessage());
        }
        assertEquals(List.of(), api.writesSinceMark(), "a refused request must not write anything");
    }

    @Test
    void everySecretAnInitializerNamesIsReviewedAsTheCaller() {
        String uri = TORCHTUNE + "&authorizeCaller=true&datasetUri=hf://tatsu-lab/alpaca";
        Exchange allowed = as("alice", uri + "&jobName=alice-init&datasetAccessToken=secretKeyRef:hf-token/token");
        assertNull(allowed.getException());
        for (String secret :
                List.of("&datasetAccessToken=secretKeyRef:db-credentials/token", "&datasetSecret=db-credentials")) {
            Exchange denied = as("alice", uri + secret);
            AccessDeniedException error = assertInstanceOf(AccessDeniedException.class, denied.getException(), secret);
            assertTrue(
                    error.getMessage().contains("may not get secrets 'db-credentials' in namespace init"),
                    error.getMessage());
            assertEquals(List.of(), api.writesSinceMark(), "a denied request must not write anything");
        }
    }

    @Test
    void everySecretAnInitializerNamesIsHeldToThePolicysSecrets() {
        String uri = TORCHTUNE + "&policy=#initPolicy&datasetUri=hf://tatsu-lab/alpaca";
        assertNull(send(
                        uri + "&jobName=policy-init&modelUri=s3://m/x&modelSecret=hf-token",
                        null,
                        Map.of(ARGS, "epochs=1"))
                .getException());
        for (String secret : List.of(
                "&datasetAccessToken=secretKeyRef:db-credentials/token",
                "&modelUri=s3://m/x&modelAccessKeyId=secretKeyRef:db-credentials/id",
                "&datasetSecret=db-credentials")) {
            Exchange refused = send(uri + secret, null, Map.of(ARGS, "epochs=1"));
            PolicyViolationException violation =
                    assertInstanceOf(PolicyViolationException.class, refused.getException(), secret);
            assertEquals("secrets", violation.getRule(), violation.getMessage());
            assertEquals(List.of(), api.writesSinceMark(), "a refused request must not write anything");
        }
    }

    private static Exchange as(String user, String uri) {
        api.mark();
        return template.send(uri, exchange -> {
            exchange.getMessage().setHeader(ARGS, "epochs=1");
            exchange.setProperty(CALLER_PROPERTY, new Caller(user, List.of()));
        });
    }

    @Test
    void aPlainCredentialAsAnEndpointOptionIsRefusedWhenTheProducerIsMade() {
        RuntimeException refused = Assertions.assertThrows(
                RuntimeException.class,
                () -> send(
                        TORCHTUNE + "&datasetUri=hf://tatsu-lab/alpaca&datasetAccessToken=hf_EndpointToken42",
                        null,
                        Map.of(ARGS, "epochs=1")));
        Throwable cause = refused;
        while (cause != null && !(cause instanceof InvalidOptionException)) {
            cause = cause.getCause();
        }
        InvalidOptionException error = assertInstanceOf(InvalidOptionException.class, cause);
        assertEquals("datasetAccessToken", error.getField());
        StringWriter trace = new StringWriter();
        refused.printStackTrace(new PrintWriter(trace));
        assertFalse(trace.toString().contains("hf_EndpointToken42"), trace.toString());
        assertEquals(List.of(), api.writesSinceMark(), "a refused request must not write anything");
    }

    /** A container's variables less the one the Job controller adds to every indexed Job's pods. */
    private static List<EnvVar> ownEnv(Container container) {
        return container.getEnv().stream()
                .filter(e -> !"JOB_COMPLETION_INDEX".equals(e.getName()))
                .toList();
    }

    private static EnvVar secretEnv(String name, String secret, String key) {
        return new EnvVarBuilder()
                .withName(name)
                .withNewValueFrom()
                .withNewSecretKeyRef()
                .withName(secret)
                .withKey(key)
                .endSecretKeyRef()
                .endValueFrom()
                .build();
    }

    private static <T> List<T> concat(List<T> first, List<T> second) {
        return Stream.concat(first.stream(), second.stream()).toList();
    }

    /** The named container of the job's pod of that replicated job, once the sandbox's JobSet has made it. */
    private static Container initializerContainer(String job, String step) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (System.nanoTime() < deadline) {
            List<Pod> pods = api.client()
                    .pods()
                    .inNamespace("init")
                    .withLabel(JobSetLabels.JOBSET_NAME, job)
                    .withLabel(JobSetLabels.REPLICATED_JOB, step)
                    .list()
                    .getItems();
            if (!pods.isEmpty()) {
                return pods.get(0).getSpec().getContainers().stream()
                        .filter(c -> step.equals(c.getName()))
                        .findFirst()
                        .orElseThrow();
            }
            Thread.sleep(50);
        }
        throw new AssertionError("no " + step + " pod of " + job);
    }
}
