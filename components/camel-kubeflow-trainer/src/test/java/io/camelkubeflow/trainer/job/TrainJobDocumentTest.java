package io.camelkubeflow.trainer.job;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.camelkubeflow.trainer.api.RuntimePatch;
import io.camelkubeflow.trainer.api.TrainJob;
import io.camelkubeflow.trainer.support.InvalidOptionException;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A TrainJob given as a body: recognised, read strictly, and turned into the request it stands for. */
class TrainJobDocumentTest {
    private static final String FULL = """
            apiVersion: trainer.kubeflow.org/v1alpha1
            kind: TrainJob
            metadata:
              name: nightly
              namespace: ml
              labels: {team: vision, camelkubeflow.io/group: copied}
              annotations: {example.com/owner: me, camelkubeflow.io/idempotency-key: copied}
            spec:
              runtimeRef: {name: team-torch, kind: TrainingRuntime}
              trainer:
                image: registry.example.com/train:1
                command: [python, -u, train.py]
                args: [--epochs, "3"]
                numNodes: 2
                numProcPerNode: 4
                env: [{name: LR, value: "0.1"}]
                resourcesPerNode: {requests: {cpu: "4"}}
              initializer:
                dataset: {storageUri: "s3://data/x", secretRef: {name: s3-creds}}
                model: {storageUri: "hf://m/x"}
              runtimePatches:
                - manager: example.com/scheduler
                  trainingRuntimeSpec: {template: {spec: {replicatedJobs: []}}}
              suspend: true
              managedBy: kueue.x-k8s.io/multikueue
              activeDeadlineSeconds: 600
            """;

    @Test
    void aBodyIsATrainJobWhenItSaysSo() {
        assertTrue(TrainJobDocument.looksLikeTrainJob(new TrainJob()));
        assertTrue(TrainJobDocument.looksLikeTrainJob(Map.of("kind", "TrainJob")));
        assertTrue(TrainJobDocument.looksLikeTrainJob(Map.of("apiVersion", "trainer.kubeflow.org/v1alpha1")));
        assertTrue(TrainJobDocument.looksLikeTrainJob("kind: TrainJob\nspec: {}"));
        assertFalse(TrainJobDocument.looksLikeTrainJob(Map.of("kind", "Job", "apiVersion", "batch/v1")));
        assertFalse(TrainJobDocument.looksLikeTrainJob("print('a script, not a TrainJob')"));
        assertFalse(TrainJobDocument.looksLikeTrainJob("- a\n- list"));
        assertFalse(TrainJobDocument.looksLikeTrainJob("kind: [unclosed"));
        assertFalse(TrainJobDocument.looksLikeTrainJob(42));
    }

    @Test
    void everyFieldOfTheBodyLandsInTheRequestExceptTheComponentsOwnMarks() {
        TrainRequest request = TrainJobDocument.toRequest(TrainJobDocument.read(FULL));
        assertEquals("nightly", request.jobName());
        assertEquals("ml", request.namespace());
        assertEquals(Map.of("team", "vision"), request.labels());
        assertEquals(Map.of("example.com/owner", "me"), request.annotations());
        assertEquals("team-torch", request.runtime());
        assertEquals("TrainingRuntime", request.runtimeKind());
        assertEquals("registry.example.com/train:1", request.image());
        assertEquals(List.of("python", "-u", "train.py"), request.command());
        assertTrue(request.verbatimCommand());
        assertEquals(List.of("--epochs", "3"), request.args());
        assertEquals(2, request.numNodes());
        assertEquals(4, request.numProcPerNode());
        assertEquals("0.1", request.env().get("LR").getValue());
        assertEquals(Map.of("cpu", "4"), request.resources());
        assertEquals("s3://data/x", request.dataset().uri());
        assertEquals("s3-creds", request.dataset().secret());
        assertEquals("hf://m/x", request.model().uri());
        assertNull(request.model().secret());
        assertEquals(
                List.of("example.com/scheduler"),
                request.runtimePatches().stream().map(RuntimePatch::manager).toList());
        assertEquals(true, request.suspend());
        assertEquals("kueue.x-k8s.io/multikueue", request.managedBy());
        assertEquals(600L, request.activeDeadlineSeconds());
    }

