package io.camelkubeflow.trainer.sandbox.store;

import java.util.List;
import java.util.Map;

/** A JSON object or array as Jackson reads it into Maps and Lists; an absent or other value reads as an empty one. */
public final class JsonMaps {
    private JsonMaps() {}

    @SuppressWarnings("unchecked")
    public static Map<String, Object> map(Object value) {
        return value instanceof Map ? (Map<String, Object>) value : Map.of();
    }

    public static List<?> list(Object value) {
        return value instanceof List ? (List<?>) value : List.of();
    }
}
