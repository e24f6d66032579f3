package io.camelkubeflow.trainer.runtime;

import io.camelkubeflow.trainer.support.InvalidOptionException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * How the user's code is started inside the trainer container, and everything that differs between launchers: the
 * words that run a Python file or a command, the launcher put in front of everything (installs included), the binary
 * that means a command launches itself, the runtime label or mlPolicy that selects it, the mlPolicy it cannot run
 * without, and the replicated job it runs in. The rest of the component reads these; adding a launcher is adding a
 * constant.
 */
public enum Launcher {
    /** The runtime's own program (torchtune's {@code tune run}); the user gives its arguments or a full command. */
    BUILTIN(Builder.of("builtin")
            .framework("torchtune")
            .runsItsOwnProgram()
            .description("the builtin trainer (tune run)")),
    /** {@code torchrun}: the controller injects PET_* variables, so no rendezvous flags are needed. */
    TORCHRUN(Builder.of("torchrun")
            .runsFilesWith("torchrun")
            // torchrun starts a non-Python program on each local rank only when told not to prepend python; the
            // underscore spelling is the one every torchrun takes (--no-python only from torch 2.0)
            .runsCommandsWith("torchrun", "--no_python")
            .binary("torchrun")
            .mlPolicy("torch")),
    /** {@code mpirun --hostfile /etc/mpi/hostfile}, run from the MPI {@code launcher} replicated job. */
    MPIRUN(Builder.of("mpirun")
            .runsFilesWith("python")
            // the controller sets slots and OMPI_MCA_* itself; the whole payload (installs too) runs on every rank
            .wrapsEverythingIn("mpirun", "--hostfile", "/etc/mpi/hostfile")
            // the trainer's env is the launcher container's: Open MPI hands a rank on another node only what -x names
            .exportsEachVariableWith("-x")
            // Open MPI's other names for its launcher, as Debian installs them
            .binary("mpirun", "mpiexec", "orterun", "mpirun.openmpi", "mpiexec.openmpi")
            .mlPolicy("mpi")
            .requiresPolicy("an MPI runtime", "mlPolicy.mpi provides /etc/mpi/hostfile and the launcher job")
            // the MPI user is not root
            .installsIntoUserSite()
            .replicatedJob("launcher")),
    /** Plain {@code python}: frameworks that set up distribution from env (JAX, XGBoost) or none at all. */
    PYTHON(Builder.of("python").runsFilesWith("python"));

    /** The replicated job that runs the trainer when the launcher does not name another. */
    public static final String DEFAULT_REPLICATED_JOB = "node";

    private final Builder traits;

    Launcher(Builder traits) {
        this.traits = traits;
    }

    /** As users write it in options, headers and rules: {@code torchrun}. */
    public String optionValue() {
        return traits.optionValue;
    }

    /** What Camel's catalog lists and its type converter matches against (case-insensitively). */
    @Override
    public String toString() {
        return optionValue();
    }

    /** The words that run a Python file (the file follows them); null when the launcher cannot run a file. */
    public List<String> fileRunner() {
        return traits.fileRunner;
    }

    /** The words put before a command that does not launch itself. */
    public List<String> commandRunner() {
        return traits.commandRunner;
    }

    /** The words put before the whole payload, package installs included, unless the command launches itself. */
    public List<String> outerLauncher() {
        return traits.outerLauncher;
    }

    /**
     * The words that hand the trainer's variables to every rank ({@code -x NAME} each), put after {@link
     * #outerLauncher()}; none for a launcher whose processes all inherit the container's environment.
     */
    public List<String> exports(List<String> variables) {
        List<String> words = new ArrayList<>();
        if (traits.exportFlag != null) {
            for (String variable : variables) {
                words.add(traits.exportFlag);
                words.add(variable);
            }
        }
        return words;
    }

    /**
     * Whether the runtime's own program runs (torchtune's {@code tune run}): only its typed settings configure it, and
     * nothing (an image's entrypoint) replaces it.
     */
    public boolean runsItsOwnProgram() {
        return traits.ownProgram;
    }

