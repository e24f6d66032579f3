package io.camelkubeflow.trainer.runtime;

/** The launcher chosen for a TrainJob, the rule that chose it and a sentence saying why. */
public record LauncherDecision(Launcher launcher, LauncherRule rule, String reason) {}
