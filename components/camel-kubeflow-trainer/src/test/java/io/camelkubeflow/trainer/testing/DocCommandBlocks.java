package io.camelkubeflow.trainer.testing;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The command blocks of the docs (README.md and docs/*.md: fenced {@code bash}, {@code sh} or {@code shell}), each
 * with the marker on the line above it that says how it is checked, and running one with bash: what the routes app's
 * DocsCommandBlocksIT and the end-to-end suite's KueueDocsIT share.
 */
public final class DocCommandBlocks {
    private static final Pattern FENCE = Pattern.compile("^\\s*```(bash|sh|shell)\\s*$");
    private static final Pattern MARKER = Pattern.compile(
            "^<!-- (run: app|run: sandbox|run: kueue" + "|checked: the two commands.*|not run: \\S.*) -->$");

    private DocCommandBlocks() {}

    /** A fenced command block: where it is, the marker above it (null: none) and its text. */
    public record Block(Path project, Path file, int line, String marker, String text) {
        public String where() {
            return project.relativize(file) + ":" + line;
        }
    }

    /** Every command block of the project's README.md and docs/*.md, in that order. */
    public static List<Block> blocks(Path project) throws IOException {
        List<Path> docs = new ArrayList<>(List.of(project.resolve("README.md")));
        try (Stream<Path> pages = Files.list(project.resolve("docs"))) {
            pages.filter(page -> page.toString().endsWith(".md")).sorted().forEach(docs::add);
        }
        List<Block> blocks = new ArrayList<>();
        for (Path doc : docs) {
            List<String> lines = Files.readAllLines(doc);
            for (int i = 0; i < lines.size(); i++) {
                if (!FENCE.matcher(lines.get(i)).matches()) {
                    continue;
                }
                int above = i - 1;
                while (above >= 0 && lines.get(above).isBlank()) {
                    above--;
                }
                Matcher marker =
                        above < 0 ? null : MARKER.matcher(lines.get(above).trim());
                int end = i + 1;
                while (end < lines.size() && !lines.get(end).trim().equals("```")) {
                    end++;
                }
                blocks.add(new Block(
                        project,
                        doc,
                        i + 1,
                        marker != null && marker.matches() ? marker.group(1) : null,
                        String.join("\n", lines.subList(i + 1, end)) + "\n"));
                i = end;
            }
        }
        return blocks;
    }

    /**
     * Runs {@code text} (a block's, or it changed) with bash in {@code work}, with {@code set -euo pipefail}, the
     * test's environment less KUBECONFIG plus {@code environment}; null when it succeeded, else what went wrong. Bash
     * leads a session of its own (setsid), whose every process is ended with it: what a block started in the
     * background, or left running at the timeout, does not outlive the block (it would once bash ended, no longer
     * bash's child).
     */
    public static String run(Block block, String text, Path work, Map<String, String> environment) throws Exception {
        Path script = Files.createTempFile(work, "block-", ".sh");
        Files.writeString(script, "set -euo pipefail\n" + text);
        Path output = work.resolve(script.getFileName() + ".out");
        ProcessBuilder builder = new ProcessBuilder("setsid", "bash", script.toString())
                .directory(work.toFile())
                .redirectErrorStream(true)
                .redirectOutput(output.toFile());
        builder.environment().remove("KUBECONFIG");
        builder.environment().putAll(environment);
        Process bash = builder.start();
        boolean ended;
        try {
            // a bound for a block that hangs, far above what any block takes (the by-hand Schemathesis run, the
            // longest, ~5 min on a loaded 2-core machine): how fast the machine is must not decide the outcome
            ended = bash.waitFor(20, TimeUnit.MINUTES);
        } finally {
            // setsid execs bash (a child of this JVM leads no process group), so its pid is the group's
            new ProcessBuilder("kill", "-KILL", "--", "-" + bash.pid())
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                    .start()
                    .waitFor();
        }
        if (!ended) {
            bash.waitFor();
        }
        String said = Files.readString(output, StandardCharsets.UTF_8);
        if (ended && bash.exitValue() == 0) {
            return null;
        }
        String tail = said.length() > 4000 ? "..." + said.substring(said.length() - 4000) : said;
        return block.where() + (ended ? " exited with " + bash.exitValue() : " did not end in 20 minutes") + ":\n"
                + text + "--- it said:\n" + tail;
    }
}
