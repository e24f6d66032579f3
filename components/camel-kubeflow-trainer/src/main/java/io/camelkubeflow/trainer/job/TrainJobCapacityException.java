package io.camelkubeflow.trainer.job;

import io.camelkubeflow.trainer.support.Printable;

/**
 * As many TrainJobs of a group as allowed are still running (maxInFlight): nothing was created. Retry later, e.g.
 * with Camel redelivery ({@code onException(TrainJobCapacityException.class).maximumRedeliveries(-1)
 * .redeliveryDelay(60000)}) to queue the request.
 */
public class TrainJobCapacityException extends IllegalStateException {
    public TrainJobCapacityException(String namespace, String group, int inFlight, int max) {
        super(Printable.escape(inFlight + " TrainJobs of group '" + group + "' are in flight in namespace " + namespace
                + " (maxInFlight=" + max + "); nothing was created: retry when one has ended"));
    }
}
