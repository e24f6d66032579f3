package io.camelkubeflow.trainer.job;

import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.code_intelligence.jazzer.junit.FuzzTest;
import com.code_intelligence.jazzer.mutation.annotation.NotNull;
import io.camelkubeflow.trainer.support.InvalidOptionException;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Any request, each field set or not, either validates or is refused with {@link InvalidOptionException} naming a
 * field of the request: never another exception. The lists' items and the maps' keys are never null, as no entry
 * point (URI options, headers, a JSON body) can give a null there; a map's value can be null.
 */
class TrainRequestValidatorFuzzTest {
    private static final Pattern RFC_1123_LABEL = Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?");
    private static final Pattern RFC_1035_LABEL = Pattern.compile("[a-z]([-a-z0-9]*[a-z0-9])?");
    /** Kubernetes' rule for an environment variable's name (C identifiers and more: '-', '.' too). */
    private static final Pattern ENV_NAME = Pattern.compile("[-._a-zA-Z][-._a-zA-Z0-9]*");

    /**
     * A request that validates, one of the hostile sort, and one with every field but the runtime empty or zero
     * (JUnit refuses a blank first argument as an invocation's name).
     */
    static Stream<Arguments> requests() {
        return Stream.of(
                Arguments.of(
                        "torch-distributed",
                        "ClusterTrainingRuntime",
                        "team-a",
                        "job-1",
                        null,
                        null,
                        null,
                        List.of("--epochs", "3"),
                        "train.py",
                        null,
                        null,
                        "git+https://github.com/acme/x@main",
                        List.of("torch==2.5.0"),
                        List.of("https://pypi.org/simple"),
                        Map.of("EPOCHS", "3"),
                        2,
                        4,
                        Map.of("cpu", "500m", "memory", "4Gi", "nvidia.com/gpu", "1"),
                        Map.of("team", "vision", "example.com/tier", ""),
                        Map.of("note", "free text"),
                        "s3://bucket/data",
                        "s3-creds",
                        3600L,
                        60L,
                        "trainer.kubeflow.org/trainjob-controller",
                        true,
                        "nightly",
                        "gpu-pool",
                        1),
                Arguments.of(
                        "../x",
                        "Pod",
                        "A\0",
                        "-x",
                        "1",
                        " ",
                        List.of("-rf", "/"),
                        null,
                        "/etc/\npasswd",
                        "import os",
                        "../x",
                        "",
                        List.of("-e .", "x y"),
                        List.of("file:///x", "https:"),
                        Map.of("PET_X", "1", "1BAD", "\0"),
                        -1,
                        0,
                        Map.of("cpu", "-1", "memory", "1e2147483648"),
                        Map.of("kubeflow-trainer.io/key", "x", "a/b/c", "é"),
                        Map.of("", ""),
                        "no-scheme",
                        "UPPER",
                        -5L,
                        0L,
                        "someone",
                        true,
                        " ",
                        "x".repeat(64),
                        0),
                Arguments.of(
                        "torch-distributed",
                        "",
                        "",
                        "",
                        "",
                        "",
                        List.of(),
                        List.of(),
                        "",
                        "",
                        "",
                        "",
                        List.of(),
                        List.of(),
                        Map.of(),
                        0,
                        0,
                        Map.of(),
                        Map.of(),
                        Map.of(),
                        "",
                        "",
                        0L,
                        0L,
                        "",
                        false,
                        "",
                        "",
                        0));
    }

