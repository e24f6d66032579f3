package io.camelkubeflow.trainer.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * The real Kubeflow Python SDK, run from {@code bench/sdk/} against the bench's target with the Python of the
 * environment {@code -Dbench.sdk.python} names (the bench module's build makes one from bench/sdk/requirements.txt).
 * Each script times its own calls after a warm-up call, so Python's start and imports are not counted, and prints one
 * JSON object last.
 */
final class PythonSdk {
    /** The reader's and the creator's name in the table. */
    static final String NAME = "Kubeflow SDK (Python)";

    private static final String PYTHON =
            System.getProperty("bench.sdk.python", "").isBlank() ? null : System.getProperty("bench.sdk.python");

    private PythonSdk() {}

    static boolean available() {
        return PYTHON != null && Files.isExecutable(Path.of(PYTHON));
    }

    /** Runs {@code bench/sdk/<script>} with the arguments on the target's kubeconfig: the JSON it printed last. */
    static JsonNode run(Path root, BenchTarget target, String script, String... args) throws Exception {
        return run(root, target, script, line -> {}, args);
    }

    /**
     * As above, and {@code eachLine} sees every line the script prints as it prints it (a script that waits tells
     * when it is ready).
     */
    static JsonNode run(Path root, BenchTarget target, String script, Consumer<String> eachLine, String... args)
            throws Exception {
        List<String> command = new ArrayList<>(
                List.of(PYTHON, root.resolve("bench/sdk/" + script).toString()));
        command.addAll(List.of(args));
        ProcessBuilder python = new ProcessBuilder(command).redirectErrorStream(true);
        python.environment().put("KUBECONFIG", target.kubeconfig().toString());
        Process process = python.start();
        StringBuilder output = new StringBuilder();
        String last = null;
        try (var lines = process.inputReader(StandardCharsets.UTF_8)) {
            for (String line = lines.readLine(); line != null; line = lines.readLine()) {
                output.append(line).append('\n');
                last = line.startsWith("{") ? line : last;
                eachLine.accept(line);
            }
        }
        if (process.waitFor() != 0 || last == null) {
            throw new IllegalStateException("the Kubeflow SDK's " + script + " failed:\n" + output);
        }
        return new ObjectMapper().readTree(last);
    }
}
