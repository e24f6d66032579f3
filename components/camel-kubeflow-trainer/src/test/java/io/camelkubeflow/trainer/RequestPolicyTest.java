package io.camelkubeflow.trainer;

import static io.camelkubeflow.trainer.KubeflowTrainerConstants.*;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.camelkubeflow.trainer.api.TrainJob;
import io.camelkubeflow.trainer.job.PolicyViolationException;
import io.camelkubeflow.trainer.job.RequestPolicy;
import io.camelkubeflow.trainer.support.InvalidOptionException;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.apache.camel.Exchange;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** policy=#...: each rule refuses what it forbids, naming the rule, with nothing written; within it, a job trains. */
class RequestPolicyTest extends TrainerRouteTestSupport {
    private static final String TRAIN =
            "kubeflow-trainer:train?policy=#policy&runtime=torch-distributed" + "&namespace=pol&pythonFile=/a.py";

    @BeforeAll
    static void policies() {
        camel.getRegistry()
                .bind(
                        "policy",
                        RequestPolicy.safeDefaults()
                                .withNamespaces(Set.of("pol"))
                                .withRuntimes(Set.of("torch-distributed", "deepspeed-distributed"))
                                .withSecrets(Set.of("hf-token"))
                                .withMaxima(2, 4, "1", "8", "32Gi", 3600, 64)
                                .withOutputLocations(List.of("s3://models/team-a/")));
        camel.getRegistry()
                .bind(
                        "images",
                        RequestPolicy.safeDefaults().withImageOverride(true, List.of("registry.example.com/team/*")));
        camel.getRegistry()
                .bind(
                        "pods",
                        RequestPolicy.safeDefaults()
                                .withNamespaces(Set.of("pol"))
                                .withNodeSelectors(Set.of("accelerator=a100", "topology.kubernetes.io/zone=*"))
                                .withTolerations(Set.of("nvidia.com/gpu"))
                                .withServiceAccounts(Set.of("trainer"))
                                .withPersistentVolumeClaims(Set.of("datasets"))
                                .withConfigMaps(Set.of("settings"))
                                .withSecrets(Set.of("hf-token", "registry-pull"))
                                .withOutputLocations(List.of("pvc://datasets/models/", "pvc://models/")));
        camel.getRegistry()
                .bind(
                        "amd",
                        RequestPolicy.safeDefaults()
                                .withNamespaces(Set.of("pol"))
                                .withResourceMaxima(Map.of("amd.com/gpu", "2"))
                                .withCommandOverride(true)
                                .withDefaultActiveDeadlineSeconds(7200));
        // every job into team-a's LocalQueue, at batch priority at most
        camel.getRegistry()
                .bind(
                        "queues",
                        RequestPolicy.safeDefaults()
                                .withNamespaces(Set.of("pol"))
                                .withQueues(Set.of("team-a"), "team-a", true)
                                .withPriorityClasses(Set.of("batch")));
        camel.getRegistry()
                .bind(
                        "queued",
                        RequestPolicy.safeDefaults()
                                .withNamespaces(Set.of("pol"))
                                .withQueues(Set.of(RequestPolicy.ANY), null, true));
    }

