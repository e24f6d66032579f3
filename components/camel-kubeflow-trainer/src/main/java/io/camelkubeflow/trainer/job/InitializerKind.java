package io.camelkubeflow.trainer.job;

import java.util.Locale;

/**
 * Which of the Trainer's initializers fetches a dataset or model: the storage URI's scheme decides it, as the
 * initializer images dispatch on it ({@code STORAGE_URI}), or a request names it explicitly ({@code datasetKind}).
 */
public enum InitializerKind {
    /** The Hugging Face Hub: {@code hf://org/name}. */
    HF,
    /** S3-compatible storage: {@code s3://bucket/path}. */
    S3,
    /** The Trainer's data cache (datasets only): {@code cache://schema/table}. */
    CACHE;

    /** The URI scheme and the option value: hf, s3 or cache. */
    public String scheme() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** The kind whose scheme or option value is {@code text}, or null. */
    public static InitializerKind of(String text) {
        for (InitializerKind kind : values()) {
            if (kind.scheme().equals(text)) {
                return kind;
            }
        }
        return null;
    }
}
