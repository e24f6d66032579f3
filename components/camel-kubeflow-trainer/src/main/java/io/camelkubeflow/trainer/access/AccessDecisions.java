package io.camelkubeflow.trainer.access;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import java.time.Duration;
import java.util.concurrent.atomic.LongAdder;

/**
 * The API server's answers to access reviews, each kept for a short time by the full attribute set it answered (the
 * caller's user, groups and extra, and the verb, resource, subresource, namespace and name), as kube-rbac-proxy and the
 * API server's own webhook authorizer keep theirs: a caller repeating a request costs the API server one review per
 * TTL, not one per request. Bounded in size; a revoked right holds for at most the TTL.
 */
public final class AccessDecisions {
    /** How many answers are kept at most; the least used go first. */
    public static final long MAX_ENTRIES = 10_000;

    private final Cache<Key, Decision> answers;
    private final LongAdder hits = new LongAdder();
    private final LongAdder misses = new LongAdder();

    /** @param ttl how long an answer is kept, allowed or denied; zero keeps none */
    public AccessDecisions(Duration ttl) {
        // evictions run on the calling thread: an answer past its TTL is never served while a pool catches up
        answers = ttl.isZero()
                ? null
                : Caffeine.newBuilder()
                        .expireAfterWrite(ttl)
                        .maximumSize(MAX_ENTRIES)
                        .executor(Runnable::run)
                        .build();
    }

    /** The answer kept for this caller and access, or null (counted as a hit or a miss). */
    Decision find(Caller caller, Access access) {
        Decision kept = answers == null ? null : answers.getIfPresent(new Key(caller, access));
        (kept == null ? misses : hits).increment();
        return kept;
    }

    void keep(Caller caller, Access access, Decision decision) {
        if (answers != null) {
            answers.put(new Key(caller, access), decision);
        }
    }

    /** Reviews answered from here, not asked of the API server. */
    public long hits() {
        return hits.sum();
    }

    /** Reviews asked of the API server. */
    public long misses() {
        return misses.sum();
    }

    /** What the API server said: allowed, or denied and why (null when it gave no reason). */
    record Decision(boolean allowed, String reason) {}

    private record Key(Caller caller, Access access) {}
}