    static Stream<Arguments> violations() {
        return Stream.of(
                Arguments.of("namespaces", TRAIN, Map.of(NAMESPACE, "kube-system")),
                Arguments.of("runtimes", TRAIN, Map.of(RUNTIME, "mlx-distributed")),
                Arguments.of("imageOverride", TRAIN, Map.of(IMAGE, "attacker.example.com/miner:latest")),
                Arguments.of(
                        "images",
                        TRAIN.replace("#policy", "#images"),
                        Map.of(IMAGE, "attacker.example.com/miner:latest")),
                Arguments.of(
                        "commandOverride",
                        TRAIN.replace("#policy", "#images").replace("&pythonFile=/a.py", ""),
                        Map.of(COMMAND, List.of("python", "-c", "print(1)"))),
                Arguments.of("resources", TRAIN, Map.of(RESOURCES, Map.of("amd.com/gpu", "1000"))),
                Arguments.of("resources", TRAIN, Map.of(RESOURCES, Map.of("ephemeral-storage", "100Ti"))),
                Arguments.of("resources", TRAIN, Map.of(RESOURCES, Map.of("hugepages-1Gi", "1000Gi"))),
                Arguments.of(
                        "resourceMaxima",
                        TRAIN.replace("#policy", "#amd"),
                        Map.of(RESOURCES, Map.of("amd.com/gpu", "3"))),
                Arguments.of("secrets", TRAIN, Map.of(ENV, Map.of("DB", "secretKeyRef:db-credentials/password"))),
                Arguments.of("configMaps", TRAIN, Map.of(ENV, Map.of("CFG", "configMapKeyRef:settings/x"))),
                Arguments.of("outputLocations", TRAIN, Map.of(OUTPUT_URI, "s3://models/team-b/fraud/")),
                Arguments.of("outputLocations", TRAIN, Map.of(OUTPUT_URI, "s3://models/team-a")),
                Arguments.of(
                        "outputLocations",
                        TRAIN.replace("#policy", "#amd"),
                        Map.of(OUTPUT_URI, "s3://models/team-a/fraud/")),
                Arguments.of("queues", QUEUES, Map.of(QUEUE, "team-b")),
                Arguments.of("queueRequired", TRAIN.replace("#policy", "#queued"), Map.of()),
                Arguments.of("priorityClasses", TRAIN, Map.of(PRIORITY_CLASS, "batch")),
                Arguments.of("priorityClasses", QUEUES, Map.of(PRIORITY_CLASS, "urgent")),
                Arguments.of("maxNumNodes", TRAIN, Map.of(NUM_NODES, 100000)),
                Arguments.of("maxNumProcPerNode", TRAIN, Map.of(NUM_PROC_PER_NODE, 64)),
                Arguments.of("maxGpu", TRAIN, Map.of(GPU, "1000")),
                Arguments.of("maxCpu", TRAIN, Map.of(CPU, "9")),
                Arguments.of("maxMemory", TRAIN, Map.of(MEMORY, "1Ti")),
                Arguments.of("maxActiveDeadlineSeconds", TRAIN, Map.of(ACTIVE_DEADLINE_SECONDS, 86400L)),
                Arguments.of(
                        "maxScriptBytes",
                        TRAIN.replace("&pythonFile=/a.py", ""),
                        Map.of(SCRIPT, "print('" + "x".repeat(100) + "')")),
                // pod options: allow-lists (the safe defaults allow none), then what no request gets
                Arguments.of("nodeSelectors", TRAIN, Map.of(NODE_SELECTOR, Map.of("accelerator", "a100"))),
                Arguments.of("nodeSelectors", PODS, Map.of(NODE_SELECTOR, Map.of("accelerator", "h100"))),
                Arguments.of("nodeSelectors", PODS, Map.of(NODE_AFFINITY, List.of("kubernetes.io/hostname=victim"))),
                Arguments.of("nodeSelectors", PODS, Map.of(NODE_AFFINITY, List.of("accelerator"))),
                Arguments.of("tolerations", TRAIN, Map.of(TOLERATIONS, List.of("nvidia.com/gpu"))),
                Arguments.of(
                        "tolerations",
                        PODS,
                        Map.of(TOLERATIONS, List.of("node-role.kubernetes.io/control-plane:NoSchedule"))),
                Arguments.of("serviceAccounts", TRAIN, Map.of(SERVICE_ACCOUNT_NAME, "trainer")),
                Arguments.of("serviceAccounts", PODS, Map.of(SERVICE_ACCOUNT_NAME, "cluster-admin")),
                Arguments.of("persistentVolumeClaims", PODS, Map.of(VOLUMES, List.of("pvc:other-team:/data"))),
                // an output claim is mounted as any claim is: held to the same list
                Arguments.of("persistentVolumeClaims", PODS, Map.of(OUTPUT_URI, "pvc://models/fraud/")),
                Arguments.of("outputLocations", PODS, Map.of(OUTPUT_URI, "pvc://datasets/raw/")),
                Arguments.of("configMaps", PODS, Map.of(VOLUMES, List.of("configMap:kube-root-ca.crt:/ca"))),
                Arguments.of("secrets", PODS, Map.of(VOLUMES, List.of("secret:db-credentials:/db"))),
                Arguments.of("secrets", PODS, Map.of(IMAGE_PULL_SECRETS, List.of("other-registry"))),
                Arguments.of("runAsRoot", PODS, Map.of(POD_SECURITY_CONTEXT, Map.of("runAsUser", "0"))),
                Arguments.of("runAsRoot", PODS, Map.of(SECURITY_CONTEXT, Map.of("runAsNonRoot", "false"))),
                Arguments.of(
                        "allowPrivilegeEscalation",
                        PODS,
                        Map.of(SECURITY_CONTEXT, Map.of("allowPrivilegeEscalation", "true"))));
    }

