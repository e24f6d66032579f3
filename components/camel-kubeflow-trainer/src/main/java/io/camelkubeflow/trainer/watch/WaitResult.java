package io.camelkubeflow.trainer.watch;

import io.camelkubeflow.trainer.api.TrainJob;
import io.camelkubeflow.trainer.api.TrainJobPhase;
import java.time.Duration;

/**
 * How a wait ended: the TrainJob as last seen, its phase, the deciding condition's reason and message (null while
 * running), the failing pod's detail when one was found, how long the job has existed or took to finish, and what
 * its training code last reported in trainerStatus (null if nothing).
 */
public record WaitResult(
        TrainJob trainJob,
        TrainJobPhase phase,
        String reason,
        String message,
        String podDetail,
        Duration jobDuration,
        TrainJobProgress progress) {}
