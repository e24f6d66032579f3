package io.camelkubeflow.trainer.job;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.camelkubeflow.trainer.support.InvalidOptionException;
import java.math.BigInteger;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A JSON message's values are taken in the JSON type their field takes, or refused naming the field; never converted. */
class TrainFieldJsonTest {
    private static InvalidOptionException refused(TrainField field, Object value) {
        InvalidOptionException error =
                assertThrows(InvalidOptionException.class, () -> field.fromJson(value, field.fieldName()));
        assertEquals(field.fieldName(), error.getField());
        return error;
    }

    @Test
    void textMustBeAString() {
        assertEquals("print(1)", TrainField.SCRIPT.fromJson("print(1)", "script"));
        assertTrue(refused(TrainField.SCRIPT, 42).getMessage().contains("the number 42 is not a string"));
        refused(TrainField.IMAGE, true);
        refused(TrainField.RUNTIME, Map.of());
        refused(TrainField.RUNTIME, List.of());
    }

    @Test
    void wholeNumbersAreRangeCheckedNeverWrappedOrRounded() {
        assertEquals(2, TrainField.NUM_NODES.fromJson(2, "numNodes"));
        assertEquals(2, TrainField.NUM_NODES.fromJson(2L, "numNodes"));
        assertEquals(Integer.MAX_VALUE, TrainField.NUM_NODES.fromJson((long) Integer.MAX_VALUE, "numNodes"));
        assertTrue(refused(TrainField.NUM_NODES, 4294967298L).getMessage().contains("out of range"));
        refused(TrainField.NUM_NODES, (long) Integer.MIN_VALUE - 1);
        refused(TrainField.NUM_NODES, 1.5);
        refused(TrainField.NUM_NODES, 2.0);
        refused(TrainField.NUM_NODES, "2");
        assertEquals(7_200_000_000L, TrainField.ACTIVE_DEADLINE_SECONDS.fromJson(7_200_000_000L, "x"));
        assertEquals(5L, TrainField.ACTIVE_DEADLINE_SECONDS.fromJson(BigInteger.valueOf(5), "x"));
        refused(TrainField.ACTIVE_DEADLINE_SECONDS, BigInteger.TWO.pow(64));
    }

    @Test
    void flagsMustBeBooleans() {
        assertEquals(true, TrainField.SUSPEND.fromJson(true, "suspend"));
        refused(TrainField.SUSPEND, "true");
        refused(TrainField.SUSPEND, 1);
    }

    @Test
    void listsAreArraysOfStringsOrOneString() {
        assertEquals(List.of("--lr", "0.1"), TrainField.ARGS.fromJson(List.of("--lr", "0.1"), "args"));
        // a command's words are split here, so a line no shell could split is refused naming the message's field
        assertEquals(List.of("--lr", "0.1"), TrainField.ARGS.fromJson("--lr 0.1", "args"));
        assertTrue(refused(TrainField.COMMAND, "python 'x.py").getMessage().contains("unclosed single quote"));
        assertEquals("numpy,pandas", TrainField.PACKAGES.fromJson("numpy,pandas", "packages"));
        assertTrue(refused(TrainField.ARGS, List.of("--lr", 0.1)).getMessage().contains("item 1 is the number 0.1"));
        refused(TrainField.ARGS, Map.of("lr", 0.1));
        refused(TrainField.PACKAGES, List.of(Map.of("name", "numpy")));
    }

    @Test
    void mapsAreObjectsOfStrings() {
        assertEquals(Map.of("LR", "0.1"), TrainField.ENV.fromJson(Map.of("LR", "0.1"), "env"));
        InvalidOptionException number = assertThrows(
                InvalidOptionException.class, () -> TrainField.RESOURCES.fromJson(Map.of("cpu", 4), "resources"));
        assertEquals("resources.cpu", number.getField());
        assertTrue(number.getMessage().contains("\"cpu\": \"4\""), number.getMessage());
        assertEquals(
                "env.LR",
                assertThrows(
                                InvalidOptionException.class,
                                () -> TrainField.ENV.fromJson(Map.of("LR", Map.of("v", 1)), "env"))
                        .getField());
        refused(TrainField.LABELS, List.of("a"));
        refused(TrainField.ANNOTATIONS, "a=b");
    }

