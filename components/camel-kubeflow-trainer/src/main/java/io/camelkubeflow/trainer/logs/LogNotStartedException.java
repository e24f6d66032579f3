package io.camelkubeflow.trainer.logs;

import io.camelkubeflow.trainer.support.Printable;
import java.util.Map;

/**
 * No pod of the step whose log was asked for has started, and the read was not to wait for one (a start timeout of
 * zero): as {@code kubectl logs} answers for a container still waiting to start. The job itself is left as it is.
 */
public class LogNotStartedException extends RuntimeException {
    public LogNotStartedException(String namespace, String jobName, Map<String, String> selector) {
        super(Printable.escape(
                "no pod of TrainJob " + namespace + "/" + jobName + " matching " + selector + " has started yet"));
    }
}
