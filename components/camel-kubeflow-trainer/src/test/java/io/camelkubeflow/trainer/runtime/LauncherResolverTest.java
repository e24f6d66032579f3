package io.camelkubeflow.trainer.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.camelkubeflow.trainer.support.InvalidOptionException;
import io.camelkubeflow.trainer.testing.RuntimeYaml;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.IOException;
import java.io.InputStream;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class LauncherResolverTest {

    static TrainingRuntimeDescriptor defaultRuntime(String file) {
        try (InputStream in = LauncherResolverTest.class.getResourceAsStream("/kubeflow-trainer/runtimes/" + file)) {
            return TrainingRuntimeDescriptor.from(Serialization.unmarshal(in, GenericKubernetesResource.class));
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    static TrainingRuntimeDescriptor customRuntime(String framework, String mlPolicyYaml) {
        String yaml = RuntimeYaml.of("custom", null, framework, mlPolicyYaml, "registry.example.com/team/my-trainer:1");
        return TrainingRuntimeDescriptor.from(Serialization.unmarshal(yaml, GenericKubernetesResource.class));
    }

    @ParameterizedTest(name = "{0} -> {1} by {2}")
    @CsvSource({
        "torch_distributed.yaml, TORCHRUN, ML_POLICY",
        "data-cache/torch_distributed_with_cache.yaml, TORCHRUN, ML_POLICY",
        "deepspeed_distributed.yaml, MPIRUN, ML_POLICY",
        "mlx_distributed.yaml, MPIRUN, ML_POLICY",
        "jax_distributed.yaml, PYTHON, ML_POLICY",
        "xgboost_distributed.yaml, PYTHON, ML_POLICY",
        "torchtune/llama3_2/llama3_2_1B.yaml, BUILTIN, FRAMEWORK_LABEL",
        "torchtune/qwen2_5/qwen2_5_1.5B.yaml, BUILTIN, FRAMEWORK_LABEL"
    })
    void everyDefaultRuntimeGetsItsLauncherFromTheRuntime(String file, Launcher launcher, LauncherRule rule) {
        TrainingRuntimeDescriptor runtime = defaultRuntime(file);
        LauncherDecision decision = LauncherResolver.resolve(runtime, runtime.trainerImage(), List.of(), null);
        assertEquals(launcher, decision.launcher(), decision.reason());
        assertEquals(rule, decision.rule());
    }

    @Test
    void mpiRuntimeTrainsFromTheLauncherJobAndRunsUserCodeOnEveryNode() {
        TrainingRuntimeDescriptor deepspeed = defaultRuntime("deepspeed_distributed.yaml");
        assertEquals("launcher", deepspeed.trainerJob().name());
        assertEquals(
                List.of("node", "launcher"),
                deepspeed.jobsRunningUserCode().stream()
                        .map(TrainingRuntimeDescriptor.ReplicatedJob::name)
                        .toList());
        assertEquals("ghcr.io/kubeflow/trainer/deepspeed-runtime", deepspeed.trainerImage());
    }

    @Test
    void unknownRuntimeFallsBackToPythonAndSaysWhy() {
        LauncherDecision decision = LauncherResolver.resolve(customRuntime("paddle", null), "img", List.of(), null);
        assertEquals(Launcher.PYTHON, decision.launcher());
        assertEquals(LauncherRule.FALLBACK, decision.rule());
        assertTrue(
                decision.reason().contains("framework label 'paddle'")
                        && decision.reason().contains("image rule"),
                decision.reason());
    }

    @Test
    void theFrameworkLabelAloneNeverMakesAnMpiJobTorchrun() {
        // a deepspeed-labelled runtime without mlPolicy.mpi cannot use mpirun, and must not silently get torchrun
        LauncherDecision decision = LauncherResolver.resolve(customRuntime("deepspeed", null), "img", List.of(), null);
        assertEquals(Launcher.PYTHON, decision.launcher());
        assertEquals(LauncherRule.FALLBACK, decision.rule());
    }

    @Test
    void imageRulesBeatTheRuntimeAndTheFirstMatchWins() {
        TrainingRuntimeDescriptor runtime = customRuntime(null, null);
        List<ImageRule> rules = ImageRule.parseList(
                "imageRules", "registry.example.com/*/my-*=torchrun, registry.example.com/*=python");
        LauncherDecision decision = LauncherResolver.resolve(runtime, runtime.trainerImage(), rules, null);
        assertEquals(Launcher.TORCHRUN, decision.launcher());
        assertEquals(LauncherRule.IMAGE_RULE, decision.rule());
        assertTrue(decision.reason().contains("registry.example.com/*/my-*=torchrun"), decision.reason());

        TrainingRuntimeDescriptor torch = defaultRuntime("torch_distributed.yaml");
        LauncherDecision overTorch = LauncherResolver.resolve(
                torch, "pytorch/pytorch:2.13.0", ImageRule.parseList("imageRules", "pytorch/*=python"), null);
        assertEquals(Launcher.PYTHON, overTorch.launcher());
    }

    @Test
    void globsAreLiteralExceptForStarAndQuestionMark() {
        ImageRule rule = ImageRule.of("repo.io/a.b?c*", Launcher.PYTHON);
        assertTrue(rule.matches("repo.io/a.bXc:1"));
        assertTrue(!rule.matches("repoXio/a.bXc:1"));
        assertTrue(!rule.matches("repo.io/aXbXc"));
    }

    @Test
    void aForcedLauncherBeatsImageRules() {
        TrainingRuntimeDescriptor torch = defaultRuntime("torch_distributed.yaml");
        LauncherDecision decision = LauncherResolver.resolve(
                torch, torch.trainerImage(), ImageRule.parseList("imageRules", "*=python"), Launcher.TORCHRUN);
        assertEquals(LauncherRule.FORCED, decision.rule());
        assertEquals(Launcher.TORCHRUN, decision.launcher());
    }

    @Test
    void mpirunOnARuntimeWithoutMpiIsRefused() {
        TrainingRuntimeDescriptor torch = defaultRuntime("torch_distributed.yaml");
        InvalidOptionException forced = assertThrows(
                InvalidOptionException.class, () -> LauncherResolver.resolve(torch, "img", List.of(), Launcher.MPIRUN));
        assertEquals("launcher", forced.getField());
        InvalidOptionException byRule = assertThrows(
                InvalidOptionException.class,
                () -> LauncherResolver.resolve(torch, "img", ImageRule.parseList("imageRules", "img=mpirun"), null));
        assertEquals("imageRules", byRule.getField());
    }

    @Test
    void malformedRulesNameTheField() {
        assertEquals(
                "imageRules",
                assertThrows(InvalidOptionException.class, () -> ImageRule.parseList("imageRules", "no-launcher-here"))
                        .getField());
        assertEquals(
                "imageRules",
                assertThrows(InvalidOptionException.class, () -> ImageRule.parseList("imageRules", "img=deepspeed"))
                        .getField());
    }
}
