package io.camelkubeflow.trainer.job;

import static io.camelkubeflow.trainer.job.InitializerKind.CACHE;
import static io.camelkubeflow.trainer.job.InitializerKind.HF;
import static io.camelkubeflow.trainer.job.InitializerKind.S3;

import java.util.Arrays;
import java.util.Set;

/**
 * A typed setting of an initializer, declared once: the field suffix callers write after {@code dataset} or
 * {@code model}, the variable the Trainer v2.3 initializer images read it from (their config dataclasses, each field
 * upper-cased, lists comma-separated), the kinds of initializer that read it, and the form its value takes. The
 * credentials are {@link Form#SECRET_KEY} only: a Secret's key the kubelet resolves, never the value itself.
 */
public enum InitializerSetting {
    IGNORE_PATTERNS("IgnorePatterns", "IGNORE_PATTERNS", Set.of(HF, S3), Form.PATTERNS),
    ACCESS_TOKEN("AccessToken", "ACCESS_TOKEN", Set.of(HF), Form.SECRET_KEY),
    ENDPOINT("Endpoint", "ENDPOINT", Set.of(S3), Form.URL),
    REGION("Region", "REGION", Set.of(S3), Form.WORD),
    ROLE_ARN("RoleArn", "ROLE_ARN", Set.of(S3), Form.ARN),
    ACCESS_KEY_ID("AccessKeyId", "ACCESS_KEY_ID", Set.of(S3), Form.SECRET_KEY),
    SECRET_ACCESS_KEY("SecretAccessKey", "SECRET_ACCESS_KEY", Set.of(S3), Form.SECRET_KEY),
    CACHE_METADATA_LOC("CacheMetadataLoc", "METADATA_LOC", Set.of(CACHE), Form.LOCATION),
    /** The cache's data nodes; its cluster is one head more ({@code CLUSTER_SIZE}), as the SDK counts it. */
    CACHE_DATA_NODES("CacheDataNodes", "CLUSTER_SIZE", Set.of(CACHE), Form.NODES),
    CACHE_HEAD_CPU("CacheHeadCpu", "HEAD_CPU", Set.of(CACHE), Form.QUANTITY),
    CACHE_HEAD_MEMORY("CacheHeadMemory", "HEAD_MEM", Set.of(CACHE), Form.QUANTITY),
    CACHE_WORKER_CPU("CacheWorkerCpu", "WORKER_CPU", Set.of(CACHE), Form.QUANTITY),
    CACHE_WORKER_MEMORY("CacheWorkerMemory", "WORKER_MEM", Set.of(CACHE), Form.QUANTITY),
    CACHE_IAM_ROLE("CacheIamRole", "IAM_ROLE", Set.of(CACHE), Form.ARN);

    /** What a setting's value is, and how it is checked and written into the initializer's env. */
    public enum Form {
        /** A list of glob patterns, joined with ',' (so none may hold one). */
        PATTERNS,
        /** {@code secretKeyRef:<secret>/<key>}, held as a SecretKeySelector. */
        SECRET_KEY,
        /** An http(s) URL. */
        URL,
        /** One word: letters, digits, '-', '_'. */
        WORD,
        /** An ARN ({@code arn:partition:service:...}). */
        ARN,
        /** A location URI ({@code scheme://...}). */
        LOCATION,
        /** A whole number of at least 2. */
        NODES,
        /** A Kubernetes quantity. */
        QUANTITY
    }

    private final String suffix;
    private final String env;
    private final Set<InitializerKind> kinds;
    private final Form form;

    InitializerSetting(String suffix, String env, Set<InitializerKind> kinds, Form form) {
        this.suffix = suffix;
        this.env = env;
        this.kinds = kinds;
        this.form = form;
    }

    /** The field callers write for this setting of {@code step}: {@code datasetEndpoint}. */
    public String field(InitializerStep step) {
        return step.field(suffix);
    }

    /** The variable the initializer image reads. */
    public String env() {
        return env;
    }

    public boolean readBy(InitializerKind kind) {
        return kinds.contains(kind);
    }

    public Form form() {
        return form;
    }

    /** The kinds that read it, for messages: {@code s3}. */
    String kindsText() {
        return String.join(
                " or ",
                Arrays.stream(InitializerKind.values())
                        .filter(kinds::contains)
                        .map(InitializerKind::scheme)
                        .toList());
    }
}
