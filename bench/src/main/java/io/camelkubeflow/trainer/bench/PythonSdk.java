package io.camelkubeflow.trainer.bench;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import com.fasterxml.jackson.databind.JsonNode;
import io.camelkubeflow.trainer.sandbox.TrainerSandbox;
import io.fabric8.kubernetes.client.utils.Serialization;

/**
 * The real Kubeflow Python SDK, run from {@code bench/sdk/} against the bench's sandbox when {@code
 * -Dbench.sdk.pythonpath} gives its Python path (bench/sdk/README.md says how to get it). Each script times its own
 * calls after a warm-up call, so Python's start and imports are not counted, and prints one JSON object.
 */
final class PythonSdk {
    /** The reader's and the creator's name in the table. */
    static final String NAME = "Kubeflow SDK (Python)";
    private static final String PYTHONPATH = System.getProperty("bench.sdk.pythonpath", "").isBlank() ? null
            : System.getProperty("bench.sdk.pythonpath");

    private PythonSdk() {
    }

    static boolean available() {
        return PYTHONPATH != null;
    }

    /** Runs {@code bench/sdk/<script>} with the arguments, on a kubeconfig of the sandbox: the JSON it printed last. */
    static JsonNode run(Path root, TrainerSandbox sandbox, String script, String... args) throws Exception {
        Path kubeconfig = sandbox.writeKubeconfig(Files.createTempFile("bench-", ".kubeconfig"));
        try {
            List<String> command = new ArrayList<>(List.of("python3", root.resolve("bench/sdk/" + script).toString()));
            command.addAll(List.of(args));
            ProcessBuilder python = new ProcessBuilder(command).redirectErrorStream(true);
            python.environment().put("PYTHONPATH", PYTHONPATH);
            python.environment().put("KUBECONFIG", kubeconfig.toString());
            Process process = python.start();
            String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (process.waitFor() != 0) {
                throw new IllegalStateException("the Kubeflow SDK's " + script + " failed:\n" + output);
            }
            return Serialization.jsonMapper().readTree(output.substring(output.lastIndexOf('{')));
        } finally {
            Files.delete(kubeconfig);
        }
    }
}
