package io.camelkubeflow.trainer.logs;

import io.camelkubeflow.trainer.support.Printable;
import java.time.Duration;
import java.util.Map;

/** No pod of the step whose log was asked for started within logStartTimeout. The job itself is left as it is. */
public class LogStartTimeoutException extends RuntimeException {
    public LogStartTimeoutException(String namespace, String jobName, Map<String, String> selector, Duration timeout) {
        super(Printable.escape("no pod of TrainJob " + namespace + "/" + jobName + " matching " + selector
                + " started within " + timeout));
    }
}
