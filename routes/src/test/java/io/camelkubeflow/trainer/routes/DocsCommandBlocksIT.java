package io.camelkubeflow.trainer.routes;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.camelkubeflow.trainer.sandbox.TrainerSandbox;
import io.camelkubeflow.trainer.testing.DocCommandBlocks;
import io.camelkubeflow.trainer.testing.DocCommandBlocks.Block;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every command block of the docs (README.md and docs/*.md: fenced {@code bash}, {@code sh} or {@code shell}) still
 * runs, or says right above it why it is not run here, so nothing is skipped silently. The marker is an HTML comment on
 * the line before the block (blank lines between allowed):
 * <ul>
 * <li>{@code <!-- run: app -->}: run by bash against the packaged app started on the local sandbox, as the README's
 * first command starts it, in a folder holding the repository's {@code examples/} and {@code routes/}; the only change
 * to the text is the app's port for {@code 8080} (the test takes any free port);</li>
 * <li>{@code <!-- run: sandbox -->}: run against a sandbox started as {@code SandboxMain} starts one, its kubeconfig
 * where SandboxMain writes it ({@code .camel-kubeflow-trainer/sandbox.kubeconfig});</li>
 * <li>{@code <!-- run: kueue -->}: run by the end-to-end suite's {@code KueueDocsIT} against the control plane with
 * Kueue (a sandbox has no Kueue);</li>
 * <li>{@code <!-- checked: the two commands ... -->}: the README's two commands (they build and test this very
 * project): held to {@code .ci/run} instead of run;</li>
 * <li>{@code <!-- not run: why -->}: what it needs that a test here cannot have.</li>
 * </ul>
 * Each block runs with {@code set -euo pipefail}: a command that fails, fails the block.
 */
class DocsCommandBlocksIT {
    static final Path PROJECT =
            Path.of(System.getProperty("user.dir")).resolve("..").normalize();

    @TempDir
    Path work;

    static List<Block> blocks() throws IOException {
        return DocCommandBlocks.blocks(PROJECT);
    }

    @Test
    void everyCommandBlockIsRunCheckedOrSaysWhyNot() throws IOException {
        List<Block> blocks = blocks();
        assertTrue(blocks.size() >= 10, "blocks found: " + blocks.size());
        List<String> unmarked = blocks.stream()
                .filter(block -> block.marker() == null)
                .map(Block::where)
                .toList();
        assertEquals(
                List.of(),
                unmarked,
                "blocks with no '<!-- run: app -->', '<!-- run: sandbox -->', '<!-- run:"
                        + " kueue -->' or '<!-- not run: why -->' right above them");
        assertTrue(blocks.stream().anyMatch(block -> "run: app".equals(block.marker()))
                && blocks.stream().anyMatch(block -> "run: sandbox".equals(block.marker())));
    }

    /**
     * The README's first lines are its two commands, the second what CI runs ({@code .ci/run}); the docs repeat them
     * only as they are.
     */
    @Test
    void theReadmesFirstBlockIsItsTwoCommandsAndCiRunsTheSecond() throws IOException {
        List<Block> blocks = blocks();
        Block first = blocks.get(0);
        assertEquals(PROJECT.resolve("README.md"), first.file());
        assertTrue(first.marker() != null && first.marker().startsWith("checked: the two commands"), first.where());
        List<String> commands = first.text().lines().toList();
        assertEquals(2, commands.size(), first.text());
        assertTrue(
                commands.get(0).startsWith("./mvnw ")
                        && commands.get(0).endsWith("&& java -jar routes/target/quarkus-app/quarkus-run.jar"),
                commands.get(0));
        List<String> ci = Files.readAllLines(PROJECT.resolve(".ci/run")).stream()
                .filter(line ->
                        !line.isBlank() && !line.startsWith("#") && !line.startsWith("set ") && !line.startsWith("cd "))
                .toList();
        assertEquals(List.of(commands.get(1)), ci, ".ci/run runs exactly the README's test command");
        for (Block block : blocks) {
            if (block.marker() != null && block.marker().startsWith("checked")) {
                assertEquals(first.text(), block.text(), block.where() + " repeats the two commands otherwise");
            }
        }
    }

    @Timeout(value = 25, unit = TimeUnit.MINUTES)
    @Test
    void theBlocksMarkedAppRunAgainstThePackagedAppOnTheSandbox() throws Exception {
        Files.createSymbolicLink(work.resolve("examples"), PROJECT.resolve("examples"));
        Files.createSymbolicLink(work.resolve("routes"), PROJECT.resolve("routes"));
        List<String> failures = new ArrayList<>();
        try (PackagedApp app = PackagedApp.start(work, Map.of())) {
            int port = app.httpPort();
            for (Block block : blocks()) {
                if ("run: app".equals(block.marker())) {
                    String failure =
                            run(block, block.text().replaceAll("(localhost|127\\.0\\.0\\.1):8080", "$1:" + port));
                    if (failure != null) {
                        failures.add(failure);
                    }
                }
            }
        }
        assertEquals(List.of(), failures);
    }

    @Timeout(value = 25, unit = TimeUnit.MINUTES)
    @Test
    void theBlocksMarkedSandboxRunAgainstASandboxAsSandboxMainStartsIt() throws Exception {
        List<String> failures = new ArrayList<>();
        try (TrainerSandbox sandbox = TrainerSandbox.start(TrainerSandbox.Options.standalone())) {
            sandbox.writeKubeconfig(work.resolve(".camel-kubeflow-trainer/sandbox.kubeconfig"));
            for (Block block : blocks()) {
                if ("run: sandbox".equals(block.marker())) {
                    String failure = run(block, block.text());
                    if (failure != null) {
                        failures.add(failure);
                    }
                }
            }
        }
        assertEquals(List.of(), failures);
    }

    private String run(Block block, String text) throws Exception {
        return DocCommandBlocks.run(block, text, work, Map.of());
    }

    @Test
    void aBlockLeavesNoProcessBehind() throws Exception {
        Block background =
                new Block(PROJECT, PROJECT.resolve("docs/x.md"), 3, "run: app", "sleep 600 &\necho $! > pid\n");
        assertNull(run(background, background.text()));
        long pid = Long.parseLong(Files.readString(work.resolve("pid")).trim());
        ProcessHandle.of(pid).ifPresent(left -> {
            boolean ended =
                    left.onExit().completeOnTimeout(null, 10, TimeUnit.SECONDS).join() != null;
            left.destroyForcibly();
            assertTrue(ended, "the block's background process " + pid + " still runs");
        });
    }

    @Test
    void aBlockThatFailsIsReportedWithWhereItIsAndWhatItSaid() throws Exception {
        Block broken = new Block(PROJECT, PROJECT.resolve("docs/x.md"), 7, "run: app", "echo one\nfalse\necho never\n");
        String failure = run(broken, broken.text());
        assertTrue(
                failure != null
                        && failure.startsWith("docs/x.md:7 exited with 1")
                        && failure.contains("one")
                        && !failure.contains("--- it said:\none\nnever"),
                String.valueOf(failure));
        assertFalse(run(broken, "echo fine\n") != null);
    }
}
