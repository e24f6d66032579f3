package io.camelkubeflow.trainer.routes;

import java.util.LinkedHashMap;
import java.util.Map;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.camelkubeflow.trainer.access.AccessDeniedException;
import io.camelkubeflow.trainer.api.TrainJobNotFoundException;
import io.camelkubeflow.trainer.job.PolicyViolationException;
import io.camelkubeflow.trainer.job.TrainJobConflictException;
import io.camelkubeflow.trainer.logs.LogStartTimeoutException;
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
        return json(cause.getMessage(), field, fixFor(cause));
    }

    /** What a caller can do about a refusal whose message says what was wrong but not what to do. */
    private static String fixFor(Throwable cause) {
        if (cause instanceof AccessDeniedException) {
            return "act within the rights you have, or have a Role granting this bound to you";
        }
        if (cause instanceof PolicyViolationException) {
            return "ask within the app's request policy (trainer.policy.*), or have its operator change the rule";
        }
        if (cause instanceof TrainJobNotFoundException) {
            return "check the name and the namespace; GET /trainjobs?namespace=<namespace> lists the TrainJobs there";
        }
        if (cause instanceof TrainJobConflictException) {
            return "send the same request with the same Idempotency-Key to have its job again, or a new key (or"
                    + " another jobName) for a new TrainJob";
        }
        if (cause instanceof LogStartTimeoutException) {
            return "its pods have not started; GET /trainjobs/<name> tells its status, read the log once it runs";
        }
        return null;
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
