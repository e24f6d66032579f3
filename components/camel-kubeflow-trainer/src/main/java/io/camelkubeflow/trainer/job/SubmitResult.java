package io.camelkubeflow.trainer.job;

import io.camelkubeflow.trainer.api.TrainJob;
import io.camelkubeflow.trainer.runtime.LauncherDecision;

/** The TrainJob as the API server holds it, whether this submit created it or adopted an existing one. */
public record SubmitResult(TrainJob trainJob, boolean adopted, LauncherDecision decision, String idempotencyKey) {
}
