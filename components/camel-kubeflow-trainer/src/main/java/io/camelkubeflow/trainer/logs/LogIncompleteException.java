package io.camelkubeflow.trainer.logs;

import io.camelkubeflow.trainer.support.Printable;
import java.time.Duration;

/**
 * A follow could not read a pod's log to its end: the TrainJob ended, and for {@code grace} after it the pod's
 * container was still not reported ended (its status was never written, or the pod is stuck terminating), so the
 * follow stops rather than outlive the job. The lines read until then were delivered.
 */
public class LogIncompleteException extends RuntimeException {
    public LogIncompleteException(String namespace, String jobName, String step, String pod, Duration grace) {
        super(Printable.escape("the log of step " + step + " (pod " + pod + ") of TrainJob " + namespace + "/"
                + jobName + " was not read to its end: the job ended and " + grace.toSeconds() + " s later the pod's"
                + " container was still not reported ended"));
    }
}
