package io.camelkubeflow.trainer.sandbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceList;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import io.fabric8.kubernetes.client.dsl.MixedOperation;
import io.fabric8.kubernetes.client.dsl.Resource;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The emulated controller gives a TrainJob the pods and the status the Trainer and JobSet would, read by any client. */
class TrainJobControllerEmulationTest {

    @Test
    void aTrainJobGetsOnePodPerNodeAndCompletes() throws Exception {
        try (TrainerSandbox sandbox = TrainerSandbox.start(
                TrainerSandbox.Options.defaults().withController(Duration.ofMillis(50), Duration.ofMillis(300)))) {
            MixedOperation<
                            GenericKubernetesResource,
                            GenericKubernetesResourceList,
                            Resource<GenericKubernetesResource>>
                    trainJobs =
                            sandbox.client().genericKubernetesResources("trainer.kubeflow.org/v1alpha1", "TrainJob");
            sandbox.createNamespace("ml");
            trainJobs
                    .inNamespace("ml")
                    .resource(Serialization.unmarshal("""
                    apiVersion: trainer.kubeflow.org/v1alpha1
                    kind: TrainJob
                    metadata: {name: two-nodes, namespace: ml}
                    spec:
                      runtimeRef: {name: torch-distributed}
                      trainer: {numNodes: 2, command: [python, train.py]}
                    """, GenericKubernetesResource.class))
                    .create();

            GenericKubernetesResource done = trainJobs
                    .inNamespace("ml")
                    .withName("two-nodes")
                    .waitUntilCondition(
                            job -> conditions(job).stream()
                                    .anyMatch(c -> "Complete".equals(c.get("type")) && "True".equals(c.get("status"))),
                            30,
                            TimeUnit.SECONDS);
            assertTrue(
                    conditions(done).stream().anyMatch(c -> "AllJobsCompleted".equals(c.get("reason"))),
                    String.valueOf(conditions(done)));
            List<Pod> nodes = sandbox.client()
                    .pods()
                    .inNamespace("ml")
                    .withLabel("jobset.sigs.k8s.io/jobset-name", "two-nodes")
                    .withLabel("jobset.sigs.k8s.io/replicatedjob-name", "node")
                    .list()
                    .getItems();
            assertEquals(2, nodes.size(), "one pod per node");
        }
    }

    @Test
    void aStagedScriptRunsOnceOnEveryNodeWithThatPodsEnv() throws Exception {
        try (TrainerSandbox sandbox = TrainerSandbox.start(TrainerSandbox.Options.defaults()
                .withController(Duration.ofMillis(50), Duration.ofMillis(300))
                .withScriptsRun())) {
            MixedOperation<
                            GenericKubernetesResource,
                            GenericKubernetesResourceList,
                            Resource<GenericKubernetesResource>>
                    trainJobs =
                            sandbox.client().genericKubernetesResources("trainer.kubeflow.org/v1alpha1", "TrainJob");
            trainJobs
                    .inNamespace("default")
                    .resource(Serialization.unmarshal(
                            scriptJob("ranks", 2, "python", """
                    import os
                    print("rank", os.environ["RANK"], "of", os.environ["WORLD_SIZE"], "lr", os.environ["LR"])
                    """), GenericKubernetesResource.class))
                    .create();
            trainJobs
                    .inNamespace("default")
                    .withName("ranks")
                    .waitUntilCondition(
                            job -> conditions(job).stream().anyMatch(c -> "Complete".equals(c.get("type"))),
                            60,
                            TimeUnit.SECONDS);
            for (Pod pod : sandbox.client()
                    .pods()
                    .inNamespace("default")
                    .withLabel("jobset.sigs.k8s.io/jobset-name", "ranks")
                    .list()
                    .getItems()) {
                String index = pod.getMetadata().getLabels().get("batch.kubernetes.io/job-completion-index");
                String log = sandbox.client()
                        .pods()
                        .inNamespace("default")
                        .withName(pod.getMetadata().getName())
                        .getLog();
                assertTrue(log.contains("rank " + index + " of 2 lr 0.5"), "node " + index + " logged:\n" + log);
                assertTrue(
                        pod.getMetadata().getAnnotations().containsKey("example.com/script"),
                        "the runtime patch's pod annotation is on the pod");
            }
        }
    }

