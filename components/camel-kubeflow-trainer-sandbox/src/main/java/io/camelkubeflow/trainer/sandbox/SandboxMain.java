package io.camelkubeflow.trainer.sandbox;

import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;

/**
 * Runs a sandbox on its own, for kubectl, the Kubeflow Python SDK or your own routes: a local Kubernetes API server
 * with Kubeflow Trainer installed and its controller emulated, until the process is stopped. It writes a kubeconfig
 * for it and prints its path.
 *
 * <pre>
 * ./mvnw -q -pl components/camel-kubeflow-trainer-sandbox exec:java \
 *     -Dexec.args="[--port=N] [--kubeconfig=PATH] [--start-millis=N] [--run-millis=N] [--run-scripts]"
 * </pre>
 *
 * (the module's exec-maven-plugin names this class; the build makes no jar with the sandbox's dependencies inside, so
 * the class runs on the module's Maven class path, as docs/sandbox.md shows).
 */
public final class SandboxMain {
    private SandboxMain() {}

    public static void main(String[] args) throws InterruptedException {
        int port = 0;
        Path kubeconfig = Path.of(".camel-kubeflow-trainer", "sandbox.kubeconfig");
        long startMillis = TrainerSandbox.Options.STANDALONE_START_DELAY.toMillis();
        long runMillis = TrainerSandbox.Options.STANDALONE_RUN_TIME.toMillis();
        boolean runScripts = false;
        for (String arg : args) {
            String value = arg.contains("=") ? arg.substring(arg.indexOf('=') + 1) : "";
            if (arg.startsWith("--port=")) {
                port = Integer.parseInt(value);
            } else if (arg.startsWith("--kubeconfig=")) {
                kubeconfig = Path.of(value);
            } else if (arg.startsWith("--start-millis=")) {
                startMillis = Long.parseLong(value);
            } else if (arg.startsWith("--run-millis=")) {
                runMillis = Long.parseLong(value);
            } else if (arg.equals("--run-scripts")) {
                runScripts = true;
            } else {
                System.err.println("unknown argument " + arg + "; expected --port=N, --kubeconfig=PATH,"
                        + " --start-millis=N, --run-millis=N, --run-scripts");
                System.exit(2);
            }
        }
        TrainerSandbox.Options options = TrainerSandbox.Options.defaults()
                .withPort(port)
                .withController(Duration.ofMillis(startMillis), Duration.ofMillis(runMillis));
        TrainerSandbox sandbox = TrainerSandbox.start(runScripts ? options.withScriptsRun() : options);
        Path written = sandbox.writeKubeconfig(kubeconfig);
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            sandbox.close();
            stopped.countDown();
        }));
        System.out.println("Trainer sandbox listening at " + sandbox.masterUrl());
        System.out.println("kubeconfig: " + written.toAbsolutePath());
        System.out.println("  export KUBECONFIG=" + written.toAbsolutePath() + "; kubectl get clustertrainingruntimes");
        stopped.await();
    }
}
