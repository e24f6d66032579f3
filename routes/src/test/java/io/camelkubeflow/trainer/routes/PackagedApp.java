package io.camelkubeflow.trainer.routes;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The packaged app (target/quarkus-app) run as the README's first command runs it, in a folder of its own, with
 * nothing configured but the given environment: no kubeconfig (a home without ~/.kube), not in a cluster, the HTTP port
 * any free one. Its output is collected line by line.
 */
final class PackagedApp implements AutoCloseable {
    /** Every line the app printed so far. */
    final List<String> output = new CopyOnWriteArrayList<>();

    private final Process process;

    private PackagedApp(Process process) {
        this.process = process;
    }

    /** Starts the app in {@code work} and waits until it says it started. */
    static PackagedApp start(Path work, Map<String, String> environment) throws Exception {
        Path jar = Path.of("target/quarkus-app/quarkus-run.jar").toAbsolutePath();
        ProcessBuilder builder = new ProcessBuilder("java", "-Duser.home=" + work, "-jar", jar.toString())
                .directory(work.toFile())
                .redirectErrorStream(true);
        builder.environment().remove("KUBECONFIG");
        builder.environment().remove("KUBERNETES_SERVICE_HOST");
        builder.environment().put("QUARKUS_HTTP_PORT", "0");
        builder.environment().putAll(environment);
        PackagedApp app = new PackagedApp(builder.start());
        CompletableFuture.runAsync(() -> {
            try (BufferedReader lines =
                    new BufferedReader(new InputStreamReader(app.process.getInputStream(), StandardCharsets.UTF_8))) {
                lines.lines().forEach(app.output::add);
            } catch (IOException ignored) {
                // the app was stopped
            }
        });
        try {
            await(
                    () -> app.output.stream().anyMatch(l -> l.contains("started in")) || !app.process.isAlive(),
                    app.output);
            assertTrue(app.process.isAlive(), "the app did not start:\n" + String.join("\n", app.output));
        } catch (Throwable e) {
            app.close();
            throw e;
        }
        return app;
    }

    /** The port the HTTP server listens on, as Quarkus's start line says. */
    int httpPort() throws Exception {
        return httpPort(output);
    }

    static int httpPort(List<String> output) throws Exception {
        await(() -> output.stream().anyMatch(l -> l.contains("Listening on: http://")), output);
        Matcher address = Pattern.compile("http://[^:/]+:(\\d+)")
                .matcher(output.stream()
                        .filter(l -> l.contains("Listening on: http://"))
                        .findFirst()
                        .orElseThrow());
        assertTrue(address.find());
        return Integer.parseInt(address.group(1));
    }

    /** Waits up to 90 s for the condition; fails with what the app said. */
    static void await(BooleanSupplier condition, List<String> output) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(90).toNanos();
        while (!condition.getAsBoolean() && System.nanoTime() < deadline) {
            Thread.sleep(100);
        }
        assertTrue(condition.getAsBoolean(), "timed out; the app said:\n" + String.join("\n", output));
    }

    @Override
    public void close() throws InterruptedException {
        process.destroy();
        if (!process.waitFor(30, TimeUnit.SECONDS)) {
            process.destroyForcibly();
        }
    }
}
