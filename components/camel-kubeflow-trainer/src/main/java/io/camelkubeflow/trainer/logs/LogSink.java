package io.camelkubeflow.trainer.logs;

/**
 * Receives log lines as they are read; called from one thread at a time, on the reader's executor. Following many logs
 * holds no thread per reader, so a sink should not wait: one that cannot take more now says so in {@link #ready}.
 */
@FunctionalInterface
public interface LogSink {
    void line(String step, String text);

    /** The reader has no more lines at hand for now: a sink that holds lines back delivers them. */
    default void idle() {}

    /**
     * Whether the sink takes more lines now; the reader asks after each batch of the lines it had at hand. When it does
     * not (a slow HTTP client), it answers false and runs
     * {@code resume} once it does; the reader takes no more lines, and asks the API server for no more bytes once its
     * buffer is full, until then.
     */
    default boolean ready(Runnable resume) {
        return true;
    }
}
