package io.camelkubeflow.trainer.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.camelkubeflow.trainer.sandbox.TrainerSandbox;
import io.camelkubeflow.trainer.testing.BoundedProcess;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Kubeflow Python SDK's TrainerClient (from PyPI, in the venv the build makes) runs bench/sdk/sdk_check.py, each
 * of its calls, against the sandbox and against the real control plane: what the SDK expects of a Trainer cluster,
 * checked on the real one and on the sandbox that stands in for it.
 */
class KubeflowSdkIT {
    /** The calls sdk_check.py makes, in its order; each must print its "ok" line. */
    private static final List<String> CALLS = List.of(
            "list_runtimes",
            "get_runtime",
            "get_runtime_packages",
            "train",
            "get_job",
            "list_jobs",
            "wait_for_job_status Running",
            "get_job_logs follow",
            "wait_for_job_status",
            "get_job_logs",
            "get_job_logs follow read to the end",
            "get_job_events",
            "delete_job");

    @Test
    @Timeout(300)
    void everyCallPassesOnTheSandbox(@TempDir Path home) throws Exception {
        // the pace of a sandbox on its own: Running for 5 s, longer than a poll of wait_for_job_status
        try (TrainerSandbox sandbox = TrainerSandbox.start(TrainerSandbox.Options.standalone())) {
            String namespace = "kubeflowsdk-" + UUID.randomUUID().toString().substring(0, 6);
            sandbox.createNamespace(namespace);
            sdkCheck(sandbox.writeKubeconfig(home.resolve("kubeconfig"), namespace), namespace);
        }
    }

    @Test
    @Timeout(300)
    void everyCallPassesOnTheRealControlPlane() throws Exception {
        try (RealCluster cluster = RealCluster.start(KubeflowSdkIT.class)) {
            String output = sdkCheck(RealCluster.adminKubeconfig(), cluster.namespace);
            // the sandbox runs no code; here the node agent ran the SDK's bash and torchrun commands for real
            assertTrue(
                    output.contains("ok   get_job_logs (")
                            && output.contains("'train_fn: started', " + "'train_fn: done'"),
                    "train_fn's output is not in its logs:\n" + output);
            assertTrue(
                    output.matches("(?s).*ok   get_runtime_packages \\(\\d+ ms\\): Python: 3.*"),
                    "get_runtime_packages printed no Python version:\n" + output);
        }
    }

    /** Runs sdk_check.py in the namespace and asserts every call printed "ok"; returns what it printed. */
    private static String sdkCheck(Path kubeconfig, String namespace) throws IOException, InterruptedException {
        BoundedProcess.Result check = BoundedProcess.run(
                Duration.ofMinutes(5),
                List.of(property("kubeflow.sdk.python"), property("kubeflow.sdk.check"), namespace),
                null,
                Map.of("KUBECONFIG", kubeconfig.toString()),
                null);
        String output = check.printed();
        // what each call returned, in the build's output even when all pass: the two targets' answers side by side
        System.out.print(output);
        List<String> passed = CALLS.stream()
                .filter(call -> output.contains("ok   " + call + " ("))
                .toList();
        assertEquals(CALLS, passed, passed.size() + "/" + CALLS.size() + " calls passed:\n" + output);
        assertEquals(0, check.exitCode(), output);
        return output;
    }

    private static String property(String name) {
        String value = System.getProperty(name);
        if (value == null) {
            throw new IllegalStateException("no -D" + name + ": the e2e module's failsafe configuration sets it");
        }
        return value;
    }
}
