package io.camelkubeflow.trainer;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;

import io.camelkubeflow.trainer.job.PolicyViolationException;
import io.camelkubeflow.trainer.job.RequestPolicy;
import org.apache.camel.Exchange;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import static io.camelkubeflow.trainer.KubeflowTrainerConstants.*;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;

/** policy=#...: each rule refuses what it forbids, naming the rule, with nothing written; within it, a job trains. */
class RequestPolicyTest extends TrainerRouteTestSupport {
    private static final String TRAIN = "kubeflow-trainer:train?policy=#policy&runtime=torch-distributed"
            + "&namespace=pol&pythonFile=/a.py";

    @BeforeAll
    static void policies() {
        camel.getRegistry().bind("policy", RequestPolicy.safeDefaults().withNamespaces(Set.of("pol"))
                .withRuntimes(Set.of("torch-distributed", "deepspeed-distributed"))
                .withSecrets(Set.of("hf-token")).withMaxima(2, 4, "1", "8", "32Gi", 3600, 64)
                .withOutputLocations(List.of("s3://models/team-a/")));
        camel.getRegistry().bind("images", RequestPolicy.safeDefaults()
                .withImageOverride(true, List.of("registry.example.com/team/*")));
        camel.getRegistry().bind("amd", RequestPolicy.safeDefaults().withNamespaces(Set.of("pol"))
                .withResourceMaxima(Map.of("amd.com/gpu", "2")).withCommandOverride(true)
                .withDefaultActiveDeadlineSeconds(7200));
    }

    static Stream<Arguments> violations() {
        return Stream.of(
                Arguments.of("namespaces", TRAIN, Map.of(NAMESPACE, "kube-system")),
                Arguments.of("runtimes", TRAIN, Map.of(RUNTIME, "mlx-distributed")),
                Arguments.of("imageOverride", TRAIN, Map.of(IMAGE, "attacker.example.com/miner:latest")),
                Arguments.of("images", TRAIN.replace("#policy", "#images"),
                        Map.of(IMAGE, "attacker.example.com/miner:latest")),
                Arguments.of("commandOverride", TRAIN.replace("#policy", "#images").replace("&pythonFile=/a.py", ""),
                        Map.of(COMMAND, List.of("python", "-c", "print(1)"))),
                Arguments.of("resources", TRAIN, Map.of(RESOURCES, Map.of("amd.com/gpu", "1000"))),
                Arguments.of("resources", TRAIN, Map.of(RESOURCES, Map.of("ephemeral-storage", "100Ti"))),
                Arguments.of("resources", TRAIN, Map.of(RESOURCES, Map.of("hugepages-1Gi", "1000Gi"))),
                Arguments.of("resourceMaxima", TRAIN.replace("#policy", "#amd"),
                        Map.of(RESOURCES, Map.of("amd.com/gpu", "3"))),
                Arguments.of("secrets", TRAIN, Map.of(ENV, Map.of("DB", "secretKeyRef:db-credentials/password"))),
                Arguments.of("configMaps", TRAIN, Map.of(ENV, Map.of("CFG", "configMapKeyRef:settings/x"))),
                Arguments.of("outputLocations", TRAIN, Map.of(OUTPUT_URI, "s3://models/team-b/fraud/")),
                Arguments.of("outputLocations", TRAIN, Map.of(OUTPUT_URI, "s3://models/team-a")),
                Arguments.of("outputLocations", TRAIN.replace("#policy", "#amd"),
                        Map.of(OUTPUT_URI, "s3://models/team-a/fraud/")),
                Arguments.of("maxNumNodes", TRAIN, Map.of(NUM_NODES, 100000)),
                Arguments.of("maxNumProcPerNode", TRAIN, Map.of(NUM_PROC_PER_NODE, 64)),
                Arguments.of("maxGpu", TRAIN, Map.of(GPU, "1000")),
                Arguments.of("maxCpu", TRAIN, Map.of(CPU, "9")),
                Arguments.of("maxMemory", TRAIN, Map.of(MEMORY, "1Ti")),
                Arguments.of("maxActiveDeadlineSeconds", TRAIN, Map.of(ACTIVE_DEADLINE_SECONDS, 86400L)),
                Arguments.of("maxScriptBytes", TRAIN.replace("&pythonFile=/a.py", ""),
                        Map.of(SCRIPT, "print('" + "x".repeat(100) + "')")));
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
        Exchange trained = send(TRAIN, null, Map.of(ENV, Map.of("HF_TOKEN", "secretKeyRef:hf-token/token"),
                NUM_NODES, 2, GPU, "1", CPU, "500m", MEMORY, "16Gi", ACTIVE_DEADLINE_SECONDS, 600L,
                OUTPUT_URI, "s3://models/team-a/fraud/"));
        assertNull(trained.getException());
        Exchange image = send(TRAIN.replace("#policy", "#images"), null,
                Map.of(IMAGE, "registry.example.com/team/trainer:1", IDEMPOTENCY_KEY, "image-ok"));
        assertNull(image.getException());
    }

    @Test
    void aConfiguredResourceIsAllowedUpToItsMaximumAndACommandWhereAllowed() {
        Exchange trained = send(TRAIN.replace("#policy", "#amd").replace("&pythonFile=/a.py", ""), null,
                Map.of(RESOURCES, Map.of("amd.com/gpu", "2"), COMMAND, List.of("python", "-c", "print(1)")));
        assertEquals("2", trainJob(trained).getSpec().trainer().resourcesPerNode().getLimits().get("amd.com/gpu")
                .toString());
    }

    @Test
    void aRequestWithoutARunTimeGetsThePolicysDefaultOneWithItsOwnKept() {
        assertEquals(7200L, trainJob(send(TRAIN.replace("#policy", "#amd"), null, Map.of()))
                .getSpec().activeDeadlineSeconds());
        assertEquals(3600L, trainJob(send(TRAIN, null, Map.of(IDEMPOTENCY_KEY, "capped-default")))
                .getSpec().activeDeadlineSeconds(), "a default over the maximum is the maximum");
        assertEquals(600L, trainJob(send(TRAIN, null, Map.of(ACTIVE_DEADLINE_SECONDS, 600L, IDEMPOTENCY_KEY,
                "own-deadline"))).getSpec().activeDeadlineSeconds());
    }
}
