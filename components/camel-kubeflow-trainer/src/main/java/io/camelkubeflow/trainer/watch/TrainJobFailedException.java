package io.camelkubeflow.trainer.watch;

import io.camelkubeflow.trainer.support.Printable;

/** The TrainJob failed (or ended otherwise than waited for); carries the condition's reason and the pod's detail. */
public class TrainJobFailedException extends RuntimeException {
    private final transient WaitResult result;

    public TrainJobFailedException(String message, WaitResult result) {
        super(Printable.escape(message));
        this.result = result;
    }

    public WaitResult getResult() {
        return result;
    }
}