    /**
     * The launcher that puts the whole payload under its own start ({@link #outerLauncher()}) and whose binary a
     * command runs itself ({@code mpirun ...}), if any: such a command starts the payload only where it runs.
     */
    public static Optional<Launcher> wrappingAllLaunchedBy(String program) {
        return Arrays.stream(values())
                .filter(l -> !l.outerLauncher().isEmpty() && l.launchedBy(program))
                .findFirst();
    }

    /** True when the user wrote this launcher's binary themselves (e.g. "torchrun --nnodes ... train.py"). */
    public boolean launchedBy(String program) {
        String base = program.substring(program.lastIndexOf('/') + 1);
        return traits.binaries.contains(base);
    }

    /** The runtime framework label that makes this the launcher, or null. */
    public String framework() {
        return traits.framework;
    }

    /** The mlPolicy that makes this the launcher, or null. */
    public String mlPolicy() {
        return traits.mlPolicy;
    }

    /** Whether the launcher works only on a runtime with its {@link #mlPolicy()}. */
    public boolean requiresPolicy() {
        return traits.requiredRuntime != null;
    }

    /** The runtime this launcher needs, for messages: "an MPI runtime". */
    public String requiredRuntime() {
        return traits.requiredRuntime;
    }

    /** Why it needs it, for messages. */
    public String requiredRuntimeReason() {
        return traits.requiredRuntimeReason;
    }

    /** Whether pip installs go to the user site (the launcher runs the payload as a non-root user). */
    public boolean installsIntoUserSite() {
        return traits.userSite;
    }

    /** The replicated job the launcher runs in: where its log is the trainer's log. */
    public String replicatedJob() {
        return traits.replicatedJob;
    }

    /** The launcher as a noun phrase of an explanation: {@code torchrun}, {@code the builtin trainer (tune run)}. */
    public String description() {
        return traits.description != null ? traits.description : optionValue();
    }

    /**
     * The launcher a user named, as it is written ({@link #names()}): another spelling is refused, never taken for the
     * nearest name, as the request schema's enumeration refuses it.
     */
    public static Launcher parse(String field, String value) {
        for (Launcher launcher : values()) {
            if (launcher.optionValue().equals(value)) {
                return launcher;
            }
        }
        throw new InvalidOptionException(field, "unknown launcher '" + value + "'; use one of " + names());
    }

    public static String names() {
        return Arrays.stream(values()).map(Launcher::optionValue).collect(Collectors.joining(", "));
    }

    /** The traits of one launcher, written as a sentence per constant. */
    private static final class Builder {
        private final String optionValue;
        private List<String> fileRunner;
        private List<String> commandRunner = List.of();
        private List<String> outerLauncher = List.of();
        private List<String> binaries = List.of();
        private String framework;
        private String mlPolicy;
        private String requiredRuntime;
        private String requiredRuntimeReason;
        private boolean userSite;
        private String exportFlag;
        private String replicatedJob = DEFAULT_REPLICATED_JOB;
        private String description;
        private boolean ownProgram;

        private Builder(String optionValue) {
            this.optionValue = optionValue;
        }

        static Builder of(String optionValue) {
            return new Builder(optionValue.toLowerCase(Locale.ROOT));
        }

        Builder runsFilesWith(String... words) {
            fileRunner = List.of(words);
            return this;
        }

        Builder runsCommandsWith(String... words) {
            commandRunner = List.of(words);
            return this;
        }

        Builder wrapsEverythingIn(String... words) {
            outerLauncher = List.of(words);
            return this;
        }

        Builder exportsEachVariableWith(String flag) {
            exportFlag = flag;
            return this;
        }

        Builder binary(String... names) {
            binaries = List.of(names);
            return this;
        }

        Builder framework(String label) {
            framework = label;
            return this;
        }

        Builder mlPolicy(String policy) {
            mlPolicy = policy;
            return this;
        }

        Builder requiresPolicy(String runtime, String reason) {
            requiredRuntime = runtime;
            requiredRuntimeReason = reason;
            return this;
        }

        Builder installsIntoUserSite() {
            userSite = true;
            return this;
        }

        Builder replicatedJob(String name) {
            replicatedJob = name;
            return this;
        }

        Builder runsItsOwnProgram() {
            ownProgram = true;
            return this;
        }

        Builder description(String text) {
            description = text;
            return this;
        }
    }
}
