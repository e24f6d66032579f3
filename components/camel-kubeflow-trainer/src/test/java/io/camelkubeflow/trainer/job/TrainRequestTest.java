package io.camelkubeflow.trainer.job;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.camelkubeflow.trainer.access.Caller;
import io.camelkubeflow.trainer.api.RuntimePatch;
import io.camelkubeflow.trainer.runtime.ImageRule;
import io.camelkubeflow.trainer.runtime.Launcher;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A request is written as one chain of setters, and reads back what was set; a plain field needs no code of its own to
 * be kept, layered and read.
 */
class TrainRequestTest {
    @Test
    void everySetterChainsAndEveryValueReadsBack() {
        Caller caller = new Caller("alice", List.of("team"));
        RuntimePatch patch = new RuntimePatch("example.com/x", null, null);
        List<ImageRule> rules = ImageRule.parseList("imageRules", "*ds*=mpirun");
        TrainRequest request = new TrainRequest()
                .namespace("ml")
                .jobName("j")
                .jobNamePrefix("p")
                .idempotencyKey("k")
                .idempotencyScope("s")
                .runKey("r")
                .skipIfRunning(true)
                .inFlightGroup("g")
                .maxInFlight(2)
                .runtime("rt")
                .runtimeKind("TrainingRuntime")
                .image("img")
                .launcher(Launcher.PYTHON)
                .imageRules(rules)
                .command(List.of("python"))
                .args(List.of("--x"))
                .verbatimCommand(true)
                .pythonFile("/a.py")
                .script("print(1)")
                .scriptFileName("t.py")
                .packages(List.of("numpy"))
                .pipIndexUrls(List.of("https://i/simple"))
                .numNodes(3)
                .numProcPerNode(4)
                .activeDeadlineSeconds(60L)
                .ttlAfterFinishedSeconds(30L)
                .suspend(true)
                .managedBy("m")
                .caller(caller)
                .env("A", "1")
                .resource("cpu", "2")
                .label("team", "x")
                .annotation("note", "y")
                .runtimePatch(patch);
        request.dataset().uri("s3://d").secret("ds");
        request.model().uri("hf://m").secret("ms");
        assertEquals(
                List.of(
                        "ml",
                        "j",
                        "p",
                        "k",
                        "s",
                        "r",
                        "g",
                        "rt",
                        "TrainingRuntime",
                        "img",
                        "/a.py",
                        "print(1)",
                        "t.py",
                        "s3://d",
                        "ds",
                        "hf://m",
                        "ms",
                        "m"),
                List.of(
                        request.namespace(),
                        request.jobName(),
                        request.jobNamePrefix(),
                        request.idempotencyKey(),
                        request.idempotencyScope(),
                        request.runKey(),
                        request.inFlightGroup(),
                        request.runtime(),
                        request.runtimeKind(),
                        request.image(),
                        request.pythonFile(),
                        request.script(),
                        request.scriptFileName(),
                        request.dataset().uri(),
                        request.dataset().secret(),
                        request.model().uri(),
                        request.model().secret(),
                        request.managedBy()));
        assertTrue(request.skipIfRunning() && request.verbatimCommand() && request.suspend());
        assertEquals(List.of(2, 3, 4), List.of(request.maxInFlight(), request.numNodes(), request.numProcPerNode()));
        assertEquals(List.of(60L, 30L), List.of(request.activeDeadlineSeconds(), request.ttlAfterFinishedSeconds()));
        assertEquals(Launcher.PYTHON, request.launcher());
        assertEquals(rules, request.imageRules());
        assertEquals(List.of("python"), request.command());
        assertEquals(List.of("--x"), request.args());
        assertEquals(List.of("numpy"), request.packages());
        assertEquals(List.of("https://i/simple"), request.pipIndexUrls());
        assertEquals(caller, request.caller());
        assertEquals("1", request.env().get("A").getValue());
        assertEquals(Map.of("cpu", "2"), request.resources());
        assertEquals(Map.of("team", "x"), request.labels());
        assertEquals(Map.of("note", "y"), request.annotations());
        assertEquals(List.of(patch), request.runtimePatches());
    }

    @Test
    void everyPlainFieldIsKeptFromTheLayerThatSetsItAndTheTopLayersValueWins() {
        for (TrainField field : TrainField.values()) {
            if (!field.isPlain()) {
                continue;
            }
            Object low = sample(field, "low");
            Object high = sample(field, "high");
            TrainRequest bottom = new TrainRequest();
            field.apply(bottom, low, field.fieldName());
            TrainRequest top = new TrainRequest();
            field.apply(top, high, field.fieldName());
            assertEquals(low, bottom.overlay(new TrainRequest()).value(field), field + " from the lower layer");
            assertEquals(high, new TrainRequest().overlay(top).value(field), field + " from the top layer");
            assertEquals(high, bottom.overlay(top).value(field), field + " from both layers");
        }
    }

    @Test
    void aPlainFieldTakesOnlyAValueOfItsKindAndOnlyAPlainFieldIsSetAsOne() {
        assertThrows(IllegalArgumentException.class, () -> new TrainRequest().set(TrainField.NUM_NODES, "2"));
        assertThrows(IllegalArgumentException.class, () -> new TrainRequest().set(TrainField.PACKAGES, "numpy"));
        assertThrows(IllegalArgumentException.class, () -> new TrainRequest().set(TrainField.LABELS, Map.of()));
        assertNull(new TrainRequest()
                .namespace("ml")
                .set(TrainField.NAMESPACE, null)
                .namespace());
    }

    /** A value of the field's kind, different for each word. */
    static Object sample(TrainField field, String word) {
        return switch (field.kind()) {
            case TEXT -> word;
            case INTEGER -> word.length();
            case LONG -> (long) word.length();
            case BOOLEAN -> word.length() % 2 == 0;
            case DECIMAL -> word.length() / 10.0;
            case WORDS, LIST -> List.of(word, word);
            default -> throw new AssertionError(field + " is plain but of kind " + field.kind());
        };
    }
}
