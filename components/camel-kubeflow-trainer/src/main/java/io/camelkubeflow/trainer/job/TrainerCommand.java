package io.camelkubeflow.trainer.job;

import io.camelkubeflow.trainer.runtime.Launcher;
import io.camelkubeflow.trainer.support.InvalidOptionException;
import io.camelkubeflow.trainer.workspace.WorkspaceBootstrap;
import java.util.ArrayList;
import java.util.List;

/**
 * The trainer.command and trainer.args that run a payload under a launcher. Without packages to install the payload
 * is passed straight through (the user's args stay in trainer.args); with packages it becomes one bash script that
 * installs them and then {@code exec}s the same argv, every word quoted so it arrives exactly as given.
 */
public record TrainerCommand(List<String> command, List<String> args) {

    /**
     * Builds the command for a request whose payload was checked by {@link TrainRequestValidator}.
     *
     * @param pythonFile the file to run: the request's pythonFile, or where the inline script is staged; null for a
     *                   command payload
     * @param variables  the names of the trainer's env, which a launcher that starts ranks elsewhere hands on
     */
    public static TrainerCommand build(
            Launcher launcher, TrainRequest request, String pythonFile, List<String> variables) {
        if (request.imageEntrypoint()) {
            // no command: the image's ENTRYPOINT runs, with the args (if any) in place of its CMD
            return new TrainerCommand(null, request.args());
        }
        if (request.torchtune().isSet()) {
            // the SDK's BuiltinTrainer: the Trainer's torch plugin sees this entrypoint and completes it
            List<String> args =
                    new ArrayList<>(request.torchtune().args(request.dataset().uri()));
            if (request.args() != null) {
                args.addAll(request.args());
            }
            checkSize("args", args, "");
            return new TrainerCommand(new ArrayList<>(TorchTuneConfig.ENTRYPOINT), args);
        }
        List<String> command = request.command();
        if (launcher.fileRunner() == null) {
            // a launcher with its own program (tune run): the user gives its args, or replaces it with a command
            if (pythonFile != null) {
                throw new InvalidOptionException(
                        request.script() != null ? "script" : "pythonFile",
                        "the runtime runs " + launcher.description() + ", which cannot run a Python file; give"
                                + " 'args' (config overrides) or a full 'command', or force launcher=torchrun");
            }
            if (command != null
                    && !command.subList(0, Math.min(2, command.size())).equals(TorchTuneConfig.ENTRYPOINT)
                    && !request.verbatimCommand()) {
                // the SDK refuses a custom trainer on a builtin runtime too: the builtin program is the runtime's point
                throw new InvalidOptionException(
                        "command",
                        "the runtime runs " + launcher.description() + ", its"
                                + " own program, which a command of another program would replace; give 'args' (config"
                                + " overrides), the torchtune* settings or a 'tune run ...' command, or pick a runtime of"
                                + " another framework (e.g. torch-distributed) for your own program");
            }
            if (command == null) {
                if (!request.packages().isEmpty()) {
                    throw new InvalidOptionException(
                            "packages",
                            "packages are installed before a command, but"
                                    + " only 'args' were given for " + launcher.description() + "; give the full"
                                    + " 'command' as well");
                }
                return new TrainerCommand(null, request.args());
            }
        } else if (command == null && pythonFile == null) {
            throw new InvalidOptionException(
                    "command/pythonFile/script",
                    "no payload given; give exactly one"
                            + " of command (a program and its arguments), pythonFile (a .py path in the image) or script"
                            + " (inline Python source)");
        }

        boolean selfLaunched = command != null && (request.verbatimCommand() || launcher.launchedBy(command.get(0)));
        List<String> program = new ArrayList<>();
        if (pythonFile != null) {
            program.addAll(launcher.fileRunner());
            program.add(pythonFile);
        } else {
            if (!selfLaunched) {
                program.addAll(launcher.commandRunner());
            }
            program.addAll(command);
        }
        List<String> exports = selfLaunched ? List.of() : launcher.exports(variables);
        for (String variable : exports.isEmpty() ? List.<String>of() : variables) {
            if (variable.startsWith("-")) {
                throw new InvalidOptionException(
                        "env",
                        "'" + variable + "' starts with '-': mpirun hands each variable"
                                + " to the ranks as -x NAME and would read this one as an option; rename it");
            }
        }
        List<String> prefix = selfLaunched ? List.of() : concat(launcher.outerLauncher(), exports);
        List<String> userArgs = request.args() == null ? List.of() : request.args();
        // inside the outer launcher, so under mpirun every rank's node gets the workspace before its code starts
        List<String> inWorkspace = request.workspaceContent() == null
                ? List.of()
                : WorkspaceBootstrap.command(
                        request.workspaceContent(),
                        request.workspaceUrl() != null,
                        launcher.installsIntoUserSite(),
                        request.pipIndexUrls());

        TrainerCommand result;
        if (request.packages().isEmpty()) {
            result = new TrainerCommand(concat(prefix, concat(inWorkspace, program)), request.args());
        } else {
            String script = installScript(request, launcher.installsIntoUserSite()) + "exec "
                    + Shell.join(concat(program, userArgs)) + "\n";
            // under an outer launcher (mpirun) the whole script runs on every rank, so each node installs for itself
            result = new TrainerCommand(concat(prefix, concat(inWorkspace, List.of("bash", "-c", script))), null);
        }
        checkSize(
                "command",
                result.command(),
                exports.isEmpty()
                        ? ""
                        : " (under mpirun each of the " + variables.size() + " variables takes two: -x NAME)");
        checkSize("args", result.args(), "");
        return result;
    }

    private static String installScript(TrainRequest request, boolean userSite) {
        StringBuilder script = new StringBuilder("set -euo pipefail\nexport PIP_DISABLE_PIP_VERSION_CHECK=1\n");
        List<String> pip =
                new ArrayList<>(List.of("python", "-m", "pip", "install", "--quiet", "--no-warn-script-location"));
        if (userSite) {
            pip.add("--user");
        }
        List<String> indexUrls = request.pipIndexUrls();
        for (int i = 0; i < indexUrls.size(); i++) {
            pip.add(i == 0 ? "--index-url" : "--extra-index-url");
            pip.add(indexUrls.get(i));
        }
        pip.addAll(request.packages());
        script.append(Shell.join(pip)).append('\n');
        return script.toString();
    }

    private static void checkSize(String field, List<String> words, String why) {
        if (words != null && words.size() > TrainRequestValidator.MAX_LIST_ITEMS) {
            throw new InvalidOptionException(
                    field,
                    "the trainer " + field + " would have " + words.size()
                            + " items" + why + "; the TrainJob CRD allows at most "
                            + TrainRequestValidator.MAX_LIST_ITEMS
                            + "; pass the rest in a config file");
        }
    }

    private static List<String> concat(List<String> a, List<String> b) {
        List<String> all = new ArrayList<>(a);
        all.addAll(b);
        return all;
    }
}