    @Test
    void limitsWinOverRequestsAndABodyWithoutSpecOrCommandSetsNoneOfIt() {
        TrainRequest limits = TrainJobDocument.toRequest(TrainJobDocument.read("""
                kind: TrainJob
                spec:
                  trainer: {resourcesPerNode: {limits: {nvidia.com/gpu: "1"}, requests: {cpu: "2"}}}
                """));
        assertEquals(Map.of("nvidia.com/gpu", "1"), limits.resources());
        assertNull(limits.command());
        assertFalse(limits.verbatimCommand());
        TrainRequest bare = TrainJobDocument.toRequest(TrainJobDocument.read("kind: TrainJob\nmetadata: {name: a}"));
        assertEquals("a", bare.jobName());
        assertNull(bare.runtime());
        assertNull(bare.suspend());
    }

    @Test
    void initializerEnvOfNoSettingIsRefusedNamingTheSettings() {
        InvalidOptionException dataset = assertThrows(
                InvalidOptionException.class, () -> TrainJobDocument.toRequest(TrainJobDocument.read("""
                        kind: TrainJob
                        spec: {initializer: {dataset: {storageUri: "s3://d", env: [{name: K, value: v}]}}}
                        """)));
        assertEquals("body.spec.initializer.dataset.env.K", dataset.getField());
        assertTrue(dataset.getMessage().contains("ENDPOINT"), dataset.getMessage());
    }

    @Test
    void initializerEnvIsReadBackIntoTypedSettings() {
        TrainRequest request = TrainJobDocument.toRequest(TrainJobDocument.read("""
                kind: TrainJob
                spec:
                  initializer:
                    model:
                      storageUri: s3://models/llama
                      env:
                      - {name: ENDPOINT, value: "http://minio:9000"}
                      - {name: IGNORE_PATTERNS, value: "*.bin,*.pt"}
                      - {name: SECRET_ACCESS_KEY, valueFrom: {secretKeyRef: {name: s3-creds, key: secret}}}
                """));
        assertEquals("http://minio:9000", request.model().settings().get(InitializerSetting.ENDPOINT));
        assertEquals(List.of("*.bin", "*.pt"), request.model().settings().get(InitializerSetting.IGNORE_PATTERNS));
        assertEquals(
                "s3-creds",
                InitializerRequest.secretKey(request.model().settings().get(InitializerSetting.SECRET_ACCESS_KEY))
                        .getName());
    }

    @Test
    void aPlainCredentialInABodyIsRefusedWithoutRepeatingIt() {
        InvalidOptionException refused = assertThrows(
                InvalidOptionException.class, () -> TrainJobDocument.toRequest(TrainJobDocument.read("""
                        kind: TrainJob
                        spec: {initializer: {dataset: {storageUri: "hf://d/x", env: [{name: ACCESS_TOKEN, value: hf_SeCrEt}]}}}
                        """)));
        assertEquals("body.spec.initializer.dataset.env.ACCESS_TOKEN", refused.getField());
        assertFalse(refused.getMessage().contains("hf_SeCrEt"), refused.getMessage());
    }

    @Test
    void aTypedBodyIsTakenAsItIs() {
        TrainJob job = new TrainJob();
        assertSame(job, TrainJobDocument.read(job));
    }

    @Test
    void unreadableBodiesAreRefusedSayingWhereAndWhy() {
        InvalidOptionException syntax = assertThrows(
                InvalidOptionException.class, () -> TrainJobDocument.read("{\"kind\": \"TrainJob\", \"spec\": {"));
        assertEquals("body", syntax.getField());
        assertTrue(syntax.getMessage().contains("not valid JSON or YAML at line 1, column 31"), syntax.getMessage());
        assertFalse(syntax.getMessage().contains("\n"), "one line, not the parser's whole report");

        InvalidOptionException unknown = assertThrows(
                InvalidOptionException.class, () -> TrainJobDocument.read("kind: TrainJob\nspec: {labels: {a: b}}"));
        assertEquals("body.spec.labels", unknown.getField());
        assertTrue(unknown.getMessage().contains("unknown TrainJob field 'labels'"), unknown.getMessage());

        InvalidOptionException type = assertThrows(
                InvalidOptionException.class,
                () -> TrainJobDocument.read(
                        Map.of("kind", "TrainJob", "spec", Map.of("trainer", Map.of("numNodes", "two")))));
        assertEquals("body.spec.trainer.numNodes", type.getField());
        assertTrue(type.getMessage().contains("wrong type"), type.getMessage());

        InvalidOptionException list =
                assertThrows(InvalidOptionException.class, () -> TrainJobDocument.read("- not\n- a TrainJob"));
        assertEquals("body", list.getField());
        assertTrue(list.getMessage().contains("not a TrainJob"), list.getMessage());
    }
}
