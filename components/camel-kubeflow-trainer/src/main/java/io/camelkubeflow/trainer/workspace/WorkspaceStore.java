package io.camelkubeflow.trainer.workspace;

import java.net.URI;
import java.time.Duration;

/**
 * An object store for workspaces too large for a ConfigMap (the operator's S3 bucket, say): each archive is stored once
 * under its digest, and the pods get a short-lived URL that can only read it, never the store's own credentials.
 * Objects outlive the jobs that used them: expire them with the store's lifecycle rules.
 */
public interface WorkspaceStore {
    /** Stores the workspace's archive under its digest unless the store holds it already; true when it uploaded. */
    boolean store(Workspace workspace);

    /** A URL from which a pod can GET the archive (and nothing else) for {@code validity}; made without a request. */
    URI readUrl(Workspace workspace, Duration validity);

    /** How long the pods' URLs stay valid, by default: a day, for jobs that queue or restart. */
    Duration DEFAULT_VALIDITY = Duration.ofDays(1);
}
