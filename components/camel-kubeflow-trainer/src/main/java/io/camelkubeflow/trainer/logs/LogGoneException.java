package io.camelkubeflow.trainer.logs;

import io.camelkubeflow.trainer.support.Printable;

/**
 * The TrainJob has ended (Complete, Failed or deleted) and no pod of the step whose log was asked for is left with a
 * log: none is left, or none ever started (a node still Pending when the job failed): its log went with its pod (the Job controller deletes a failed pod at
 * {@code backoffLimit}, JobSet the pods of a finished job). Neither waiting nor reading again brings it back: a log
 * is collected while the job runs (a follow from its start), or by a cluster log store.
 */
public class LogGoneException extends RuntimeException {
    public LogGoneException(String namespace, String jobName, String step, String end) {
        super(Printable.escape("TrainJob " + namespace + "/" + jobName + " has ended (" + end + ") and no pod of step "
                + step + " is left with a log: it went with its pod, or no pod of it ever started"));
    }
}
