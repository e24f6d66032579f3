package io.camelkubeflow.trainer.job;

import io.camelkubeflow.trainer.api.TrainJob;
import io.camelkubeflow.trainer.runtime.LauncherDecision;

/**
 * The TrainJob as the API server holds it: created by this submit, adopted (made earlier for the same idempotency
 * key), or, when skipped, the job already running for the same run key.
 */
public record SubmitResult(
        TrainJob trainJob, boolean adopted, boolean skipped, LauncherDecision decision, String idempotencyKey) {}
