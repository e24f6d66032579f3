package io.camelkubeflow.trainer.routes;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.camelkubeflow.trainer.access.AccessDeniedException;
import io.camelkubeflow.trainer.api.TrainJobNotFoundException;
import io.camelkubeflow.trainer.job.PolicyViolationException;
import io.camelkubeflow.trainer.job.TrainJobConflictException;
import io.camelkubeflow.trainer.job.TrainJobHeldByKueueException;
import io.camelkubeflow.trainer.logs.LogGoneException;
import io.camelkubeflow.trainer.logs.LogNotStartedException;
import io.camelkubeflow.trainer.logs.LogStartTimeoutException;
import io.camelkubeflow.trainer.runtime.RuntimeNotFoundException;
import io.camelkubeflow.trainer.support.InvalidOptionException;
import io.camelkubeflow.trainer.support.Printable;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.ext.web.RoutingContext;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * An error answer of the HTTP API, as RFC 9457 problem details ({@value #MEDIA_TYPE}): {@code type} (a URI per kind of
 * problem, {@link Problem}), {@code title}, {@code status}, {@code detail} (what went wrong), {@code instance} (the
 * request's path) and, where known, the members {@code field} (as the caller wrote it) and {@code fix} (what to send
 * instead); each quoting input only as {@link Printable#escape} shows it.
 */
record ErrorAnswer(Problem problem, int status, String detail, String field, String fix) {
    static final String MEDIA_TYPE = "application/problem+json";
    /** Where the problem types are named; each type is this and the problem's slug. */
    static final String TYPES = "https://camelkubeflow.io/problems/";
    /** What an answer says when the Kubernetes API did not answer at all. */
    static final String API_UNREACHABLE = "Kubernetes API unreachable";

    private static final ObjectMapper JSON = new ObjectMapper();

    /** The kinds of problem the API answers with, each a stable type URI (docs/http-api.md describes them). */
    enum Problem {
        INVALID_FIELD("invalid-field", "A field of the request is invalid", 400),
        UNAUTHENTICATED("unauthenticated", "No valid bearer token", 401),
        ACCESS_DENIED("access-denied", "The caller may not do this", 403),
        POLICY_VIOLATION("policy-violation", "The request policy does not allow this", 403),
        NOT_FOUND("not-found", "No such TrainJob or runtime", 404),
        NO_SUCH_OPERATION("no-such-operation", "No operation has this path", 404),
        METHOD_NOT_ALLOWED("method-not-allowed", "No operation of this path takes this method", 405),
        SUSPENDED("suspended", "The TrainJob is suspended", 409),
        NOT_STARTED("not-started", "No pod of the TrainJob has started yet", 409),
        NAME_TAKEN("name-taken", "The TrainJob's name is taken by another request", 409),
        HELD_BY_KUEUE("held-by-kueue", "Kueue decides when the TrainJob runs", 409),
        LOG_GONE("log-gone", "The TrainJob has ended and its pods, with their logs, are gone", 410),
        BODY_TOO_LARGE("body-too-large", "The request body is too large", 413),
        UNSUPPORTED_MEDIA_TYPE("unsupported-media-type", "The request body is not JSON", 415),
        KEY_REUSED("idempotency-key-reused", "The idempotency key was used for another request", 422),
        RATE_LIMITED("rate-limited", "Too many requests", 429),
        LOG_NOT_STARTED("log-not-started", "The TrainJob's pods did not start in time", 504),
        KUBERNETES_REFUSED("kubernetes-refused", "The Kubernetes API refused the request", 400),
        KUBERNETES_ERROR("kubernetes-error", "The Kubernetes API failed", 502),
        UNAVAILABLE("unavailable", "A service the request needs is unavailable", 503),
        INTERNAL_ERROR("internal-error", "The app failed", 500);

        private final String slug;
        private final String title;
        private final int status;

        Problem(String slug, String title, int status) {
            this.slug = slug;
            this.title = title;
            this.status = status;
        }

        String type() {
            return TYPES + slug;
        }

        String title() {
            return title;
        }

        /** The answer of this kind, at its usual status. */
        ErrorAnswer answer(String detail, String field, String fix) {
            return new ErrorAnswer(this, status, detail, field, fix);
        }
    }

    /** Whether the Kubernetes API did not answer at all: fabric8 gives a failed connection no status, 0 or -1. */
    static boolean apiUnreachable(KubernetesClientException e) {
        return e.getCode() <= 0;
    }

    /** A refusal the component or the app threw, as its kind of problem, with what a caller can do about it. */
    static ErrorAnswer of(Throwable cause, String field) {
        Problem problem = cause instanceof InvalidOptionException && !(cause instanceof RuntimeNotFoundException)
                ? Problem.INVALID_FIELD
                : cause instanceof HttpAuthentication.UnauthenticatedException
                        ? Problem.UNAUTHENTICATED
                        : cause instanceof AccessDeniedException
                                ? Problem.ACCESS_DENIED
                                : cause instanceof PolicyViolationException
                                        ? Problem.POLICY_VIOLATION
                                        : cause instanceof TrainJobNotFoundException
                                                        || cause instanceof RuntimeNotFoundException
                                                ? Problem.NOT_FOUND
                                                : cause instanceof TrainJobConflictException conflict
                                                        ? conflict.getDiffering()
                                                                        .isEmpty()
                                                                ? Problem.NAME_TAKEN
                                                                : Problem.KEY_REUSED
                                                        : cause instanceof TrainJobHeldByKueueException
                                                                ? Problem.HELD_BY_KUEUE
                                                                : cause instanceof LogNotStartedException
                                                                        ? Problem.NOT_STARTED
                                                                        : cause instanceof LogGoneException
                                                                                ? Problem.LOG_GONE
                                                                                : cause
                                                                                                instanceof
                                                                                                LogStartTimeoutException
                                                                                        ? Problem.LOG_NOT_STARTED
                                                                                        : Problem.INTERNAL_ERROR;
        return problem.answer(cause.getMessage(), field, fixFor(cause));
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
        if (cause instanceof TrainJobHeldByKueueException) {
            return "let Kueue admit it (its status says why it waits: GET /trainjobs/<name>), or suspend it, which"
                    + " deactivates its Workload, and resume it later to queue it again";
        }
        if (cause instanceof LogNotStartedException) {
            return "read the log once a pod runs (GET /trainjobs/<name> tells its status), or add follow=true to wait"
                    + " for one to start";
        }
        if (cause instanceof LogGoneException) {
            return "a log must be collected while the job runs: follow it (follow=true) from its start, or have the"
                    + " cluster ship pod logs to a log store and read it there";
        }
        if (cause instanceof LogStartTimeoutException) {
            return "its pods have not started; GET /trainjobs/<name> tells its status, read the log once it runs";
        }
        return null;
    }

    /** The same problem at another status (the Kubernetes API's own refusals keep theirs). */
    ErrorAnswer at(int otherStatus) {
        return new ErrorAnswer(problem, otherStatus, detail, field, fix);
    }

    /** The problem details of this answer to a request of the path {@code instance} (no query). */
    String json(String instance) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("type", problem.type());
        body.put("title", problem.title());
        body.put("status", status);
        body.put("detail", Printable.escape(detail));
        if (instance != null) {
            body.put("instance", Printable.escape(instance));
        }
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

    /** Ends a Vert.x response with this answer (its other headers set before). */
    void send(RoutingContext context) {
        send(context.response(), context.request().path());
    }

    /** Ends the response to a request of the path {@code instance} with this answer. */
    void send(HttpServerResponse response, String instance) {
        response.setChunked(false)
                .setStatusCode(status)
                .putHeader("Content-Type", MEDIA_TYPE)
                .end(json(instance));
    }
}
