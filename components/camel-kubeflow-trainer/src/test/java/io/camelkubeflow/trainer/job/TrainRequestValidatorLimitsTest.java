package io.camelkubeflow.trainer.job;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.camelkubeflow.trainer.support.InvalidOptionException;
import java.util.Collections;
import java.util.List;
import java.util.function.Consumer;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Every limit the validator enforces, at the limit (accepted) and one past it (refused, naming the field): the
 * numbers are Kubernetes' and the TrainJob CRD's, so an off-by-one either refuses what a cluster accepts or lets
 * through what it refuses. And every text field refuses a NUL character with its own message.
 */
class TrainRequestValidatorLimitsTest {
    private static TrainRequest base() {
        return new TrainRequest().runtime("torch-distributed").pythonFile("/app/train.py");
    }

    private static String chars(int n) {
        return "a".repeat(n);
    }

    /** A DNS subdomain of exactly n characters: labels of 63 joined by dots. */
    private static String subdomain(int n) {
        StringBuilder name = new StringBuilder();
        while (name.length() < n) {
            if (name.length() > 0) {
                name.append('.');
            }
            name.append("a".repeat(Math.min(63, n - name.length())));
        }
        // a label cannot end in '.': the loop never leaves one, as each dot is followed by at least one 'a'
        return name.toString();
    }

    private static Arguments limit(String field, Consumer<TrainRequest> atLimit, Consumer<TrainRequest> overLimit) {
        return Arguments.of(field, atLimit, overLimit);
    }

    static Stream<Arguments> limits() {
        return Stream.of(
                limit("jobName", r -> r.jobName(chars(63)), r -> r.jobName(chars(64))),
                // a generated name is the prefix, '-' and 12 hex digits: an RFC 1035 label of 63 at most
                limit("jobNamePrefix", r -> r.jobNamePrefix(chars(50)), r -> r.jobNamePrefix(chars(51))),
                limit("namespace", r -> r.namespace(chars(63)), r -> r.namespace(chars(64))),
                limit("runtime", r -> r.runtime(subdomain(253)), r -> r.runtime(subdomain(254))),
                limit("image", r -> r.image(chars(500)), r -> r.image(chars(501))),
                limit("inFlightGroup", r -> r.inFlightGroup(chars(63)), r -> r.inFlightGroup(chars(64))),
                limit("maxInFlight", r -> r.maxInFlight(1), r -> r.maxInFlight(0)),
                limit("numNodes", r -> r.numNodes(1), r -> r.numNodes(0)),
                limit("numProcPerNode", r -> r.numProcPerNode(1), r -> r.numProcPerNode(0)),
                limit("ttlAfterFinished", r -> r.ttlAfterFinishedSeconds(1L), r -> r.ttlAfterFinishedSeconds(0L)),
                limit("activeDeadlineSeconds", r -> r.activeDeadlineSeconds(1L), r -> r.activeDeadlineSeconds(0L)),
                limit(
                        "args",
                        r -> r.args(Collections.nCopies(TrainRequestValidator.MAX_LIST_ITEMS, "x")),
                        r -> r.args(Collections.nCopies(TrainRequestValidator.MAX_LIST_ITEMS + 1, "x"))),
                limit(
                        "env",
                        r -> envs(r, TrainRequestValidator.MAX_LIST_ITEMS),
                        r -> envs(r, TrainRequestValidator.MAX_LIST_ITEMS + 1)),
                limit("labels.team", r -> r.label("team", chars(63)), r -> r.label("team", chars(64))),
                limit("labels." + chars(64), r -> r.label(chars(63), "x"), r -> r.label(chars(64), "x")),
                limit(
                        "labels." + subdomain(254) + "/team",
                        r -> r.label(subdomain(253) + "/team", "x"),
                        r -> r.label(subdomain(254) + "/team", "x")),
                // Kubernetes counts keys and values: 256 KiB in all
                limit(
                        "annotations",
                        r -> r.annotation("k", chars(256 * 1024 - 1)),
                        r -> r.annotation("k", chars(256 * 1024))),
                limit(
                        "datasetUri",
                        r -> r.dataset().uri("s3://" + chars(2043)),
                        r -> r.dataset().uri("s3://" + chars(2044))),
                limit(
                        "datasetSecret",
                        r -> r.dataset().secret(subdomain(253)),
                        r -> r.dataset().secret(subdomain(254))),
                limit(
                        "script",
                        r -> script(r, chars(TrainRequestValidator.MAX_SCRIPT_BYTES)),
                        r -> script(r, chars(TrainRequestValidator.MAX_SCRIPT_BYTES + 1))),
                // bytes, not characters: 'é' is two bytes in UTF-8
                limit(
                        "script",
                        r -> script(r, "é".repeat(TrainRequestValidator.MAX_SCRIPT_BYTES / 2)),
                        r -> script(r, "é".repeat(TrainRequestValidator.MAX_SCRIPT_BYTES / 2) + "a")),
                limit(
                        "scriptFileName",
                        r -> script(r, "print(1)").scriptFileName(chars(253)),
                        r -> script(r, "print(1)").scriptFileName(chars(254))),
                limit(
                        "scriptFileName",
                        r -> script(r, "print(1)").scriptFileName("..a"),
                        r -> script(r, "print(1)").scriptFileName("..")),
                limit(
                        "scriptFileName",
                        r -> script(r, "print(1)").scriptFileName("a.py"),
                        r -> script(r, "print(1)").scriptFileName(".")));
    }