    private static final String PODS = TRAIN.replace("#policy", "#pods");
    private static final String QUEUES = TRAIN.replace("#policy", "#queues");

    /** The pod settings a TrainJob body's own runtime patch gives: policed as the pod options are. */
    static Stream<Arguments> bodyPatches() {
        return Stream.of(
                Arguments.of(
                        "hostPath",
                        Map.of("volumes", List.of(Map.of("name", "root", "hostPath", Map.of("path", "/"))))),
                Arguments.of(
                        "volumeKinds",
                        Map.of(
                                "volumes",
                                List.of(Map.of(
                                        "name", "share", "nfs", Map.of("server", "nfs.example.com", "path", "/"))))),
                Arguments.of(
                        "privileged",
                        Map.of(
                                "containers",
                                List.of(Map.of("name", "node", "securityContext", Map.of("privileged", true))))),
                Arguments.of(
                        "addedCapabilities",
                        Map.of(
                                "containers",
                                List.of(Map.of(
                                        "name",
                                        "node",
                                        "securityContext",
                                        Map.of("capabilities", Map.of("add", List.of("SYS_ADMIN"))))))),
                Arguments.of(
                        "runAsRoot",
                        Map.of(
                                "initContainers",
                                List.of(Map.of("name", "node", "securityContext", Map.of("runAsUser", 0))))),
                Arguments.of("tolerations", Map.of("tolerations", List.of(Map.of("operator", "Exists")))),
                // what the Pod Security Standards' baseline forbids, which the pod options cannot say but a body can
                Arguments.of(
                        "seLinuxOptions", Map.of("securityContext", Map.of("seLinuxOptions", Map.of("type", "spc_t")))),
                Arguments.of(
                        "sysctls",
                        Map.of(
                                "securityContext",
                                Map.of("sysctls", List.of(Map.of("name", "kernel.core_pattern", "value", "|/tmp/x"))))),
                Arguments.of(
                        "hostProcess",
                        Map.of("securityContext", Map.of("windowsOptions", Map.of("hostProcess", true)))),
                Arguments.of(
                        "unconfined",
                        Map.of("securityContext", Map.of("seccompProfile", Map.of("type", "Unconfined")))),
                Arguments.of(
                        "unconfined",
                        Map.of("securityContext", Map.of("appArmorProfile", Map.of("type", "Unconfined")))),
                Arguments.of(
                        "procMount",
                        Map.of(
                                "containers",
                                List.of(Map.of("name", "node", "securityContext", Map.of("procMount", "Unmasked"))))),
                Arguments.of(
                        "seLinuxOptions",
                        Map.of(
                                "containers",
                                List.of(Map.of(
                                        "name",
                                        "node",
                                        "securityContext",
                                        Map.of("seLinuxOptions", Map.of("type", "spc_t")))))),
                Arguments.of(
                        "unconfined",
                        Map.of(
                                "containers",
                                List.of(Map.of(
                                        "name",
                                        "node",
                                        "securityContext",
                                        Map.of("seccompProfile", Map.of("type", "Unconfined")))))),
                Arguments.of(
                        "secrets",
                        Map.of(
                                "containers",
                                List.of(Map.of(
                                        "name",
                                        "sidecar",
                                        "env",
                                        List.of(Map.of(
                                                "name",
                                                "DB",
                                                "valueFrom",
                                                Map.of(
                                                        "secretKeyRef",
                                                        Map.of("name", "db-credentials", "key", "password")))))))));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("bodyPatches")
    void aTrainJobBodysOwnPatchIsPolicedLikeThePodOptions(String rule, Map<String, Object> podSpec) {
        Exchange refused = send(PODS, trainJobWithPatch(podSpec), Map.of());
        PolicyViolationException violation = assertInstanceOf(PolicyViolationException.class, refused.getException());
        assertEquals(rule, violation.getRule(), violation.getMessage());
        assertEquals(List.of(), api.writesSinceMark(), "a refused request must not write anything");
    }

    @Test
    void aBodysOwnPatchMountingOverTheComponentsMountsIsRefusedBeforeAnyWrite() {
        for (String path : List.of("/opt/camel-kubeflow-trainer", "/opt", "/mnt/camel-kubeflow-trainer/output")) {
            api.mark();
            Exchange refused = send(
                    PODS.replace("&pythonFile=/a.py", "&script=print(1)"),
                    trainJobWithPatch(Map.of(
                            "volumes",
                            List.of(Map.of("name", "x", "emptyDir", Map.of())),
                            "containers",
                            List.of(Map.of(
                                    "name", "node", "volumeMounts", List.of(Map.of("name", "x", "mountPath", path)))))),
                    Map.of());
            InvalidOptionException invalid = assertInstanceOf(InvalidOptionException.class, refused.getException());
            assertEquals("runtimePatches", invalid.getField(), invalid.getMessage());
            assertEquals(List.of(), api.writesSinceMark());
        }
    }

    @Test
    void hostNetworkIsNoFieldOfARuntimePatchAndABodySettingItIsRefusedAsItIsRead() {
        Exchange refused = send(PODS, trainJobWithPatch(Map.of("hostNetwork", true)), Map.of());
        InvalidOptionException invalid = assertInstanceOf(InvalidOptionException.class, refused.getException());
        assertTrue(invalid.getMessage().contains("unknown TrainJob field 'hostNetwork'"), invalid.getMessage());
        assertEquals(List.of(), api.writesSinceMark());
    }

    @Test
    void podOptionsWithinThePolicyTrain() {
        TrainJob job = trainJob(send(
                PODS,
                null,
                Map.of(
                        NODE_SELECTOR,
                        Map.of("accelerator", "a100"),
                        NODE_AFFINITY,
                        List.of("topology.kubernetes.io/zone=zone-a|zone-b"),
                        TOLERATIONS,
                        List.of("nvidia.com/gpu:NoSchedule"),
                        SERVICE_ACCOUNT_NAME,
                        "trainer",
                        VOLUMES,
                        List.of(
                                "pvc:datasets:/data:ro",
                                "configMap:settings:/etc/settings",
                                "secret:hf-token:/hf",
                                "emptyDir:scratch:/scratch"),
                        IMAGE_PULL_SECRETS,
                        List.of("registry-pull"),
                        POD_SECURITY_CONTEXT,
                        Map.of("runAsUser", "1000"),
                        SECURITY_CONTEXT,
                        Map.of(
                                "runAsNonRoot",
                                "true",
                                "allowPrivilegeEscalation",
                                "false",
                                "dropCapabilities",
                                "ALL"))));
        assertEquals(
                "trainer",
                job.getSpec().runtimePatches().get(0).podSpecs().get(0).serviceAccountName());
    }

    private static Map<String, Object> trainJobWithPatch(Map<String, Object> podSpec) {
        return Map.of(
                "apiVersion",
                "trainer.kubeflow.org/v1alpha1",
                "kind",
                "TrainJob",
                "spec",
                Map.of(
                        "runtimeRef", Map.of("name", "torch-distributed"),
                        "runtimePatches",
                                List.of(Map.of(
                                        "manager",
                                        "example.com/team",
                                        "trainingRuntimeSpec",
                                        Map.of(
                                                "template",
                                                Map.of(
                                                        "spec",
                                                        Map.of(
                                                                "replicatedJobs",
                                                                List.of(Map.of(
                                                                        "name",
                                                                        "node",
                                                                        "template",
                                                                        Map.of(
                                                                                "spec",
                                                                                Map.of(
                                                                                        "template",
                                                                                        Map.of(
                                                                                                "spec",
                                                                                                podSpec))))))))))));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("violations")
    void eachRuleRefusesWhatItForbidsBeforeAnyWrite(String rule, String uri, Map<String, Object> headers) {
        Exchange refused = send(uri, null, headers);
        PolicyViolationException violation = assertInstanceOf(PolicyViolationException.class, refused.getException());
        assertEquals(rule, violation.getRule(), violation.getMessage());
        assertEquals(List.of(), api.writesSinceMark(), "a refused request must not write anything");
    }

    @Test
    void aRequestWithinThePolicyTrains() {
        Exchange trained = send(
                TRAIN,
                null,
                Map.of(
                        ENV,
                        Map.of("HF_TOKEN", "secretKeyRef:hf-token/token"),
                        NUM_NODES,
                        2,
                        GPU,
                        "1",
                        CPU,
                        "500m",
                        MEMORY,
                        "16Gi",
                        ACTIVE_DEADLINE_SECONDS,
                        600L,
                        OUTPUT_URI,
                        "s3://models/team-a/fraud/"));
        assertNull(trained.getException());
        Exchange image = send(
                TRAIN.replace("#policy", "#images"),
                null,
                Map.of(IMAGE, "registry.example.com/team/trainer:1", IDEMPOTENCY_KEY, "image-ok"));
        assertNull(image.getException());
    }

    @Test
    void aConfiguredResourceIsAllowedUpToItsMaximumAndACommandWhereAllowed() {
        Exchange trained = send(
                TRAIN.replace("#policy", "#amd").replace("&pythonFile=/a.py", ""),
                null,
                Map.of(RESOURCES, Map.of("amd.com/gpu", "2"), COMMAND, List.of("python", "-c", "print(1)")));
        assertEquals(
                "2",
                trainJob(trained)
                        .getSpec()
                        .trainer()
                        .resourcesPerNode()
                        .getLimits()
                        .get("amd.com/gpu")
                        .toString());
    }

    @Test
    void aRequestWithoutARunTimeGetsThePolicysDefaultOneWithItsOwnKept() {
        assertEquals(
                7200L,
                trainJob(send(TRAIN.replace("#policy", "#amd"), null, Map.of()))
                        .getSpec()
                        .activeDeadlineSeconds());
        assertEquals(
                3600L,
                trainJob(send(TRAIN, null, Map.of(IDEMPOTENCY_KEY, "capped-default")))
                        .getSpec()
                        .activeDeadlineSeconds(),
                "a default over the maximum is the maximum");
        assertEquals(
                600L,
                trainJob(send(TRAIN, null, Map.of(ACTIVE_DEADLINE_SECONDS, 600L, IDEMPOTENCY_KEY, "own-deadline")))
                        .getSpec()
                        .activeDeadlineSeconds());
    }

    @Test
    void aRequestNamingNoQueueGetsThePolicysDefaultOneAndAnAllowedOneIsKept() {
        TrainJob defaulted = trainJob(send(QUEUES, null, Map.of(IDEMPOTENCY_KEY, "queue-default")));
        assertEquals("team-a", defaulted.getMetadata().getLabels().get("kueue.x-k8s.io/queue-name"));
        TrainJob named = trainJob(
                send(QUEUES, null, Map.of(QUEUE, "team-a", PRIORITY_CLASS, "batch", IDEMPOTENCY_KEY, "queue-named")));
        assertEquals("team-a", named.getMetadata().getLabels().get("kueue.x-k8s.io/queue-name"));
        assertEquals("batch", named.getMetadata().getLabels().get("kueue.x-k8s.io/priority-class"));
    }

    /** A TrainJob body's Kueue labels are its queue and priorityClass: held to the same rules. */
    @Test
    void aBodysKueueLabelsAreHeldToTheQueueRules() {
        Exchange refused = send(QUEUES.replace("&pythonFile=/a.py", ""), """
                {"apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "TrainJob",
                 "metadata": {"labels": {"kueue.x-k8s.io/queue-name": "team-b"}},
                 "spec": {"runtimeRef": {"name": "torch-distributed"}, "trainer": {"command": ["python", "/a.py"]}}}
                """, Map.of());
        PolicyViolationException violation = assertInstanceOf(PolicyViolationException.class, refused.getException());
        assertEquals("queues", violation.getRule(), violation.getMessage());
        assertEquals(List.of(), api.writesSinceMark());
    }
}
