package io.camelkubeflow.trainer;

import io.camelkubeflow.trainer.api.TrainJob;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.utils.URLUtils;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.net.HttpURLConnection;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import org.apache.camel.health.HealthCheckResultBuilder;
import org.apache.camel.impl.health.AbstractHealthCheck;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Readiness of the component's Kubernetes API: the API server answers, Kubeflow Trainer is installed (the TrainJob
 * API exists) and TrainJobs may be listed in the namespace. One list request of at most one item per call, answered
 * before the call returns, but for a call on a Vert.x event loop, which gets the previous request's answer (the first
 * such call: DOWN, no answer yet; readiness is polled). Both kinds of call share the one request then on its way. Not a
 * liveness check: restarting the app does not bring an API server back. Health endpoints are open to anyone who can
 * reach them, so what it answers names no address: the API server's URL and the network's own words (which name it)
 * go to the log, once per change of the explanation.
 */
final class KubeflowTrainerHealthCheck extends AbstractHealthCheck {
    private static final Logger LOG = LoggerFactory.getLogger(KubeflowTrainerHealthCheck.class);
    /**
     * Vert.x's {@code Context.isOnEventLoopThread()}, looked up rather than linked: Vert.x comes with fabric8's default
     * HTTP client, in the version of the client or of Quarkus; null without Vert.x, where no call is on its loop.
     */
    private static final MethodHandle ON_EVENT_LOOP = eventLoopCheck();

    private final KubernetesClient client;
    private final String namespace;
    /** The last probe's answer; null before the first. */
    private volatile Answer last;
    /** The probe on its way; null when none is. */
    private CompletableFuture<Answer> inFlight;

    KubeflowTrainerHealthCheck(String id, KubernetesClient client, String namespace) {
        super("camel", id);
        this.client = client;
        this.namespace = namespace;
    }

    @Override
    public boolean isLiveness() {
        return false;
    }

    @Override
    protected void doCall(HealthCheckResultBuilder builder, Map<String, Object> options) {
        builder.detail("namespace", namespace);
        Answer answer;
        if (onEventLoop()) {
            // SmallRye Health calls checks on a Vert.x event loop; the client may answer on that very loop (Quarkus's
            // Kubernetes client runs on Quarkus's Vert.x), so waiting here would never end: the last probe answers,
            // and a new one goes out for the next call
            answer = last;
            probe();
            if (answer == null) {
                answer = new Answer(false, "checking the Kubernetes API server: no answer yet");
            }
        } else {
            answer = probe().join();
            // the probe records it too, but perhaps only after join returned
            last = answer;
        }
        if (answer.up()) {
            builder.up();
        } else {
            // the explanation as a detail too: health endpoints (MicroProfile Health) show details, not the message;
            // no stack trace, as health endpoints are open to probes
            builder.message(answer.explanation())
                    .detail("reason", answer.explanation())
                    .down();
        }
    }

    /**
     * Lists at most one TrainJob of the namespace, bounded by the client's request timeout; one request at a time,
     * whose answer is also kept for the calls that do not wait. Never fails: a failure is a DOWN answer.
     */
    private synchronized CompletableFuture<Answer> probe() {
        if (inFlight != null) {
            return inFlight;
        }
        CompletableFuture<Answer> request;
        String url = URLUtils.join(
                        client.getMasterUrl().toString(),
                        "apis",
                        TrainJob.GROUP,
                        TrainJob.VERSION,
                        "namespaces",
                        namespace,
                        "trainjobs")
                + "?limit=1";
        var http = client.getHttpClient();
        try {
            request = http.sendAsync(
                            http.newHttpRequestBuilder()
                                    .uri(url)
                                    .timeout(client.getConfiguration().getRequestTimeout(), TimeUnit.MILLISECONDS)
                                    .build(),
                            String.class)
                    .handle((response, e) -> e != null
                            ? notAnswering(cause(e))
                            : response.isSuccessful()
                                    ? new Answer(true, null)
                                    : explain(response.code(), response.body()));
        } catch (RuntimeException e) {
            request = CompletableFuture.completedFuture(notAnswering(cause(e)));
        }
        inFlight = request;
        CompletableFuture<Answer> sent = request;
        // may run at once, here, when the request failed before it went out
        sent.thenAccept(answer -> answered(sent, answer));
        return sent;
    }

    private synchronized void answered(CompletableFuture<Answer> request, Answer answer) {
        if (!answer.up() && (last == null || !answer.explanation().equals(last.explanation()))) {
            LOG.warn(
                    "Readiness of namespace {} at the API server {}: {}{}",
                    namespace,
                    client.getMasterUrl(),
                    answer.explanation(),
                    answer.detail() == null ? "" : " (" + answer.detail() + ")");
        }
        last = answer;
        if (inFlight == request) {
            inFlight = null;
        }
    }

    /** What went wrong, with what caused it: a client's error often says only "failed" and its cause why. */
    private static String cause(Throwable e) {
        Throwable failure = e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
        return failure.getMessage()
                + (failure.getCause() == null ? "" : " (" + failure.getCause().getMessage() + ")");
    }

    private static MethodHandle eventLoopCheck() {
        try {
            return MethodHandles.publicLookup()
                    .findStatic(
                            Class.forName(
                                    "io.vertx.core.Context", false, KubeflowTrainerHealthCheck.class.getClassLoader()),
                            "isOnEventLoopThread",
                            MethodType.methodType(boolean.class));
        } catch (ReflectiveOperationException e) {
            return null;
        }
    }

    private static boolean onEventLoop() {
        if (ON_EVENT_LOOP == null) {
            return false;
        }
        try {
            return (boolean) ON_EVENT_LOOP.invokeExact();
        } catch (Throwable e) {
            return false;
        }
    }

    /**
     * What a probe found: up, or down and why (the explanation, in the open answer) and with what words of the
     * network or the API server (the detail, only in the log: they may name the API server's address); both null when
     * up.
     */
    private record Answer(boolean up, String explanation, String detail) {
        Answer(boolean up, String explanation) {
            this(up, explanation, null);
        }
    }

    private static Answer notAnswering(String why) {
        return new Answer(false, "the Kubernetes API server does not answer (the app's log says why)", why);
    }

    private Answer explain(int code, String message) {
        return switch (code) {
            case HttpURLConnection.HTTP_NOT_FOUND ->
                new Answer(
                        false,
                        "Kubeflow Trainer is not installed: the"
                                + " Kubernetes API server has no " + TrainJob.GROUP + "/" + TrainJob.VERSION
                                + " trainjobs; install"
                                + " Kubeflow Trainer v2 (its CRDs and controller) in this cluster");
            case HttpURLConnection.HTTP_UNAUTHORIZED, HttpURLConnection.HTTP_FORBIDDEN ->
                new Answer(
                        false,
                        "not allowed to list TrainJobs in namespace " + namespace + " (" + code + "): bind the Role in"
                                + " deploy/ to the app's service account");
            default ->
                new Answer(false, "the Kubernetes API server answered " + code + " (the app's log says more)", message);
        };
    }
}