    @MethodSource("requests")
    @FuzzTest(maxDuration = "90s")
    void aRequestValidatesOrIsRefusedNamingAField(
            String runtime,
            String runtimeKind,
            String namespace,
            String jobName,
            String jobNamePrefix,
            String image,
            List<@NotNull String> command,
            List<@NotNull String> args,
            String pythonFile,
            String script,
            String scriptFileName,
            String workspace,
            List<@NotNull String> packages,
            List<@NotNull String> pipIndexUrls,
            Map<@NotNull String, String> env,
            Integer numNodes,
            Integer numProcPerNode,
            Map<@NotNull String, String> resources,
            Map<@NotNull String, String> labels,
            Map<@NotNull String, String> annotations,
            String datasetUri,
            String datasetSecret,
            Long activeDeadlineSeconds,
            Long ttlAfterFinishedSeconds,
            String managedBy,
            Boolean skipIfRunning,
            String runKey,
            String inFlightGroup,
            Integer maxInFlight) {
        TrainRequest request = new TrainRequest()
                .runtime(runtime)
                .runtimeKind(runtimeKind)
                .namespace(namespace)
                .jobName(jobName)
                .jobNamePrefix(jobNamePrefix)
                .image(image)
                .command(command)
                .args(args)
                .pythonFile(pythonFile)
                .script(script)
                .scriptFileName(scriptFileName)
                .workspace(workspace)
                .packages(packages)
                .pipIndexUrls(pipIndexUrls)
                .numNodes(numNodes)
                .numProcPerNode(numProcPerNode)
                .activeDeadlineSeconds(activeDeadlineSeconds)
                .ttlAfterFinishedSeconds(ttlAfterFinishedSeconds)
                .managedBy(managedBy)
                .skipIfRunning(skipIfRunning)
                .runKey(runKey)
                .inFlightGroup(inFlightGroup)
                .maxInFlight(maxInFlight);
        request.dataset().uri(datasetUri).secret(datasetSecret);
        if (env != null) {
            env.forEach(request::env);
        }
        if (resources != null) {
            resources.forEach(request::resource);
        }
        if (labels != null) {
            labels.forEach(request::label);
        }
        if (annotations != null) {
            annotations.forEach(request::annotation);
        }
        try {
            TrainRequestValidator.validate(request);
        } catch (InvalidOptionException refused) {
            assertNamesAField(refused);
            return;
        }
        assertHoldsTheApiServersRules(request);
    }

    /**
     * A request that validates holds what the API server would refuse it for, checked here by rules written apart
     * from the validator (so a validator that accepts everything fails on the hostile seed): names as RFC 1123 and 1035
     * say, counts and durations positive, no NUL anywhere, quantities not negative.
     */
    private static void assertHoldsTheApiServersRules(TrainRequest request) {
        if (request.namespace() != null) {
            assertTrue(
                    request.namespace().length() <= 63
                            && RFC_1123_LABEL.matcher(request.namespace()).matches(),
                    "validated the namespace '" + request.namespace() + "'");
        }
        if (request.jobName() != null) {
            assertTrue(
                    request.jobName().length() <= 63
                            && RFC_1035_LABEL.matcher(request.jobName()).matches(),
                    "validated the job name '" + request.jobName() + "'");
        }
        assertTrue(request.numNodes() == null || request.numNodes() >= 1, "validated numNodes " + request.numNodes());
        assertTrue(
                request.numProcPerNode() == null || request.numProcPerNode() >= 1,
                "validated numProcPerNode " + request.numProcPerNode());
        assertTrue(
                request.activeDeadlineSeconds() == null || request.activeDeadlineSeconds() >= 1,
                "validated activeDeadlineSeconds " + request.activeDeadlineSeconds());
        request.resources()
                .forEach((name, quantity) -> assertTrue(
                        quantity != null && !quantity.startsWith("-"),
                        "validated the quantity " + name + "=" + quantity));
        request.env()
                .keySet()
                .forEach(name ->
                        assertTrue(ENV_NAME.matcher(name).matches(), "validated the variable name '" + name + "'"));
        for (String text : new String[] {
            request.namespace(),
            request.jobName(),
            request.pythonFile(),
            request.script(),
            request.image(),
            request.workspace()
        }) {
            assertTrue(text == null || text.indexOf('\0') < 0, "validated a NUL in '" + text + "'");
        }
    }

    /**
     * The field is a train option (its root before a '.', as in labels.team or resources.google.com/tpu), or the
     * options that clash, separated by '/'.
     */
    private static void assertNamesAField(InvalidOptionException refused) {
        String field = refused.getField();
        assertNotNull(field, refused.getMessage());
        String root = field.contains(".") ? field.substring(0, field.indexOf('.')) : field;
        assertTrue(
                Arrays.stream(root.split("/", -1)).allMatch(name -> TrainField.named(name) != null),
                "'" + field + "' is not a field: " + refused.getMessage());
        assertTrue(refused.getMessage().startsWith("Invalid '" + field + "': "), refused.getMessage());
    }
}
