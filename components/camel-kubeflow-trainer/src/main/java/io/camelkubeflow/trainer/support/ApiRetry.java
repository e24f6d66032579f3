package io.camelkubeflow.trainer.support;

import io.fabric8.kubernetes.api.model.Status;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Retries a Kubernetes API call that failed for a passing reason: {@code 429 Too Many Requests}, {@code 5xx}, or no
 * answer at all (connection refused or broken; a create that may have landed then meets 409 and adopts its job).
 * Every other answer (400, 403, 404, 409, 422, ...) is final and comes back at once with the server's message. The
 * pause before attempt n+1 is drawn from [cap/2, cap] with cap = min(maxBackoff, initialBackoff * 2^(n-1)) ("equal
 * jitter": replicas that failed together do not retry together) and is never shorter than the server's
 * retryAfterSeconds. At most {@code maxAttempts} requests are sent per call.
 *
 * <p>fabric8 clients retry 429 and 5xx themselves (requestRetryBackoffLimit, without jitter); retries are never
 * stacked: a client whose own limit is above 0 gets one attempt per call from here.
 */
public final class ApiRetry {
    private static final Logger LOG = LoggerFactory.getLogger(ApiRetry.class);
    /** Attempts and pauses used when none are configured: at most 5 requests over about 3 s. */
    public static final ApiRetry DEFAULT = new ApiRetry(5, Duration.ofMillis(200), Duration.ofSeconds(5));

    private final int maxAttempts;
    private final long initialBackoffMillis;
    private final long maxBackoffMillis;

    public ApiRetry(int maxAttempts, Duration initialBackoff, Duration maxBackoff) {
        if (maxAttempts < 1) {
            throw new InvalidOptionException(
                    "apiRetryAttempts", "must be at least 1 (1: no retry), was " + maxAttempts);
        }
        this.maxAttempts = maxAttempts;
        this.initialBackoffMillis = Math.max(1, initialBackoff.toMillis());
        this.maxBackoffMillis = Math.max(initialBackoffMillis, maxBackoff.toMillis());
    }

    /** This policy for calls through {@code client}: one attempt when the client retries on its own. */
    public ApiRetry forClient(KubernetesClient client) {
        Integer ownRetries = client.getConfiguration().getRequestRetryBackoffLimit();
        return ownRetries != null && ownRetries > 0
                ? new ApiRetry(1, Duration.ofMillis(initialBackoffMillis), Duration.ofMillis(maxBackoffMillis))
                : this;
    }

    public int maxAttempts() {
        return maxAttempts;
    }

    /** Runs {@code call}, retrying passing failures; {@code what} names the call in logs and in the final error. */
    public <T> T call(String what, Supplier<T> call) {
        long started = System.nanoTime();
        for (int attempt = 1; ; attempt++) {
            try {
                return call.get();
            } catch (KubernetesClientException e) {
                if (!isPassing(e) || attempt >= maxAttempts) {
                    throw attempt == 1 ? e : gaveUp(what, e, attempt, started);
                }
                long pause = pauseMillis(attempt, retryAfterMillis(e));
                LOG.debug(
                        "{} answered {} ({}); attempt {} of {} in {} ms",
                        what,
                        e.getCode(),
                        e.getMessage(),
                        attempt + 1,
                        maxAttempts,
                        pause);
                sleep(pause);
            }
        }
    }

    /** The pause after failed attempt {@code attempt} (1-based). */
    long pauseMillis(int attempt, long retryAfterMillis) {
        long cap = Math.min(maxBackoffMillis, initialBackoffMillis << Math.min(attempt - 1, 20));
        long jittered = ThreadLocalRandom.current().nextLong(cap / 2, cap + 1);
        return Math.max(jittered, retryAfterMillis);
    }

    static boolean isPassing(KubernetesClientException e) {
        return e.getCode() == 429 || e.getCode() >= 500 || (e.getCode() <= 0 && causedByIo(e));
    }

    /** No answer at all: the connection was refused or broke (an API server restarting, a load balancer failing over). */
    private static boolean causedByIo(Throwable e) {
        for (Throwable cause = e.getCause(); cause != null; cause = cause.getCause()) {
            if (cause instanceof IOException) {
                return true;
            }
        }
        return false;
    }

    private static long retryAfterMillis(KubernetesClientException e) {
        Status status = e.getStatus();
        Integer seconds = status == null || status.getDetails() == null
                ? null
                : status.getDetails().getRetryAfterSeconds();
        return seconds == null ? 0 : Math.min(seconds, 60) * 1000L;
    }

    private static KubernetesClientException gaveUp(
            String what, KubernetesClientException last, int attempts, long startedNanos) {
        long millis = (System.nanoTime() - startedNanos) / 1_000_000;
        return new KubernetesClientException(
                what + " failed " + attempts + " times in " + millis + " ms; last answer: " + last.getMessage(),
                last.getCode(),
                last.getStatus());
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new KubernetesClientException("interrupted while waiting to retry", e);
        }
    }
}
