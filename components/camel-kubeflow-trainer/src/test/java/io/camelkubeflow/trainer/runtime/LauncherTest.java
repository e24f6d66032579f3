package io.camelkubeflow.trainer.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.camelkubeflow.trainer.support.InvalidOptionException;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.Test;

/** What each launcher is, as its traits say; the resolver and the command builder read only these. */
class LauncherTest {
    @Test
    void eachLauncherIsNamedAsUsersWriteIt() {
        assertEquals("builtin, torchrun, mpirun, python", Launcher.names());
        for (Launcher launcher : Launcher.values()) {
            assertEquals(launcher.name().toLowerCase(Locale.ROOT), launcher.optionValue());
            assertEquals(launcher.optionValue(), launcher.toString());
            assertEquals(launcher, Launcher.parse("launcher", launcher.optionValue()));
            for (String otherSpelling :
                    List.of(launcher.optionValue().toUpperCase(Locale.ROOT), " " + launcher.optionValue())) {
                assertThrows(
                        InvalidOptionException.class,
                        () -> Launcher.parse("launcher", otherSpelling),
                        "never a coercion: '" + otherSpelling + "'");
            }
        }
        InvalidOptionException unknown =
                assertThrows(InvalidOptionException.class, () -> Launcher.parse("launcher", "deepspeed"));
        assertEquals("launcher", unknown.getField());
        assertTrue(unknown.getMessage().contains("use one of builtin, torchrun, mpirun, python"), unknown.getMessage());
    }

    @Test
    void descriptionsNameTheLauncherOrWhatItRuns() {
        assertEquals("the builtin trainer (tune run)", Launcher.BUILTIN.description());
        assertEquals("torchrun", Launcher.TORCHRUN.description());
        assertEquals("mpirun", Launcher.MPIRUN.description());
        assertEquals("python", Launcher.PYTHON.description());
    }

    @Test
    void onlyMpirunNeedsItsPolicyInstallsForTheUserAndRunsFromTheLauncherJob() {
        assertTrue(Launcher.MPIRUN.requiresPolicy());
        assertEquals("an MPI runtime", Launcher.MPIRUN.requiredRuntime());
        assertEquals(
                "mlPolicy.mpi provides /etc/mpi/hostfile and the launcher job",
                Launcher.MPIRUN.requiredRuntimeReason());
        assertTrue(Launcher.MPIRUN.installsIntoUserSite());
        assertEquals("launcher", Launcher.MPIRUN.replicatedJob());
        for (Launcher launcher : List.of(Launcher.BUILTIN, Launcher.TORCHRUN, Launcher.PYTHON)) {
            assertFalse(launcher.requiresPolicy());
            assertNull(launcher.requiredRuntime());
            assertNull(launcher.requiredRuntimeReason());
            assertFalse(launcher.installsIntoUserSite());
            assertEquals(Launcher.DEFAULT_REPLICATED_JOB, launcher.replicatedJob());
        }
    }

    @Test
    void theWordsThatRunFilesAndCommands() {
        assertNull(Launcher.BUILTIN.fileRunner());
        assertEquals(List.of("torchrun"), Launcher.TORCHRUN.fileRunner());
        assertEquals(List.of("torchrun", "--no_python"), Launcher.TORCHRUN.commandRunner());
        assertEquals(List.of("python"), Launcher.MPIRUN.fileRunner());
        assertEquals(List.of("mpirun", "--hostfile", "/etc/mpi/hostfile"), Launcher.MPIRUN.outerLauncher());
        assertEquals(List.of("python"), Launcher.PYTHON.fileRunner());
        assertEquals(List.of(), Launcher.PYTHON.commandRunner());
        assertEquals(List.of(), Launcher.PYTHON.outerLauncher());
        assertEquals(List.of("-x", "A", "-x", "B"), Launcher.MPIRUN.exports(List.of("A", "B")));
        assertEquals(List.of(), Launcher.TORCHRUN.exports(List.of("A")));
    }

    @Test
    void whatSelectsEachLauncherAndWhatMeansACommandLaunchesItself() {
        assertEquals("torchtune", Launcher.BUILTIN.framework());
        assertEquals("torch", Launcher.TORCHRUN.mlPolicy());
        assertEquals("mpi", Launcher.MPIRUN.mlPolicy());
        assertNull(Launcher.PYTHON.framework());
        assertNull(Launcher.PYTHON.mlPolicy());
        assertTrue(Launcher.TORCHRUN.launchedBy("/usr/local/bin/torchrun"));
        assertTrue(Launcher.MPIRUN.launchedBy("mpirun"));
        assertFalse(Launcher.MPIRUN.launchedBy("mpirun.sh"));
        assertFalse(Launcher.PYTHON.launchedBy("python"));
    }
}
