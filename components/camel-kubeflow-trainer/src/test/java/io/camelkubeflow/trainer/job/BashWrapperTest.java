package io.camelkubeflow.trainer.job;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.camelkubeflow.trainer.runtime.Launcher;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Runs the generated install-then-run script with real bash, with stand-ins for python and torchrun that record the
 * argv they receive, and checks that every word arrives byte for byte and nothing was expanded or executed.
 */
class BashWrapperTest {
    static final List<String> HOSTILE_ARGS = List.of(
            "with space",
            "it's",
            "double \"quote\"",
            "$HOME",
            "${PATH}",
            "$(touch pwned-dollar)",
            "`touch pwned-backtick`",
            "line1\nline2",
            "*",
            "?",
            "[a-z]*",
            "~",
            "!event",
            "-dash",
            "--flag=x y",
            "",
            "back\\slash",
            "tab\there",
            "ünïcödé ☃ 日本",
            ";touch pwned-semicolon",
            "a'b\"c$d`e\\f",
            "{a,b}",
            "&&",
            "|",
            "> redirected",
            "#comment",
            "trailing\\",
            "'",
            "\"",
            "\r\n",
            "%s%n");

    @TempDir
    static Path work;

    static Path fakeBin;

    @BeforeAll
    static void fakePrograms() throws IOException {
        fakeBin = Files.createDirectories(work.resolve("bin"));
        // records "<program>\0<arg1>\0..." into the next numbered file under $ARGV_DIR
        String recorder = "#!/bin/bash\n"
                + "n=$(ls \"$ARGV_DIR\" | wc -l)\n"
                + "printf '%s\\0' \"$(basename \"$0\")\" \"$@\" > \"$ARGV_DIR/$(printf %03d \"$n\")\"\n";
        for (String program : List.of("python", "torchrun")) {
            Path file = fakeBin.resolve(program);
            Files.writeString(file, recorder);
            Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rwxr-xr-x"));
        }
    }

    @Test
    void torchrunFileArgumentsArriveUnchanged() throws Exception {
        TrainRequest request = new TrainRequest()
                .pythonFile("/app/my train.py")
                .args(HOSTILE_ARGS)
                .packages(List.of("numpy>=2", "torch<3,>=2.4", "pkg[extra]"))
                .pipIndexUrls(List.of("https://pypi.example.com/simple?a=1&b=$x", "https://extra.example.com/simple"));
        TrainerCommand command = TrainerCommand.build(Launcher.TORCHRUN, request, "/app/my train.py", List.of());
        List<List<String>> calls = runWrapper(command.command());
        assertEquals(
                List.of(
                        "python",
                        "-m",
                        "pip",
                        "install",
                        "--quiet",
                        "--no-warn-script-location",
                        "--index-url",
                        "https://pypi.example.com/simple?a=1&b=$x",
                        "--extra-index-url",
                        "https://extra.example.com/simple",
                        "numpy>=2",
                        "torch<3,>=2.4",
                        "pkg[extra]"),
                calls.get(0));
        assertEquals(concat(List.of("torchrun", "/app/my train.py"), HOSTILE_ARGS), calls.get(1));
    }

    @Test
    void mpiScriptInstallsIntoTheUserSiteAndRunsOnEveryRank() throws Exception {
        TrainRequest request =
                new TrainRequest().script("print(1)").args(HOSTILE_ARGS).packages(List.of("mpi4py"));
        TrainerCommand command =
                TrainerCommand.build(Launcher.MPIRUN, request, "/opt/camel-kubeflow-trainer/train.py", List.of());
        assertEquals(Launcher.MPIRUN.outerLauncher(), command.command().subList(0, 3));
        List<List<String>> calls =
                runWrapper(command.command().subList(3, command.command().size()));
        assertEquals(
                List.of("python", "-m", "pip", "install", "--quiet", "--no-warn-script-location", "--user", "mpi4py"),
                calls.get(0));
        assertEquals(concat(List.of("python", "/opt/camel-kubeflow-trainer/train.py"), HOSTILE_ARGS), calls.get(1));
    }

    @Test
    void commandWithHostileWordsArrivesUnchanged() throws Exception {
        TrainRequest request = new TrainRequest()
                .command(List.of("python", "-c", "import sys; print(sys.argv)"))
                .args(HOSTILE_ARGS)
                .packages(List.of("requests"));
        TrainerCommand command = TrainerCommand.build(Launcher.PYTHON, request, null, List.of());
        List<List<String>> calls = runWrapper(command.command());
        assertEquals(concat(List.of("python", "-c", "import sys; print(sys.argv)"), HOSTILE_ARGS), calls.get(1));
    }

    /** Runs {@code bash -c <script>} as the container would, and returns each recorded call's argv. */
    static List<List<String>> runWrapper(List<String> bashCommand) throws Exception {
        assertEquals(List.of("bash", "-c"), bashCommand.subList(0, 2));
        assertEquals(3, bashCommand.size(), "the wrapper must be one script with no trailing words");
        Path argvDir = Files.createTempDirectory(work, "argv");
        Path cwd = Files.createTempDirectory(work, "cwd");
        ProcessBuilder builder =
                new ProcessBuilder(bashCommand).directory(cwd.toFile()).redirectErrorStream(true);
        builder.environment().put("PATH", fakeBin + ":" + System.getenv("PATH"));
        builder.environment().put("ARGV_DIR", argvDir.toString());
        Process process = builder.start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(process.waitFor(30, TimeUnit.SECONDS));
        assertEquals(0, process.exitValue(), "script failed: " + output);
        try (Stream<Path> files = Files.list(cwd)) {
            assertFalse(files.findAny().isPresent(), "the script executed something from an argument");
        }
        List<List<String>> calls = new ArrayList<>();
        try (Stream<Path> files = Files.list(argvDir)) {
            for (Path file : files.sorted().toList()) {
                String recorded = Files.readString(file, StandardCharsets.UTF_8);
                // every word ends with \0, so the split's trailing empty string is dropped by limit -1 handling below
                List<String> words = new ArrayList<>(Arrays.asList(recorded.split("\0", -1)));
                words.remove(words.size() - 1);
                calls.add(words);
            }
        }
        assertEquals(2, calls.size(), "expected pip install, then the program: " + calls);
        return calls;
    }

    static List<String> concat(List<String> a, List<String> b) {
        List<String> all = new ArrayList<>(a);
        all.addAll(b);
        return all;
    }
}
