package io.camelkubeflow.trainer.watch;

import java.time.Duration;

/**
 * The TrainJob stayed in a Kueue queue (suspended by Kueue, not admitted) longer than the wait's queueTimeout: the
 * message says what Kueue said of it then (its reason and message, e.g. not enough quota). A
 * {@link TrainJobWaitTimeoutException}, so what a route does with a wait given up on (deleteOnTimeout, its error
 * handler) it does with this one too. The job itself is left as it is.
 */
public class TrainJobQueueTimeoutException extends TrainJobWaitTimeoutException {
    /** @param queue what Kueue said of the job when the bound passed; null when its Workload could not be read */
    public TrainJobQueueTimeoutException(String namespace, String name, Duration queueTimeout, QueueStatus queue) {
        super(
                "TrainJob " + namespace + "/" + name + " was still waiting in Kueue's queue after queueTimeout "
                        + queueTimeout
                        + (queue == null
                                ? " (its Workload could not be read)"
                                : " (" + queue.status()
                                        + (queue.queue() == null ? "" : " in LocalQueue " + queue.queue())
                                        + (queue.reason() == null ? "" : ": " + queue.reason())
                                        + (queue.message() == null ? "" : ": " + queue.message()) + ")"),
                queue == null ? null : new ReportedStatus(queue.status(), queue.reason(), queue.message()));
    }
}
