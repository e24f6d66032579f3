package io.camelkubeflow.trainer.routes;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The README's first command on a machine with nothing configured: the packaged app starts (on the local sandbox,
 * Kafka and S3 routes off), and a script dropped into its inbox trains and leaves its real output in the outbox. And
 * with the JSON logging deploy/ turns on, the component's line about a TrainJob names it in its MDC.
 */
class ReadmeRunCommandIT {
    @TempDir
    Path work;

    @Test
    void thePackagedAppStartsWithNothingConfiguredAndTrainsADroppedScript() throws Exception {
        runApp(Map.of(), output -> {
            Files.createDirectories(work.resolve("inbox"));
            Files.copy(Path.of("../examples/scripts/hello_train.py"), work.resolve("inbox/hello_train.py"));
            await(() -> outboxLog().contains("METRIC loss=0.333 epochs=3"), output);
        });
    }

    @Test
    void asDeployedItWritesJsonLinesWhoseMdcNamesTheTrainJob() throws Exception {
        runApp(Map.of("QUARKUS_LOG_CONSOLE_JSON_ENABLED", "true"), output -> {
            Files.createDirectories(work.resolve("inbox"));
            Files.copy(Path.of("../examples/scripts/hello_train.py"), work.resolve("inbox/hello_train.py"));
            await(() -> output.stream().anyMatch(l -> l.contains("Created TrainJob")), output);
            String created = output.stream().filter(l -> l.contains("Created TrainJob")).findFirst().orElseThrow();
            JsonNode line = new ObjectMapper().readTree(created);
            String job = line.path("mdc").path("CamelKubeflowTrainerJobName").asText();
            assertTrue(job.startsWith("inbox-") && line.path("message").asText().contains("default/" + job), created);
            assertEquals("default", line.path("mdc").path("CamelKubeflowTrainerNamespace").asText(), created);
        });
    }

    private interface WhileRunning {
        void accept(List<String> output) throws Exception;
    }

    /** Runs the packaged app as the README does, with nothing configured but the given environment. */
    private void runApp(Map<String, String> environment, WhileRunning check) throws Exception {
        Path jar = Path.of("target/quarkus-app/quarkus-run.jar").toAbsolutePath();
        // nothing configured: no kubeconfig (a home without ~/.kube), not in a cluster; the HTTP port is any free one
        ProcessBuilder builder = new ProcessBuilder("java", "-Duser.home=" + work, "-jar", jar.toString())
                .directory(work.toFile()).redirectErrorStream(true);
        builder.environment().remove("KUBECONFIG");
        builder.environment().remove("KUBERNETES_SERVICE_HOST");
        builder.environment().put("QUARKUS_HTTP_PORT", "0");
        builder.environment().putAll(environment);
        Process app = builder.start();
        List<String> output = new CopyOnWriteArrayList<>();
        CompletableFuture.runAsync(() -> {
            try (BufferedReader lines = new BufferedReader(new InputStreamReader(app.getInputStream(),
                    StandardCharsets.UTF_8))) {
                lines.lines().forEach(output::add);
            } catch (java.io.IOException ignored) {
                // the app was stopped
            }
        });
        try {
            await(() -> output.stream().anyMatch(l -> l.contains("started in")) || !app.isAlive(), output);
            assertTrue(app.isAlive(), "the app did not start:\n" + String.join("\n", output));
            check.accept(output);
        } finally {
            app.destroy();
            if (!app.waitFor(30, TimeUnit.SECONDS)) {
                app.destroyForcibly();
            }
        }
    }

    private String outboxLog() {
        Path outbox = work.resolve("outbox");
        if (!Files.isDirectory(outbox)) {
            return "";
        }
        try (Stream<Path> files = Files.list(outbox)) {
            StringBuilder logs = new StringBuilder();
            for (Path log : files.filter(f -> f.toString().endsWith(".log")).toList()) {
                logs.append(Files.readString(log));
            }
            return logs.toString();
        } catch (java.io.IOException e) {
            return "";
        }
    }

    private static void await(java.util.function.BooleanSupplier condition, List<String> output) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(90).toNanos();
        while (!condition.getAsBoolean() && System.nanoTime() < deadline) {
            Thread.sleep(100);
        }
        assertTrue(condition.getAsBoolean(), "timed out; the app said:\n" + String.join("\n", output));
    }
}
