package io.camelkubeflow.trainer.logs;

/** Receives log lines as they are read; called from one thread at a time. */
@FunctionalInterface
public interface LogSink {
    void line(String step, String text);

    /** The reader has no more lines at hand for now: a sink that holds lines back delivers them. */
    default void idle() {
    }
}
