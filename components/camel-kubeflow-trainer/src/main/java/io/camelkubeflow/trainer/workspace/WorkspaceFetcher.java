package io.camelkubeflow.trainer.workspace;

/**
 * Fetches workspace archives from locations of its own kind (an app's S3 bucket: {@code s3://bucket/key}), so a
 * request may name a project the app can reach and its callers cannot give as a path. Which locations a request may
 * name is the request policy's (its workspace sources), checked before the fetch.
 */
public interface WorkspaceFetcher {
    /** Whether the location is of this fetcher's kind. */
    boolean fetches(String location);

    /**
     * The archive's bytes (a zip, tar or tar.gz); one over {@code maxBytes} is refused without reading it whole.
     *
     * @param field the field that named it, for the refusals ({@link io.camelkubeflow.trainer.support.InvalidOptionException})
     */
    byte[] fetch(String location, long maxBytes, String field);
}
