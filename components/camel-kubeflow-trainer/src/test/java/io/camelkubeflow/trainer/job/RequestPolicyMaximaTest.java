package io.camelkubeflow.trainer.job;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.camelkubeflow.trainer.runtime.TrainingRuntimeDescriptor;
import io.camelkubeflow.trainer.sandbox.TrainerSandbox;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.InputStream;
import java.util.Set;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** A policy's maxima allow exactly the maximum and refuse one past it, naming the rule; its lists allow what they name. */
class RequestPolicyMaximaTest {
    static TrainingRuntimeDescriptor torch;
    static final RequestPolicy POLICY = RequestPolicy.safeDefaults().withMaxima(2, 4, "1", "2", "4Gi", 60, 10);

    @BeforeAll
    static void runtime() throws Exception {
        try (InputStream in =
                RequestPolicyMaximaTest.class.getResourceAsStream(TrainerSandbox.RUNTIMES + "torch_distributed.yaml")) {
            torch = TrainingRuntimeDescriptor.from(Serialization.unmarshal(in, GenericKubernetesResource.class));
        }
    }

    private static void check(RequestPolicy policy, TrainRequest request, String namespace) {
        policy.check(request, TrainJobFactory.build(request.runtime("torch-distributed"), torch, namespace, "j", null));
    }

    static Stream<Arguments> maxima() {
        return Stream.of(
                Arguments.of("maxNumNodes", (Consumer<TrainRequest>) r -> r.numNodes(2), (Consumer<TrainRequest>)
                        r -> r.numNodes(3)),
                Arguments.of(
                        "maxNumProcPerNode", (Consumer<TrainRequest>) r -> r.numProcPerNode(4), (Consumer<TrainRequest>)
                                r -> r.numProcPerNode(5)),
                Arguments.of("maxGpu", (Consumer<TrainRequest>) r -> r.resource("nvidia.com/gpu", "1"), (Consumer<
                                TrainRequest>)
                        r -> r.resource("nvidia.com/gpu", "2")),
                Arguments.of(
                        "maxCpu", (Consumer<TrainRequest>) r -> r.resource("cpu", "2000m"), (Consumer<TrainRequest>)
                                r -> r.resource("cpu", "2001m")),
                Arguments.of("maxMemory", (Consumer<TrainRequest>) r -> r.resource("memory", "4096Mi"), (Consumer<
                                TrainRequest>)
                        r -> r.resource("memory", "4097Mi")),
                Arguments.of(
                        "maxActiveDeadlineSeconds",
                        (Consumer<TrainRequest>) r -> r.activeDeadlineSeconds(60L),
                        (Consumer<TrainRequest>) r -> r.activeDeadlineSeconds(61L)),
                Arguments.of(
                        "maxScriptBytes",
                        (Consumer<TrainRequest>) r -> r.pythonFile(null).script("x".repeat(10)),
                        (Consumer<TrainRequest>) r -> r.pythonFile(null).script("x".repeat(11))));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("maxima")
    void theMaximumIsAllowedAndOnePastItRefused(
            String rule, Consumer<TrainRequest> atMost, Consumer<TrainRequest> over) {
        TrainRequest allowed = new TrainRequest().pythonFile("/a.py");
        atMost.accept(allowed);
        assertDoesNotThrow(() -> check(POLICY, allowed, "ml"));
        TrainRequest refused = new TrainRequest().pythonFile("/a.py");
        over.accept(refused);
        assertEquals(
                rule,
                assertThrows(PolicyViolationException.class, () -> check(POLICY, refused, "ml"))
                        .getRule());
    }

    @Test
    void aListAllowsWhatItNamesOrEverythingWithAStar() {
        RequestPolicy named = POLICY.withNamespaces(Set.of("ml"));
        assertDoesNotThrow(() -> check(named, new TrainRequest().pythonFile("/a.py"), "ml"));
        assertEquals(
                "namespaces",
                assertThrows(
                                PolicyViolationException.class,
                                () -> check(named, new TrainRequest().pythonFile("/a.py"), "other"))
                        .getRule());
        assertDoesNotThrow(() -> check(
                POLICY.withNamespaces(Set.of(RequestPolicy.ANY)), new TrainRequest().pythonFile("/a.py"), "other"));
        assertEquals(
                "configMaps",
                assertThrows(
                                PolicyViolationException.class,
                                () -> check(
                                        POLICY.withConfigMaps(Set.of("settings")),
                                        new TrainRequest()
                                                .pythonFile("/a.py")
                                                .env(EnvValues.of("LR", "configMapKeyRef:other/lr")),
                                        "ml"))
                        .getRule());
        assertDoesNotThrow(() -> check(
                POLICY.withConfigMaps(Set.of("settings")),
                new TrainRequest().pythonFile("/a.py").env(EnvValues.of("LR", "configMapKeyRef:settings/lr")),
                "ml"));
    }
}
