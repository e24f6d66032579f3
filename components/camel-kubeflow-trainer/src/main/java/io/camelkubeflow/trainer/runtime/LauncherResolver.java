package io.camelkubeflow.trainer.runtime;

import java.util.List;

import io.camelkubeflow.trainer.job.InvalidTrainRequestException;

/**
 * Chooses how user code is launched on a runtime. Precedence: a forced launcher, then the first user image rule that
 * matches the trainer image, then the runtime itself (torchtune framework label, then mlPolicy), then an explained
 * fallback to plain python. No image names are known here: only the user's rules look at images.
 */
public final class LauncherResolver {

    private LauncherResolver() {
    }

    public static LauncherDecision resolve(TrainingRuntimeDescriptor runtime, String image, List<ImageRule> imageRules,
            Launcher forced) {
        LauncherDecision decision = decide(runtime, image, imageRules, forced);
        if (decision.launcher() == Launcher.MPIRUN && !runtime.hasPolicy("mpi")) {
            throw new InvalidTrainRequestException(decision.rule() == LauncherRule.FORCED ? "launcher" : "imageRules",
                    "mpirun needs an MPI runtime (mlPolicy.mpi provides /etc/mpi/hostfile and the launcher job), but "
                            + runtime.describe() + " has mlPolicy " + runtime.mlPolicies() + " (" + decision.reason()
                            + "); pick an MPI runtime or another launcher");
        }
        return decision;
    }

    private static LauncherDecision decide(TrainingRuntimeDescriptor runtime, String image, List<ImageRule> imageRules,
            Launcher forced) {
        if (forced != null) {
            return new LauncherDecision(forced, LauncherRule.FORCED, "launcher forced to " + forced.optionValue());
        }
        for (ImageRule rule : imageRules) {
            if (rule.matches(image)) {
                return new LauncherDecision(rule.launcher(), LauncherRule.IMAGE_RULE,
                        "image '" + image + "' matches image rule '" + rule + "'");
            }
        }
        String framework = runtime.framework();
        if ("torchtune".equals(framework)) {
            return new LauncherDecision(Launcher.BUILTIN, LauncherRule.FRAMEWORK_LABEL, runtime.describe()
                    + " has framework label 'torchtune': its builtin trainer (tune run) is the launcher");
        }
        String labelNote = framework == null ? "no framework label" : "framework label '" + framework + "'";
        if (runtime.hasPolicy("torch")) {
            return new LauncherDecision(Launcher.TORCHRUN, LauncherRule.ML_POLICY,
                    runtime.describe() + " has mlPolicy.torch (" + labelNote + ")");
        }
        if (runtime.hasPolicy("mpi")) {
            return new LauncherDecision(Launcher.MPIRUN, LauncherRule.ML_POLICY,
                    runtime.describe() + " has mlPolicy.mpi (" + labelNote + ")");
        }
        if (!runtime.mlPolicies().isEmpty()) {
            return new LauncherDecision(Launcher.PYTHON, LauncherRule.ML_POLICY, runtime.describe() + " has mlPolicy."
                    + String.join("/", runtime.mlPolicies()) + " (" + labelNote
                    + "), which sets up distribution through env: plain python");
        }
        return new LauncherDecision(Launcher.PYTHON, LauncherRule.FALLBACK, runtime.describe()
                + " has no mlPolicy and " + labelNote + ", so nothing names a launcher: falling back to plain python;"
                + " set 'launcher' or add an image rule if the image needs torchrun or mpirun");
    }
}
