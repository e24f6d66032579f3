package io.camelkubeflow.trainer.job;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.camelkubeflow.trainer.runtime.Launcher;
import io.camelkubeflow.trainer.testing.ReliabilityFigures;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.ShrinkingMode;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;

/**
 * Property: whatever words a user passes, the bash script that installs packages and then runs the program (plain
 * and under MPI) hands them to the program byte for byte, and nothing in them is expanded or executed. Each try runs
 * a batch of argument lists through real bash ({@code bash -c <script>} per list, as the container does), with
 * {@code python} (the pip step) standing for {@code true} and the program being {@code printf '%s\0'}, whose output
 * is the argv it received.
 */
class ShellSafetyTest {
    static final int TRIES = 100;
    static final int LISTS_PER_TRY = 100;
    static final AtomicInteger LISTS = new AtomicInteger();
    static final AtomicLong WORDS = new AtomicLong();
    static final AtomicInteger MISMATCHES = new AtomicInteger();
    static Path work;
    static Path fakeBin;

    @BeforeContainer
    static void fakePython() throws IOException {
        work = Files.createTempDirectory("shell-safety");
        fakeBin = Files.createDirectories(work.resolve("bin"));
        Files.createSymbolicLink(fakeBin.resolve("python"), Path.of(which("true")));
    }

