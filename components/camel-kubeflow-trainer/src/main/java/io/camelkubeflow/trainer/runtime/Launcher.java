package io.camelkubeflow.trainer.runtime;

import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

import io.camelkubeflow.trainer.job.InvalidTrainRequestException;

/** How the user's code is started inside the trainer container. */
public enum Launcher {
    /** The runtime's own program (torchtune's {@code tune run}); the user gives its arguments or a full command. */
    BUILTIN,
    /** {@code torchrun}: the controller injects PET_* variables, so no rendezvous flags are needed. */
    TORCHRUN,
    /** {@code mpirun --hostfile /etc/mpi/hostfile}, run from the MPI {@code launcher} replicated job. */
    MPIRUN,
    /** Plain {@code python}: frameworks that set up distribution from env (JAX, XGBoost) or none at all. */
    PYTHON;

    public String optionValue() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** Parses a user-supplied launcher name, case-insensitively. */
    public static Launcher parse(String field, String value) {
        for (Launcher launcher : values()) {
            if (launcher.optionValue().equalsIgnoreCase(value.trim())) {
                return launcher;
            }
        }
        throw new InvalidTrainRequestException(field, "unknown launcher '" + value + "'; use one of " + names());
    }

    public static String names() {
        return Arrays.stream(values()).map(Launcher::optionValue).collect(Collectors.joining(", "));
    }
}
