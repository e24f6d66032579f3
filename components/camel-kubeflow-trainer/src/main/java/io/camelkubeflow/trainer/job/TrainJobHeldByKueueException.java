package io.camelkubeflow.trainer.job;

import io.camelkubeflow.trainer.support.Printable;

/**
 * What was asked of a TrainJob is Kueue's to decide: it waits in a LocalQueue, and Kueue unsuspends it when it admits
 * it (a job resumed by hand would be suspended again). Nothing was written.
 */
public class TrainJobHeldByKueueException extends IllegalStateException {
    public TrainJobHeldByKueueException(String namespace, String name, String why) {
        super(Printable.escape("TrainJob " + namespace + "/" + name + " is held by Kueue: " + why));
    }
}
