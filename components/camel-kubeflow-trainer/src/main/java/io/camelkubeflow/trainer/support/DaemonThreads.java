package io.camelkubeflow.trainer.support;

import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;

/** Threads of the component's own timers and pools: named for thread dumps, and daemons, so they never hold a JVM up. */
public final class DaemonThreads {
    private DaemonThreads() {}

    /** Threads named {@code kubeflow-trainer-<purpose>-1}, {@code -2}, ... */
    public static ThreadFactory named(String purpose) {
        AtomicInteger count = new AtomicInteger();
        return runnable -> {
            Thread thread = new Thread(runnable, "kubeflow-trainer-" + purpose + "-" + count.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        };
    }
}
