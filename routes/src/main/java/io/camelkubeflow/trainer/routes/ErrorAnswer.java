package io.camelkubeflow.trainer.routes;

import java.util.LinkedHashMap;
import java.util.Map;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.camelkubeflow.trainer.support.Printable;
import io.fabric8.kubernetes.client.KubernetesClientException;

/**
 * The JSON body of the HTTP API's error answers: {@code {"error": message, "field": field, "fix": fix}} (field and
 * fix when known), each quoting input only as {@link Printable#escape} shows it.
 */
final class ErrorAnswer {
    private static final ObjectMapper JSON = new ObjectMapper();
    /** What an answer says when the Kubernetes API did not answer at all. */
    static final String API_UNREACHABLE = "Kubernetes API unreachable";

    private ErrorAnswer() {
    }

    /** Whether the Kubernetes API did not answer at all: fabric8 gives a failed connection no status, 0 or -1. */
    static boolean apiUnreachable(KubernetesClientException e) {
        return e.getCode() <= 0;
    }

    static String json(Throwable cause, String field) {
        return json(cause.getMessage(), field, null);
    }

    static String json(String error, String field, String fix) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("error", Printable.escape(error));
        if (field != null) {
            body.put("field", Printable.escape(field));
        }
        if (fix != null) {
            body.put("fix", Printable.escape(fix));
        }
        try {
            return JSON.writeValueAsString(body);
        } catch (JsonProcessingException impossible) {
            throw new IllegalStateException(impossible);
        }
    }
}
