package io.camelkubeflow.trainer.job;

import io.camelkubeflow.trainer.support.InvalidOptionException;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * The type of value a {@link TrainField} takes: the Java type a value must have when it reaches the request, and how a
 * value from a JSON message becomes one.
 */
public enum TrainFieldKind {

    /** A String. */
    TEXT(String.class),
    INTEGER(Integer.class),
    LONG(Long.class),
    BOOLEAN(Boolean.class),
    /** A Double; as text, a plain decimal number such as 0.05. */
    DECIMAL(Double.class),
    /** A List of Strings, each one word of a process's argv; as text, split like a shell would. */
    WORDS(List.class),
    /** A List of Strings; as text, comma-separated. */
    LIST(List.class),
    /** A Map from String keys. */
    MAP(Map.class),
    DURATION(Duration.class);

    private final Class<?> javaType;

    TrainFieldKind(Class<?> javaType) {
        this.javaType = javaType;
    }

    public Class<?> javaType() {
        return javaType;
    }

    /**
     * A plain field's value as it reaches the request: of the kind's Java type, a list's items strings; anything else
     * is refused naming the field as the caller wrote it (each entry converts first: options, headers, messages).
     */
    Object check(Object value, String field) {
        boolean strings = !(value instanceof List<?> list) || list.stream().allMatch(String.class::isInstance);
        if (!javaType.isInstance(value) || !strings) {
            String wanted = value instanceof List ? "a list of strings" : "of type " + javaType.getSimpleName();
            throw new InvalidOptionException(field, FieldValues.describe(value) + " is not " + wanted);
        }
        return value;
    }

    /**
     * A value from a JSON request message (HTTP, Kafka) as this field's kind, never converted from another JSON type:
     * text must be a string; a whole number an integer within the field's range; a flag true or false; a list an array
     * of strings (or one string: a command's words are split here, like a shell would, so a refusal names the field);
     * a map an object of strings. Anything else, a null inside an array or object included, is refused naming the
     * field as the message wrote it ({@code labels.team} for a map's entry), before anything is written.
     */
    public Object fromJson(Object value, String field) {
        return switch (this) {
            case TEXT -> jsonType(value, String.class, field, "a string");
            case INTEGER -> (int) FieldValues.wholeNumber(value, field, Integer.MIN_VALUE, Integer.MAX_VALUE);
            case LONG -> FieldValues.wholeNumber(value, field, Long.MIN_VALUE, Long.MAX_VALUE);
            case BOOLEAN -> jsonType(value, Boolean.class, field, "true or false");
            case DECIMAL -> FieldValues.decimal(jsonType(value, Number.class, field, "a number"), field);
            case WORDS -> value instanceof String line ? Shell.split(field, line) : jsonStrings(value, field);
            case LIST -> value instanceof String ? value : jsonStrings(value, field);
            case MAP -> jsonStringMap(value, field);
            case DURATION -> value;
        };
    }

    private static Object jsonType(Object value, Class<?> type, String field, String wanted) {
        if (!type.isInstance(value)) {
            throw new InvalidOptionException(
                    field,
                    FieldValues.describe(value) + " is not " + wanted + "; write it as " + wanted + " in the JSON");
        }
        return value;
    }

    private static List<String> jsonStrings(Object value, String field) {
        if (!(value instanceof List<?> list)) {
            throw new InvalidOptionException(field, FieldValues.describe(value) + " is not an array of strings");
        }
        for (int i = 0; i < list.size(); i++) {
            if (!(list.get(i) instanceof String)) {
                throw new InvalidOptionException(
                        field,
                        "item " + i + " is " + FieldValues.describe(list.get(i))
                                + ", not a string; write every item as a JSON string, e.g. [\"--lr\", \"0.1\"]");
            }
        }
        @SuppressWarnings("unchecked")
        List<String> strings = (List<String>) list;
        return strings;
    }

    private static Map<?, ?> jsonStringMap(Object value, String field) {
        if (!(value instanceof Map<?, ?> map)) {
            throw new InvalidOptionException(field, FieldValues.describe(value) + " is not an object of strings");
        }
        map.forEach((key, item) -> {
            if (!(item instanceof String)) {
                throw new InvalidOptionException(
                        field + "." + key,
                        FieldValues.describe(item) + " is not a string; write it as" + " a JSON string, e.g. \"" + key
                                + "\": \"4\"");
            }
        });
        return map;
    }
}
