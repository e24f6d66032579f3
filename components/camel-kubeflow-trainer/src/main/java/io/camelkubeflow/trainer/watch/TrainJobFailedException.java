package io.camelkubeflow.trainer.watch;

/** The TrainJob failed (or ended otherwise than waited for); carries the condition's reason and the pod's detail. */
public class TrainJobFailedException extends RuntimeException {
    private final transient WaitResult result;

    public TrainJobFailedException(String message, WaitResult result) {
        super(message);
        this.result = result;
    }

    public WaitResult getResult() {
        return result;
    }
}
