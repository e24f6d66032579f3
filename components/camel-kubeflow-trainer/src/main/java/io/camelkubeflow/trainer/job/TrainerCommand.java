package io.camelkubeflow.trainer.job;

import java.util.ArrayList;
import java.util.List;

import io.camelkubeflow.trainer.runtime.Launcher;

/**
 * The trainer.command and trainer.args that run a payload under a launcher. Without packages to install the payload
 * is passed straight through (the user's args stay in trainer.args); with packages it becomes one bash script that
 * installs them and then {@code exec}s the same argv, every word quoted so it arrives exactly as given.
 */
public record TrainerCommand(List<String> command, List<String> args) {

    /** mpirun with the hostfile the MPI plugin mounts; the controller sets slots and OMPI_MCA_* itself. */
    public static final List<String> MPIRUN = List.of("mpirun", "--hostfile", "/etc/mpi/hostfile");

    /**
     * Builds the command for a request whose payload was checked by {@link TrainRequestValidator}.
     *
     * @param pythonFile the file to run: the request's pythonFile, or where the inline script is staged; null for a
     *                   command payload
     */
    public static TrainerCommand build(Launcher launcher, TrainRequest request, String pythonFile) {
        List<String> command = request.command();
        if (launcher == Launcher.BUILTIN) {
            if (pythonFile != null) {
                throw new InvalidTrainRequestException(request.script() != null ? "script" : "pythonFile",
                        "the runtime's builtin trainer (tune run) cannot run a Python file; give 'args' (config"
                                + " overrides) or a full 'command', or force launcher=torchrun");
            }
            if (command == null) {
                if (!request.packages().isEmpty()) {
                    throw new InvalidTrainRequestException("packages", "packages are installed before a command, but"
                            + " only 'args' were given for the builtin trainer; give the full 'command' as well");
                }
                return new TrainerCommand(null, request.args());
            }
        } else if (command == null && pythonFile == null) {
            throw new InvalidTrainRequestException("command/pythonFile/script", "no payload given; give exactly one"
                    + " of command (a program and its arguments), pythonFile (a .py path in the image) or script"
                    + " (inline Python source)");
        }

        boolean selfLaunched = command != null
                && (request.verbatimCommand() || launchesItself(launcher, command.get(0)));
        List<String> program = new ArrayList<>();
        if (pythonFile != null) {
            program.add(launcher == Launcher.TORCHRUN ? "torchrun" : "python");
            program.add(pythonFile);
        } else {
            if (launcher == Launcher.TORCHRUN && !selfLaunched) {
                // torchrun starts a non-Python program on each local rank only when told not to prepend python
                program.add("torchrun");
                program.add("--no-python");
            }
            program.addAll(command);
        }
        List<String> prefix = launcher == Launcher.MPIRUN && !selfLaunched ? MPIRUN : List.of();
        List<String> userArgs = request.args() == null ? List.of() : request.args();

        TrainerCommand result;
        if (request.packages().isEmpty()) {
            result = new TrainerCommand(concat(prefix, program), request.args());
        } else {
            String script = installScript(request, launcher == Launcher.MPIRUN)
                    + "exec " + Shell.join(concat(program, userArgs)) + "\n";
            // under MPI the whole script runs on every rank, so each node installs into its own user site
            result = new TrainerCommand(concat(prefix, List.of("bash", "-c", script)), null);
        }
        checkSize("command", result.command());
        checkSize("args", result.args());
        return result;
    }

    /** The user wrote the launcher themselves (e.g. command "torchrun --nnodes ... train.py"): do not add it twice. */
    private static boolean launchesItself(Launcher launcher, String program) {
        String base = program.substring(program.lastIndexOf('/') + 1);
        return (launcher == Launcher.TORCHRUN && base.equals("torchrun"))
                || (launcher == Launcher.MPIRUN && base.equals("mpirun"));
    }

    private static String installScript(TrainRequest request, boolean userSite) {
        StringBuilder script = new StringBuilder("set -euo pipefail\nexport PIP_DISABLE_PIP_VERSION_CHECK=1\n");
        List<String> pip = new ArrayList<>(List.of("python", "-m", "pip", "install", "--quiet",
                "--no-warn-script-location"));
        if (userSite) {
            // the MPI user is not root
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

    private static void checkSize(String field, List<String> words) {
        if (words != null && words.size() > TrainRequestValidator.MAX_LIST_ITEMS) {
            throw new InvalidTrainRequestException(field, "the trainer " + field + " would have " + words.size()
                    + " items; the TrainJob CRD allows at most " + TrainRequestValidator.MAX_LIST_ITEMS
                    + "; pass the rest in a config file or env");
        }
    }

    private static List<String> concat(List<String> a, List<String> b) {
        List<String> all = new ArrayList<>(a);
        all.addAll(b);
        return all;
    }
}
