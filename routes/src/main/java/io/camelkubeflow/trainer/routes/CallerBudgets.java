package io.camelkubeflow.trainer.routes;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import java.time.Duration;

/**
 * How many requests each caller may send: a token bucket per authenticated user, refilled at {@code perSecond} up to
 * {@code burst}, so that no one caller can turn its request rate into load on the API server (each request costs
 * access reviews and reads). Buckets of callers idle for a minute are dropped, and at most {@link #MAX_CALLERS} are
 * kept; a dropped bucket starts full again, which an idle caller's would be anyway.
 */
final class CallerBudgets {
    static final long MAX_CALLERS = 100_000;

    private final double perSecond;
    private final double burst;
    private final Cache<String, Bucket> buckets;

    /** @param perSecond requests a second each caller may send over time; 0 or less: no limit */
    CallerBudgets(double perSecond, int burst) {
        this.perSecond = perSecond;
        this.burst = Math.max(1, burst);
        this.buckets = Caffeine.newBuilder()
                .expireAfterAccess(Duration.ofMinutes(1))
                .maximumSize(MAX_CALLERS)
                .build();
    }

    /** @return 0 when the caller may send this request now, else the whole seconds until it may send one */
    long take(String user, long nowNanos) {
        if (perSecond <= 0) {
            return 0;
        }
        return buckets.get(user, u -> new Bucket(burst, nowNanos)).take(nowNanos, perSecond, burst);
    }

    private static final class Bucket {
        private double tokens;
        private long refilledAt;

        Bucket(double tokens, long refilledAt) {
            this.tokens = tokens;
            this.refilledAt = refilledAt;
        }

        synchronized long take(long nowNanos, double perSecond, double burst) {
            tokens = Math.min(burst, tokens + (nowNanos - refilledAt) / 1e9 * perSecond);
            refilledAt = nowNanos;
            if (tokens >= 1) {
                tokens -= 1;
                return 0;
            }
            return (long) Math.ceil((1 - tokens) / perSecond);
        }
    }
}
