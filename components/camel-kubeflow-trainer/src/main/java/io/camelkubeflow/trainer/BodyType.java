package io.camelkubeflow.trainer;

/** How the train operation reads the message body. */
public enum BodyType {
    /**
     * A body that is a TrainJob (typed, Map, JSON or YAML) is merged, unless it is the job an earlier step of this
     * component answered the exchange with; any other body is ignored.
     */
    auto,
    /** The body must be a TrainJob. */
    trainJob,
    /** The body is the inline Python script. */
    script,
    /** The body is a workspace: a zip, tar or tar.gz archive (bytes, a stream or a file), or a Workspace read already. */
    workspace,
    /** The body is never read. */
    ignore
}
