package io.camelkubeflow.trainer.runtime;

import io.camelkubeflow.trainer.support.InvalidOptionException;
import java.util.List;

/**
 * Chooses how user code is launched on a runtime. Precedence: a forced launcher, then the first user image rule that
 * matches the trainer image, then the runtime itself (torchtune framework label, then mlPolicy), then an explained
 * fallback to plain python. No image names are known here: only the user's rules look at images.
 */
public final class LauncherResolver {

    private LauncherResolver() {}

    public static LauncherDecision resolve(
            TrainingRuntimeDescriptor runtime, String image, List<ImageRule> imageRules, Launcher forced) {
        LauncherDecision decision = decide(runtime, image, imageRules, forced);
        Launcher launcher = decision.launcher();
        if (launcher.requiresPolicy() && !runtime.hasPolicy(launcher.mlPolicy())) {
            throw new InvalidOptionException(
                    decision.rule() == LauncherRule.FORCED ? "launcher" : "imageRules",
                    launcher.optionValue() + " needs " + launcher.requiredRuntime() + " ("
                            + launcher.requiredRuntimeReason() + "), but " + runtime.describe() + " has mlPolicy "
                            + runtime.mlPolicies() + " (" + decision.reason() + "); pick "
                            + launcher.requiredRuntime() + " or another launcher");
        }
        return decision;
    }

    private static LauncherDecision decide(
            TrainingRuntimeDescriptor runtime, String image, List<ImageRule> imageRules, Launcher forced) {
        if (forced != null) {
            return new LauncherDecision(forced, LauncherRule.FORCED, "launcher forced to " + forced.optionValue());
        }
        for (ImageRule rule : imageRules) {
            if (rule.matches(image)) {
                return new LauncherDecision(
                        rule.launcher(),
                        LauncherRule.IMAGE_RULE,
                        "image '" + image + "' matches image rule '" + rule + "'");
            }
        }
        String framework = runtime.framework();
        for (Launcher launcher : Launcher.values()) {
            if (launcher.framework() != null && launcher.framework().equals(framework)) {
                return new LauncherDecision(
                        launcher,
                        LauncherRule.FRAMEWORK_LABEL,
                        runtime.describe() + " has framework label '" + framework + "': " + launcher.description()
                                + " is the launcher");
            }
        }
        String labelNote = framework == null ? "no framework label" : "framework label '" + framework + "'";
        for (Launcher launcher : Launcher.values()) {
            if (launcher.mlPolicy() != null && runtime.hasPolicy(launcher.mlPolicy())) {
                return new LauncherDecision(
                        launcher,
                        LauncherRule.ML_POLICY,
                        runtime.describe() + " has mlPolicy." + launcher.mlPolicy() + " (" + labelNote + ")");
            }
        }
        if (!runtime.mlPolicies().isEmpty()) {
            return new LauncherDecision(
                    Launcher.PYTHON,
                    LauncherRule.ML_POLICY,
                    runtime.describe() + " has mlPolicy."
                            + String.join("/", runtime.mlPolicies()) + " (" + labelNote
                            + "), which sets up distribution through env: plain python");
        }
        return new LauncherDecision(
                Launcher.PYTHON,
                LauncherRule.FALLBACK,
                runtime.describe()
                        + " has no mlPolicy and " + labelNote
                        + ", so nothing names a launcher: falling back to plain python;"
                        + " set 'launcher' or add an image rule if the image needs torchrun or mpirun");
    }
}
