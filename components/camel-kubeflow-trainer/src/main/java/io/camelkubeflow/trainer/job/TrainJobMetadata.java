package io.camelkubeflow.trainer.job;

import io.camelkubeflow.trainer.api.TrainJob;
import io.camelkubeflow.trainer.support.InvalidOptionException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Map;
import java.util.regex.Pattern;

/** Labels, annotations and names this component puts on what it creates, so it can find and adopt them again. */
public final class TrainJobMetadata {
    public static final String DOMAIN = "camelkubeflow.io";
    public static final String MANAGED_BY_LABEL = "app.kubernetes.io/managed-by";
    public static final String MANAGED_BY_VALUE = "camel-kubeflow-trainer";
    /** Kueue's domain: its labels and annotations on a job decide its queue, priority and admission. */
    public static final String KUEUE_DOMAIN = "kueue.x-k8s.io";
    /** Kueue's label naming the LocalQueue that admits a job (the queue option). */
    public static final String QUEUE_LABEL = KUEUE_DOMAIN + "/queue-name";
    /** Kueue's label naming a job's WorkloadPriorityClass (the priorityClass option). */
    public static final String PRIORITY_CLASS_LABEL = KUEUE_DOMAIN + "/priority-class";
    /**
     * Pod annotation holding an inline script, which a downward API volume turns into the script's file: it travels in
     * the TrainJob itself, so a create is one request.
     */
    public static final String SCRIPT_ANNOTATION = DOMAIN + "/script";

    public static final String IDEMPOTENCY_KEY_ANNOTATION = DOMAIN + "/idempotency-key";
    public static final String IDEMPOTENCY_HASH_ANNOTATION = DOMAIN + "/idempotency-key-sha256";
    /** The key space the idempotency key belongs to (an entry point, a caller), when one was given. */
    /** What the request that made the job asked for, part by part ({@link RequestFingerprint}). */
    public static final String REQUEST_FINGERPRINT_ANNOTATION = DOMAIN + "/request-fingerprint";

    public static final String IDEMPOTENCY_SCOPE_ANNOTATION = DOMAIN + "/idempotency-scope";
    /** Label of jobs whose in-flight count is capped together (maxInFlight). */
    public static final String GROUP_LABEL = DOMAIN + "/group";
    /** Label holding a hash of the run key (skipIfRunning); the key itself is in the annotation of the same name. */
    public static final String RUN_KEY_LABEL = DOMAIN + "/run-key";

    public static final String RUN_KEY_ANNOTATION = DOMAIN + "/run-key";
    /** Marks TrainJobs to delete once finished for their TTL, so the reaper can list them. */
    public static final String TTL_LABEL = DOMAIN + "/ttl";

    public static final String TTL_ANNOTATION = DOMAIN + "/ttl-after-finished-seconds";
    /** When the logs operation last read a finished job's log to its end: the TTL runs from then, or from the end. */
    public static final String LOGS_CAPTURED_ANNOTATION = DOMAIN + "/logs-captured";

    public static final String DEFAULT_GROUP = "default";
    public static final String LAUNCHER_ANNOTATION = DOMAIN + "/launcher";
    /** Where the training was told to write what it makes (outputUri), for whoever carries the result onward. */
    public static final String OUTPUT_URI_ANNOTATION = DOMAIN + "/output-uri";
    /** {@code sha256:<hex>} of the code the job runs ({@link TrainJobFactory#codeDigest}). */
    public static final String CODE_DIGEST_ANNOTATION = DOMAIN + "/code-digest";

    public static final String LAUNCHER_RULE_ANNOTATION = DOMAIN + "/launcher-rule";
    /** runtimePatches[].manager of the patches this component writes (a domain-prefixed path, as the CRD asks). */
    public static final String PATCH_MANAGER = DOMAIN + "/camel-kubeflow-trainer";
    /**
     * The W3C trace context of the request that created the job, so the messages about its end continue that trace
     * (header {@link #TRACE_PARENT_HEADER}, as Camel's tracing injects and extracts it).
     */
    public static final String TRACE_PARENT_ANNOTATION = DOMAIN + "/traceparent";