    /**
     * torchrun exits 1 when its worker fails, whatever the worker's code (torch.distributed.elastic's
     * ChildFailedError); a python launch passes the script's code on. Read from the pods' last status before the Job
     * controller deletes them.
     */
    @Test
    void aFailedWorkerUnderTorchrunEndsItsContainerWithOneAndPlainPythonWithItsOwnCode() throws Exception {
        try (TrainerSandbox sandbox = TrainerSandbox.start(TrainerSandbox.Options.defaults()
                .withController(Duration.ofMillis(50), Duration.ofMillis(300))
                .withScriptsRun())) {
            Map<String, Integer> exits = new ConcurrentHashMap<>();
            try (var watch = sandbox.client().pods().inNamespace("default").watch(new Watcher<Pod>() {
                @Override
                public void eventReceived(Action action, Pod pod) {
                    pod.getStatus().getContainerStatuses().stream()
                            .filter(c -> c.getState() != null && c.getState().getTerminated() != null)
                            .forEach(c -> exits.put(
                                    pod.getMetadata().getLabels().get("jobset.sigs.k8s.io/jobset-name"),
                                    c.getState().getTerminated().getExitCode()));
                }

                @Override
                public void onClose(WatcherException cause) {}
            })) {
                for (String launcher : List.of("torchrun", "python")) {
                    sandbox.client()
                            .genericKubernetesResources("trainer.kubeflow.org/v1alpha1", "TrainJob")
                            .inNamespace("default")
                            .resource(Serialization.unmarshal(
                                    scriptJob("fails-" + launcher, 1, launcher, "raise SystemExit(3)\n"),
                                    GenericKubernetesResource.class))
                            .create();
                }
                Eventually.until(() -> exits.size() == 2);
            }
            assertEquals(Map.of("fails-torchrun", 1, "fails-python", 3), exits);
        }
    }

    /**
     * A job whose nodes run {@code source} as /opt/script/train.py, launched by {@code launcher}: the script staged as
     * a pod annotation and mounted by the downward API (a runtime patch), the env LR=0.5.
     */
    private static String scriptJob(String name, int numNodes, String launcher, String source) {
        String annotation = source.strip().replace("\n", "\n" + " ".repeat(24));
        return """
                apiVersion: trainer.kubeflow.org/v1alpha1
                kind: TrainJob
                metadata: {name: %s, namespace: default}
                spec:
                  runtimeRef: {name: torch-distributed}
                  trainer:
                    numNodes: %d
                    command: [%s, /opt/script/train.py]
                    env: [{name: LR, value: "0.5"}]
                  runtimePatches:
                  - manager: example.com/test
                    trainingRuntimeSpec:
                      template:
                        spec:
                          replicatedJobs:
                          - name: node
                            template:
                              spec:
                                template:
                                  metadata:
                                    annotations:
                                      example.com/script: |
                                        %s
                                  spec:
                                    volumes:
                                    - name: script
                                      downwardAPI:
                                        items:
                                        - path: train.py
                                          fieldRef: {fieldPath: "metadata.annotations['example.com/script']"}
                                    containers:
                                    - name: node
                                      volumeMounts: [{name: script, mountPath: /opt/script}]
                """.formatted(name, numNodes, launcher, annotation);
    }

    /**
     * Closed while it works (a test's sandbox is closed right after its last request), the controller finishes the
     * write under way and starts no other: none is cut off, so neither the controller nor the client's HTTP layer logs
     * a broken request. Before the fix every one of these rounds broke one (25 of 25 in a run of 25).
     */
    @Test
    void closingTheSandboxUnderWorkBreaksNoWriteUnderWay() {
        PrintStream console = System.err;
        ByteArrayOutputStream logged = new ByteArrayOutputStream();
        // slf4j-simple, the sandbox's log binding in tests, writes each line to the System.err of the moment
        System.setErr(new PrintStream(logged, true, StandardCharsets.UTF_8));
        try {
            for (int round = 0; round < 5; round++) {
                try (TrainerSandbox sandbox = TrainerSandbox.start(
                        TrainerSandbox.Options.defaults().withController(Duration.ZERO, Duration.ofMillis(1)))) {
                    var trainJobs =
                            sandbox.client().genericKubernetesResources("trainer.kubeflow.org/v1alpha1", "TrainJob");
                    for (int job = 0; job < 12; job++) {
                        trainJobs
                                .inNamespace("default")
                                .resource(Serialization.unmarshal("""
                                apiVersion: trainer.kubeflow.org/v1alpha1
                                kind: TrainJob
                                metadata: {name: job-%d, namespace: default}
                                spec:
                                  runtimeRef: {name: torch-distributed}
                                  trainer: {numNodes: 2, command: [python, train.py]}
                                """.formatted(job), GenericKubernetesResource.class))
                                .create();
                    }
                }
            }
        } finally {
            System.setErr(console);
        }
        String lines = logged.toString(StandardCharsets.UTF_8);
        console.print(lines);
        assertFalse(lines.contains("Sandbox controller could not"), lines);
        assertFalse(lines.contains(" ERROR "), lines);
    }

    @SuppressWarnings("unchecked")
    private static List<Map<String, Object>> conditions(GenericKubernetesResource job) {
        Object status = job.getAdditionalProperties().get("status");
        Object conditions = status instanceof Map<?, ?> map ? map.get("conditions") : null;
        return conditions instanceof List<?> list ? (List<Map<String, Object>>) list : List.of();
    }
}
