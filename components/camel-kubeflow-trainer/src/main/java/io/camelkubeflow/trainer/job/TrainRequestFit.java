package io.camelkubeflow.trainer.job;

import io.camelkubeflow.trainer.api.RuntimePatch;
import io.camelkubeflow.trainer.api.RuntimePatch.ContainerPatch;
import io.camelkubeflow.trainer.api.RuntimePatch.PodSpecPatch;
import io.camelkubeflow.trainer.runtime.Launcher;
import io.camelkubeflow.trainer.runtime.LauncherDecision;
import io.camelkubeflow.trainer.runtime.TrainingRuntimeDescriptor;
import io.camelkubeflow.trainer.support.InvalidOptionException;
import io.camelkubeflow.trainer.workspace.Workspace;
import io.camelkubeflow.trainer.workspace.WorkspaceStaging;
import io.fabric8.kubernetes.api.model.VolumeMount;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * The refusals of a request against the runtime it names and the launcher decided for it, made before the TrainJob is
 * built ({@link TrainJobFactory}): settings the launcher cannot take, an entry point the workspace does not hold, a
 * command that would start the payload on one rank only, another manager's patch mounting over the component's
 * mounts. What differs between launchers is read from {@link Launcher}'s traits.
 */
final class TrainRequestFit {
    private TrainRequestFit() {}

    /** @throws InvalidOptionException naming the field as written and the fix */
    static void check(TrainRequest request, TrainingRuntimeDescriptor runtime, LauncherDecision decision) {
        checkTrainerShape(request, runtime, decision);
        Workspace workspace = request.workspaceContent();
        if (workspace != null) {
            if (request.workspaceUrl() == null) {
                WorkspaceStaging.checkSize(workspace, "workspace");
            }
            checkEntryPoint(request, workspace);
        }
        request.runtimePatches().stream()
                .filter(p -> !TrainJobMetadata.PATCH_MANAGER.equals(p.manager()))
                .forEach(TrainRequestFit::checkOwnMounts);
    }

    /**
     * The builtin trainer's typed config only where the builtin trainer runs (the SDK's BuiltinTrainer needs a
     * torchtune runtime); the image's entrypoint only where the runtime has no program of its own to keep (the SDK's
     * CustomTrainerContainer is refused on a torchtune runtime, and any runtime that sets its trainer's command would
     * run that command in the image instead).
     */
    private static void checkTrainerShape(
            TrainRequest request, TrainingRuntimeDescriptor runtime, LauncherDecision decision) {
        TorchTuneConfig torchtune = request.torchtune();
        if (torchtune.isSet()) {
            if (!decision.launcher().runsItsOwnProgram()
                    || !Objects.equals(decision.launcher().framework(), runtime.framework())) {
                throw new InvalidOptionException(
                        torchtune.firstFieldSet(),
                        "the torchtune settings configure the"
                                + " builtin trainer of a runtime labelled " + TrainingRuntimeDescriptor.FRAMEWORK_LABEL
                                + "=torchtune, but " + runtime.describe() + " runs "
                                + decision.launcher().description() + " (" + decision.reason() + "); pick a torchtune"
                                + " runtime such as torchtune-llama3.2-1b, or give a command, pythonFile or script instead");
            }
            long gpus = request.resources().isEmpty()
                    ? (runtime.trainerJob() == null ? 0 : runtime.trainerJob().nodeGpus())
                    : TrainingRuntimeDescriptor.gpus(request.resources());
            torchtune.checkRuntime(runtime.name(), request.numNodes(), request.numProcPerNode(), gpus);
        }
        if (request.imageEntrypoint()) {
            if (decision.launcher().runsItsOwnProgram()) {
                throw new InvalidOptionException(
                        "imageEntrypoint",
                        runtime.describe() + " runs "
                                + decision.launcher().description() + " (" + decision.reason()
                                + "), which an image's own"
                                + " entrypoint cannot replace; pick a runtime of another framework, e.g. torch-distributed");
            }
            if (runtime.trainerSetsCommand()) {
                throw new InvalidOptionException(
                        "imageEntrypoint",
                        runtime.describe() + " sets its trainer"
                                + " container's command, which the Trainer keeps when a TrainJob gives none (no TrainJob"
                                + " field clears it), so the image's own entrypoint would not run; pick a runtime whose"
                                + " trainer has no command, or give the image's program as command");
            }
        }
    }

    /**
     * The Python file to run is in the workspace (its path as the workspace holds it), and a launcher that starts the
     * whole payload on every rank (mpirun) is the component's to write.
     */
    private static void checkEntryPoint(TrainRequest request, Workspace workspace) {
        if (request.pythonFile() != null) {
            String path =
                    request.pythonFile().startsWith("./") ? request.pythonFile().substring(2) : request.pythonFile();
            if (!workspace.contains(path)) {
                throw new InvalidOptionException(
                        "pythonFile",
                        "'" + request.pythonFile() + "' is not in the"
                                + " workspace, which holds "
                                + workspace.paths().stream()
                                        .filter(p -> p.endsWith(".py"))
                                        .limit(10)
                                        .toList() + "; give the entry point's path inside the workspace");
            }
        }
        Launcher wrapping = request.command() == null
                ? null
                : Launcher.wrappingAllLaunchedBy(request.command().get(0)).orElse(null);
        if (wrapping != null) {
            throw new InvalidOptionException(
                    "command",
                    "a command that runs " + wrapping.optionValue() + " itself"
                            + " would unpack the workspace where " + wrapping.optionValue()
                            + " starts only; give the program"
                            + " without " + wrapping.optionValue()
                            + " and the component runs it on every rank inside the"
                            + " workspace");
        }
    }

    /**
     * A TrainJob body's own patch may not mount over what the component mounts: the API server would refuse the pods
     * (two mounts at one path), or the code would read another script than the one asked for.
     */
    private static void checkOwnMounts(RuntimePatch patch) {
        for (PodSpecPatch pod : patch.podSpecs()) {
            for (List<ContainerPatch> containers : Arrays.asList(pod.containers(), pod.initContainers())) {
                for (ContainerPatch container : containers == null ? List.<ContainerPatch>of() : containers) {
                    for (VolumeMount mount :
                            container.volumeMounts() == null ? List.<VolumeMount>of() : container.volumeMounts()) {
                        String root = mount.getMountPath() == null
                                ? null
                                : TrainJobFactory.componentMountAt(mount.getMountPath());
                        if (root != null) {
                            throw new InvalidOptionException(
                                    "runtimePatches",
                                    "the patch of '" + patch.manager()
                                            + "' mounts at " + mount.getMountPath() + ", over " + root + ", where the"
                                            + " component mounts scripts, workspaces and outputs; mount it elsewhere");
                        }
                    }
                }
            }
        }
    }
}
