package io.camelkubeflow.trainer.watch;

import io.camelkubeflow.trainer.api.TrainJobPhase;
import io.camelkubeflow.trainer.support.InvalidOptionException;

/** The statuses a wait can wait for: every phase but Created. */
public enum WaitTarget {
    COMPLETE(TrainJobPhase.COMPLETE),
    FAILED(TrainJobPhase.FAILED),
    RUNNING(TrainJobPhase.RUNNING),
    SUSPENDED(TrainJobPhase.SUSPENDED);

    private final TrainJobPhase phase;

    WaitTarget(TrainJobPhase phase) {
        this.phase = phase;
    }

    public TrainJobPhase phase() {
        return phase;
    }

    /** As users write it (Complete), which Camel's catalog lists and its type converter matches case-insensitively. */
    @Override
    public String toString() {
        return phase.displayName();
    }

    /** Parses a wanted status as users write it: Complete, Failed, Running or Suspended, in any case. */
    public static WaitTarget parse(String field, String value) {
        for (WaitTarget target : values()) {
            if (target.name().equalsIgnoreCase(value.trim())) {
                return target;
            }
        }
        throw new InvalidOptionException(
                field, "'" + value + "' is not a status to wait for; use Complete," + " Failed, Running or Suspended");
    }
}