    /** The request with an inline script as its payload instead of the base's file. */
    private static TrainRequest script(TrainRequest request, String source) {
        return request.pythonFile(null).script(source);
    }

    private static void envs(TrainRequest request, int count) {
        IntStream.range(0, count).forEach(i -> request.env("V" + i, "x"));
    }

    @ParameterizedTest(name = "{0} {index}")
    @MethodSource("limits")
    void aLimitIsAcceptedAndOnePastItRefusedNamingTheField(
            String field, Consumer<TrainRequest> atLimit, Consumer<TrainRequest> overLimit) {
        TrainRequest accepted = base();
        atLimit.accept(accepted);
        assertDoesNotThrow(() -> TrainRequestValidator.validate(accepted));
        TrainRequest refused = base();
        overLimit.accept(refused);
        InvalidOptionException error =
                assertThrows(InvalidOptionException.class, () -> TrainRequestValidator.validate(refused));
        assertEquals(field, error.getField());
    }

    static Stream<Arguments> nulFields() {
        String nul = "a\0b";
        return Stream.of(
                Arguments.of("command", (Consumer<TrainRequest>)
                        r -> r.pythonFile(null).command(List.of("python", nul))),
                Arguments.of("args", (Consumer<TrainRequest>) r -> r.args(List.of("ok", nul))),
                Arguments.of("packages", (Consumer<TrainRequest>) r -> r.packages(List.of(nul))),
                Arguments.of("pipIndexUrls", (Consumer<TrainRequest>) r -> r.pipIndexUrls(List.of("https://x/" + nul))),
                Arguments.of("script", (Consumer<TrainRequest>) r -> script(r, nul)),
                Arguments.of("scriptFileName", (Consumer<TrainRequest>)
                        r -> script(r, "print(1)").scriptFileName(nul)),
                Arguments.of("image", (Consumer<TrainRequest>) r -> r.image(nul)),
                Arguments.of("runKey", (Consumer<TrainRequest>) r -> r.runKey(nul)),
                Arguments.of("idempotencyKey", (Consumer<TrainRequest>) r -> r.idempotencyKey(nul)),
                Arguments.of(
                        "datasetUri", (Consumer<TrainRequest>) r -> r.dataset().uri("s3://" + nul)),
                Arguments.of("modelUri", (Consumer<TrainRequest>) r -> r.model().uri("s3://" + nul)),
                Arguments.of("env.X", (Consumer<TrainRequest>) r -> r.env("X", nul)),
                Arguments.of("labels.team", (Consumer<TrainRequest>) r -> r.label("team", nul)),
                Arguments.of("annotations.note", (Consumer<TrainRequest>) r -> r.annotation("note", nul)));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("nulFields")
    void aNulCharacterIsRefusedInEveryTextFieldAsSuch(String field, Consumer<TrainRequest> withNul) {
        TrainRequest request = base();
        withNul.accept(request);
        InvalidOptionException error =
                assertThrows(InvalidOptionException.class, () -> TrainRequestValidator.validate(request));
        assertEquals(field, error.getField());
        assertTrue(error.getMessage().contains("NUL character"), error.getMessage());
    }

    /** The CRD's pattern lets these through; the API server refuses them or fabric8's Quantity fails on them. */
    @ParameterizedTest
    @ValueSource(strings = {"1e2147483648", "1e-2147483649", "1e1.5", "1E.5", "50000005E001000806378", "1e-1000000000"})
    void aQuantitysExponentIsAWholeNumberFabric8Computes(String quantity) {
        assertEquals(
                "cpu",
                assertThrows(
                                InvalidOptionException.class,
                                () -> TrainRequestValidator.validate(base().resource("cpu", quantity)))
                        .getField());
    }

    @ParameterizedTest
    @ValueSource(strings = {"1e999999999", "1e-999999999", "1E+3", "2E", "4Ei"})
    void exponentsFabric8ComputesAndTheExaSuffixesAreQuantities(String quantity) {
        assertDoesNotThrow(() -> TrainRequestValidator.validate(base().resource("cpu", quantity)));
    }
}
