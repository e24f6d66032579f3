package io.camelkubeflow.trainer.bench;

import io.camelkubeflow.trainer.sandbox.TrainerSandbox;
import io.fabric8.kubernetes.client.Config;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.Predicate;

/** The sandbox API server in this JVM, on loopback, with its controller emulation; requests counted by its recorder. */
final class SandboxTarget extends BenchTarget {
    private final TrainerSandbox sandbox;
    private Path kubeconfig;

    SandboxTarget() {
        this(TrainerSandbox.start());
    }

    SandboxTarget(TrainerSandbox sandbox) {
        this.sandbox = sandbox;
    }

    TrainerSandbox sandbox() {
        return sandbox;
    }

    @Override
    String name() {
        return "sandbox";
    }

    @Override
    Config adminConfig() {
        return sandbox.client().getConfiguration();
    }

    @Override
    synchronized Path kubeconfig() {
        if (kubeconfig == null) {
            try {
                kubeconfig = sandbox.writeKubeconfig(Files.createTempFile("bench-", ".kubeconfig"));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return kubeconfig;
    }

    @Override
    long requestMark() {
        return sandbox.requestCount();
    }

    @Override
    long requestsSince(long mark, Predicate<String> userAgent) {
        return sandbox.requestsSince(mark).stream()
                .filter(r -> userAgent.test(r.getHeader("User-Agent")))
                .count();
    }

    @Override
    String runtime() {
        return "torch-distributed";
    }

    @Override
    void createNamespace(String name) {
        sandbox.createNamespace(name);
    }

    @Override
    public void close() throws Exception {
        super.close();
        if (kubeconfig != null) {
            Files.deleteIfExists(kubeconfig);
        }
        sandbox.close();
    }
}