    @Test
    void aQuantityGivenTwiceIsRefusedNamingBothFieldsAndNeitherIsDropped() {
        TrainRequest request = new TrainRequest();
        TrainField.RESOURCES.apply(request, Map.of("nvidia.com/gpu", "9"), "resources");
        InvalidOptionException twice =
                assertThrows(InvalidOptionException.class, () -> TrainField.GPU.apply(request, "8", "gpu"));
        assertEquals("gpu", twice.getField());
        assertTrue(
                twice.getMessage()
                        .contains("nvidia.com/gpu given twice (gpu and resources.nvidia.com/gpu): '8' and"
                                + " '9'; give it once"),
                twice.getMessage());
        assertEquals("9", request.resources().get("nvidia.com/gpu"), "neither value is dropped for the other");
        // the same value twice too: the schema, which sees no values across fields, refuses both given
        assertEquals(
                "cpu",
                assertThrows(InvalidOptionException.class, () -> {
                            TrainRequest same = new TrainRequest();
                            TrainField.RESOURCES.apply(same, Map.of("cpu", "2"), "resources");
                            TrainField.CPU.apply(same, "2", "cpu");
                        })
                        .getField());
        // fields apply in the enum's order, the options' in endpoint-options.yaml: the map first, so a request giving
        // both names the quantity's own field, as above (HttpErrorContractTest holds that for messages)
        for (TrainField own : List.of(TrainField.CPU, TrainField.MEMORY, TrainField.GPU)) {
            assertTrue(TrainField.RESOURCES.ordinal() < own.ordinal(), "resources applies before " + own);
        }
    }

    /** A JSON null inside an array or object is refused naming where it is, never a NullPointerException. */
    @Test
    void aNullInsideAListOrMapIsRefusedNamingItsPlace() {
        Map<String, Object> nullEntry = new HashMap<>();
        nullEntry.put("team", null);
        List<String> nullItem = Arrays.asList("python", null);
        for (TrainField field : TrainField.values()) {
            if (!field.inMessages()) {
                continue;
            }
            if (field.kind() == TrainFieldKind.MAP) {
                InvalidOptionException error =
                        assertThrows(InvalidOptionException.class, () -> field.fromJson(nullEntry, field.fieldName()));
                assertEquals(field.fieldName() + ".team", error.getField());
                assertTrue(error.getMessage().contains("null is not a string"), error.getMessage());
            } else if (field.kind() == TrainFieldKind.LIST || field.kind() == TrainFieldKind.WORDS) {
                assertTrue(refused(field, nullItem).getMessage().contains("item 1 is null"), field.fieldName());
            }
        }
    }

    @Test
    void theRangeOfAWholeNumberIncludesBothEnds() {
        assertEquals(5L, FieldValues.wholeNumber(5, "f", 5, 10));
        assertEquals(10L, FieldValues.wholeNumber((short) 10, "f", 5, 10));
        assertEquals(10L, FieldValues.wholeNumber(BigInteger.TEN, "f", 5, 10));
        assertEquals(5L, FieldValues.wholeNumber(BigInteger.valueOf(5), "f", 5, 10));
        for (Object outside : List.of(4, 11L, (byte) 4, BigInteger.valueOf(4), BigInteger.valueOf(11))) {
            InvalidOptionException error =
                    assertThrows(InvalidOptionException.class, () -> FieldValues.wholeNumber(outside, "f", 5, 10));
            assertEquals("f", error.getField());
            assertTrue(
                    error.getMessage().contains(outside + " is out of range; give a whole number from 5 to 10"),
                    error.getMessage());
        }
    }

    @Test
    void aRefusedValueIsDescribedByItsJsonType() {
        assertEquals("an object", FieldValues.describe(Map.of()));
        assertEquals("an array", FieldValues.describe(List.of()));
        assertEquals("the number 1.5", FieldValues.describe(1.5));
        assertEquals("the boolean true", FieldValues.describe(true));
        assertEquals("the string 'x'", FieldValues.describe("x"));
        assertEquals("a Character", FieldValues.describe('x'));
        assertEquals("null", FieldValues.describe(null));
    }

    @Test
    void aFieldIsFoundByTheNameCallersWrite() {
        assertEquals(TrainField.NUM_NODES, TrainField.named("numNodes"));
        assertEquals(null, TrainField.named("numnodes"));
        assertTrue(TrainField.NUM_NODES.inMessages());
        // set by the route that knows the entry point, never by what a message says of itself
        assertFalse(TrainField.IDEMPOTENCY_SCOPE.inMessages());
    }
}