    @AfterContainer
    static void recordFigures() throws IOException {
        ReliabilityFigures.record(
                "shell safety",
                LISTS + " random argument lists (" + WORDS + " words) through the"
                        + " bash-wrapped path, run by real bash; " + MISMATCHES + " changed or executed",
                LISTS.get() >= 10_000 && MISMATCHES.get() == 0);
        try (var files = Files.walk(work)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }

    @Property(tries = TRIES, shrinking = ShrinkingMode.BOUNDED)
    void everyWordArrivesByteForByte(@ForAll("batches") List<List<String>> batch) throws Exception {
        List<List<String>> expected = new ArrayList<>();
        // two bash drivers, one per half of the batch, so both cores run scripts
        ByteArrayOutputStream[] halves = {new ByteArrayOutputStream(), new ByteArrayOutputStream()};
        for (int i = 0; i < batch.size(); i++) {
            List<String> args = batch.get(i);
            boolean underMpi = i % 2 == 1;
            // the case's number first: printf prints one word even for no arguments, and each case is told apart
            TrainRequest request = new TrainRequest()
                    .command(List.of("printf", "%s\\0", "case-" + i))
                    .args(args)
                    .packages(List.of("numpy>=2"));
            List<String> command = TrainerCommand.build(
                            underMpi ? Launcher.MPIRUN : Launcher.PYTHON, request, null, List.of())
                    .command();
            List<String> wrapper =
                    underMpi ? command.subList(Launcher.MPIRUN.outerLauncher().size(), command.size()) : command;
            assertEquals(List.of("bash", "-c"), wrapper.subList(0, 2));
            assertEquals(3, wrapper.size(), "one script with no trailing words");
            ByteArrayOutputStream scripts = halves[i < batch.size() / 2 ? 0 : 1];
            scripts.write(wrapper.get(2).getBytes(StandardCharsets.UTF_8));
            scripts.write(0);
            List<String> argv = new ArrayList<>(List.of("case-" + i));
            argv.addAll(args);
            expected.add(argv);
        }
        Path cwd = Files.createTempDirectory(work, "cwd");
        CompletableFuture<List<String>> second =
                CompletableFuture.supplyAsync(() -> runAll(halves[1].toByteArray(), cwd));
        List<String> received = new ArrayList<>(runAll(halves[0].toByteArray(), cwd));
        received.addAll(second.get());

        int position = 0;
        List<String> mismatches = new ArrayList<>();
        for (List<String> argv : expected) {
            int end = Math.min(position + argv.size(), received.size());
            List<String> got = received.subList(position, end);
            if (!got.equals(argv)) {
                mismatches.add("sent " + argv + ", received " + got);
            }
            position = end;
        }
        LISTS.addAndGet(batch.size());
        WORDS.addAndGet(batch.stream().mapToInt(List::size).sum());
        MISMATCHES.addAndGet(mismatches.size());
        assertEquals(List.of(), mismatches);
        assertEquals(received.size(), position, "bash produced more words than were sent");
        try (var files = Files.list(cwd)) {
            assertFalse(files.findAny().isPresent(), "a script executed something from an argument");
        }
    }

    /** One bash reads the NUL-separated scripts and runs each with its own {@code bash -c}, as a container would. */
    private static List<String> runAll(byte[] scripts, Path cwd) {
        try {
            return runAllOrThrow(scripts, cwd);
        } catch (Exception e) {
            throw new IllegalStateException("running the scripts failed", e);
        }
    }

    private static List<String> runAllOrThrow(byte[] scripts, Path cwd) throws Exception {
        String driver = "while IFS= read -r -d '' script; do bash -c \"$script\" || exit 97; done";
        ProcessBuilder builder = new ProcessBuilder("bash", "-c", driver).directory(cwd.toFile());
        builder.environment().put("PATH", fakeBin + ":" + System.getenv("PATH"));
        Process process = builder.start();
        CompletableFuture<byte[]> errors = CompletableFuture.supplyAsync(() -> readAll(process.getErrorStream()));
        CompletableFuture<Void> feed = CompletableFuture.runAsync(() -> {
            try (OutputStream in = process.getOutputStream()) {
                in.write(scripts);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        });
        byte[] output = process.getInputStream().readAllBytes();
        assertTrue(process.waitFor(60, TimeUnit.SECONDS), "bash did not finish");
        feed.get();
        assertEquals(0, process.exitValue(), "a script failed: " + new String(errors.get(), StandardCharsets.UTF_8));
        List<String> words = new ArrayList<>();
        int start = 0;
        for (int i = 0; i < output.length; i++) {
            if (output[i] == 0) {
                words.add(new String(output, start, i - start, StandardCharsets.UTF_8));
                start = i + 1;
            }
        }
        assertEquals(output.length, start, "output must end with a NUL");
        return words;
    }

    private static byte[] readAll(InputStream in) {
        try {
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Provide
    Arbitrary<List<List<String>>> batches() {
        return words().list().ofMaxSize(12).list().ofSize(LISTS_PER_TRY);
    }

    /**
     * Words as users and attackers write them: shell syntax ({@code $()}, backticks, quotes, globs, redirections,
     * history and brace expansion), control characters and newlines, bytes of other scripts and unicode (no NUL,
     * which no argv can hold, and no lone surrogate, which no UTF-8 text can hold).
     */
    static Arbitrary<String> words() {
        Arbitrary<String> fragments = Arbitraries.of(
                "$(touch pwned)",
                "`touch pwned`",
                "${HOME}",
                "$HOME",
                "$((1+1))",
                "'",
                "\"",
                "\\",
                "*",
                "?",
                "[a]",
                "~",
                "!!",
                "!-1",
                "{a,b}",
                ";",
                "&&",
                "||",
                "|",
                ">",
                "<",
                ">>",
                "2>&1",
                "#",
                "\n",
                "\r\n",
                "\t",
                " ",
                "--",
                "-e",
                "%s",
                "%n",
                "\\0",
                "$'\\x41'",
                "<(ls)",
                "$@",
                "$*",
                "$0",
                "${IFS}",
                "'\\''",
                "\u00e9",
                "\u2603",
                "\u65e5\u672c",
                new String(Character.toChars(0x1F600)),
                "\u200b",
                "\u0301");
        Arbitrary<String> characters =
                Arbitraries.strings().withCharRange('\u0001', '\u007f').ofMaxLength(6);
        Arbitrary<String> unicode =
                Arbitraries.strings().withCharRange('\u0080', '\ud7ff').ofMaxLength(4);
        return Arbitraries.oneOf(fragments, characters, unicode)
                .list()
                .ofMaxSize(5)
                .map(parts -> String.join("", parts));
    }

    private static String which(String program) {
        for (String dir : System.getenv("PATH").split(":")) {
            Path candidate = Path.of(dir, program);
            if (Files.isExecutable(candidate)) {
                return candidate.toString();
            }
        }
        throw new IllegalStateException(program + " is not on PATH");
    }
}
