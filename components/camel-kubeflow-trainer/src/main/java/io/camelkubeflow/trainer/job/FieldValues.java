package io.camelkubeflow.trainer.job;

import io.camelkubeflow.trainer.support.InvalidOptionException;
import java.math.BigInteger;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * Numbers from a caller's values, taken only as written (never rounded, wrapped or coerced), and a value described as
 * the caller sent it, for refusals that quote it.
 */
public final class FieldValues {
    /** Text {@link #parseWholeNumber} takes: ASCII digits only (a regex's \\d would take any script's). */
    private static final Pattern WHOLE_NUMBER = Pattern.compile("-?[0-9]+");

    /** Text {@link #decimal} takes: ASCII digits, an optional fraction and exponent (no hex, no NaN, no suffix). */
    private static final Pattern DECIMAL_NUMBER = Pattern.compile("-?([0-9]+(\\.[0-9]*)?|\\.[0-9]+)([eE][-+]?[0-9]+)?");

    private FieldValues() {}

    /**
     * A whole number in [min, max] from a Java number; a fraction, or a number outside the range, is refused, never
     * rounded or wrapped.
     */
    public static long wholeNumber(Object value, String field, long min, long max) {
        String range = "a whole number from " + min + " to " + max;
        if (value instanceof Integer || value instanceof Long || value instanceof Short || value instanceof Byte) {
            long number = ((Number) value).longValue();
            if (number < min || number > max) {
                throw new InvalidOptionException(field, value + " is out of range; give " + range);
            }
            return number;
        }
        if (value instanceof BigInteger big) {
            if (big.bitLength() >= 64 || big.longValue() < min || big.longValue() > max) {
                throw new InvalidOptionException(field, value + " is out of range; give " + range);
            }
            return big.longValue();
        }
        throw new InvalidOptionException(field, describe(value) + " is not " + range);
    }

    /**
     * A finite number from a Java number or from text written as a plain decimal ({@code 0.05}, {@code 1},
     * {@code 1e-5}); anything else (a word, a boolean, NaN, an infinity) is refused, never coerced.
     */
    public static double decimal(Object value, String field) {
        double number;
        if (value instanceof Number n && !(value instanceof Float)) {
            number = n.doubleValue();
        } else if (value instanceof String text && DECIMAL_NUMBER.matcher(text).matches()) {
            number = Double.parseDouble(text);
        } else {
            throw new InvalidOptionException(
                    field, describe(value) + " is not a number; write it as a decimal," + " e.g. 0.05");
        }
        if (!Double.isFinite(number)) {
            throw new InvalidOptionException(field, value + " is not a finite number; give a decimal, e.g. 0.05");
        }
        return number;
    }

    /** A whole number in [min, max] given as a Java number ({@link #wholeNumber}) or as text ({@link #parseWholeNumber}). */
    public static long wholeNumberOrDigits(Object value, String field, long min, long max) {
        return value instanceof String text
                ? parseWholeNumber(text, field, min, max)
                : wholeNumber(value, field, min, max);
    }

    /**
     * A whole number in [min, max] written as text (an endpoint option, a header): ASCII digits with an optional
     * leading '-', nothing else. No unit ({@code 2s} is not 2000), sign '+', space, fraction, exponent or other base
     * or script of digits is taken, and a number outside the range is refused, never wrapped.
     */
    public static long parseWholeNumber(String text, String field, long min, long max) {
        String range = "a whole number from " + min + " to " + max;
        if (!WHOLE_NUMBER.matcher(text).matches()) {
            throw new InvalidOptionException(
                    field,
                    "'" + text + "' is not " + range + "; write it in plain digits"
                            + " (no unit, sign '+', space or fraction), e.g. 2");
        }
        BigInteger number = new BigInteger(text);
        if (number.compareTo(BigInteger.valueOf(min)) < 0 || number.compareTo(BigInteger.valueOf(max)) > 0) {
            throw new InvalidOptionException(field, "'" + text + "' is not " + range + "; give one within it");
        }
        return number.longValueExact();
    }

    /** A value as the caller sent it, with its JSON type: {@code the number 1.5}, {@code an object}. */
    public static String describe(Object value) {
        if (value == null) {
            return "null";
        }
        if (value instanceof Map) {
            return "an object";
        }
        if (value instanceof List) {
            return "an array";
        }
        if (value instanceof Number) {
            return "the number " + value;
        }
        if (value instanceof Boolean) {
            return "the boolean " + value;
        }
        return value instanceof String
                ? "the string '" + value + "'"
                : "a " + value.getClass().getSimpleName();
    }
}
