package io.camelkubeflow.trainer.routes;

import java.util.LinkedHashMap;
import java.util.Map;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;

/** The JSON body of the HTTP API's error answers: {@code {"error": message, "field": field}} (field when known). */
final class ErrorAnswer {
    private static final ObjectMapper JSON = new ObjectMapper();

    private ErrorAnswer() {
    }

    static String json(Throwable cause, String field) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("error", cause.getMessage());
        if (field != null) {
            body.put("field", field);
        }
        try {
            return JSON.writeValueAsString(body);
        } catch (JsonProcessingException impossible) {
            throw new IllegalStateException(impossible);
        }
    }
}
