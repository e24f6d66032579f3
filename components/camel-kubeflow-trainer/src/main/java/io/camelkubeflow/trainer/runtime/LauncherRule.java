package io.camelkubeflow.trainer.runtime;

/** Which rule chose the launcher, from the most to the least specific. Reported with every TrainJob. */
public enum LauncherRule {
    /** The user forced a launcher for this job. */
    FORCED,
    /** A user image rule (glob on the trainer image) matched. */
    IMAGE_RULE,
    /** The runtime's {@code trainer.kubeflow.org/framework} label names a builtin trainer (torchtune). */
    FRAMEWORK_LABEL,
    /** The runtime's {@code mlPolicy} names a known policy (torch, mpi, jax, xgboost, ...). */
    ML_POLICY,
    /** Nothing in the runtime identifies a launcher: plain python, with a warning. */
    FALLBACK
}