    public static final String TRACE_PARENT_HEADER = "traceparent";
    /** version-traceid-parentid-flags, lowercase hex (W3C Trace Context); an all-zero id is invalid. */
    private static final Pattern TRACE_PARENT =
            Pattern.compile("00-(?!0{32})[0-9a-f]{32}-(?!0{16})[0-9a-f]{16}-[0-9a-f]{2}");

    /** The value if it is a W3C traceparent, else null: a malformed one is dropped, as a tracer would. */
    public static String traceParent(Object value) {
        return value instanceof String text && TRACE_PARENT.matcher(text).matches() ? text : null;
    }

    public static final String DEFAULT_NAME_PREFIX = "trainjob";
    /** Keys longer than this are recorded by hash only, to keep annotations small. */
    static final int MAX_RECORDED_KEY_LENGTH = 512;

    private TrainJobMetadata() {}

    /**
     * The job name for an idempotency key: the prefix, '-', and the first 12 hex digits of the key's SHA-256 (48 bits:
     * a clash between two keys is reported, never silently adopted, because the full hash is compared).
     */
    public static String nameFor(String prefix, String idempotencyKey) {
        return (prefix == null ? DEFAULT_NAME_PREFIX : prefix) + "-"
                + sha256(idempotencyKey).substring(0, 12);
    }

    /**
     * Whether a label or annotation key is the component's own: {@code camelkubeflow.io/*} and the managed-by label.
     * A request cannot set them, or it could pose as another request's job, count against or block an in-flight cap,
     * or mark an end as handled.
     */
    public static boolean isReserved(String key) {
        return key.startsWith(DOMAIN + "/") || MANAGED_BY_LABEL.equals(key);
    }

    /** Whether {@code key} is in Kueue's domain or a subdomain of it ({@code provreq.kueue.x-k8s.io/...}). */
    public static boolean isKueues(String key) {
        int slash = key.indexOf('/');
        String prefix = slash < 0 ? "" : key.substring(0, slash);
        return prefix.equals(KUEUE_DOMAIN) || prefix.endsWith("." + KUEUE_DOMAIN);
    }

    /** Whether the job was given a TTL (its {@link #TTL_LABEL}), so the reaper looks after it. */
    public static boolean hasTtl(TrainJob job) {
        Map<String, String> labels = job.getMetadata().getLabels();
        return labels != null && "true".equals(labels.get(TTL_LABEL));
    }

    /**
     * The key as it identifies a job: within its scope, so that the same key in two scopes (two callers, two entry
     * points) names two jobs, and no one can pre-empt another scope's key.
     */
    public static String scopedKey(String scope, String idempotencyKey) {
        return scope == null ? idempotencyKey : scope + "\n" + idempotencyKey;
    }

    /** A label value standing for a run key of any length. */
    public static String runKeyLabel(String runKey) {
        return sha256(runKey).substring(0, 40);
    }

    public static String sha256(String text) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(digest);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JVM", e);
        }
    }

    /**
     * The annotation by which an events consumer with {@code handledMark=mark} records that it handled a job's end:
     * {@code camelkubeflow.io/handled-<mark>}.
     */
    public static String handledAnnotation(String mark) {
        if (mark == null || !mark.matches("[a-z0-9]([-a-z0-9]{0,53}[a-z0-9])?")) {
            throw new InvalidOptionException(
                    "handledMark",
                    "'" + mark + "' must be 1 to 55 lowercase letters,"
                            + " digits or '-', starting and ending with a letter or digit (it names the annotation "
                            + DOMAIN + "/handled-<mark>)");
        }
        return DOMAIN + "/handled-" + mark;
    }
}
