package io.camelkubeflow.trainer.routes;

import static io.camelkubeflow.trainer.routes.PackagedApp.await;
import static io.camelkubeflow.trainer.routes.PackagedApp.httpPort;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.camelkubeflow.trainer.sandbox.TrainerSandbox;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.Socket;
import java.net.SocketException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

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

    /**
     * A clean start says nothing alarming and what it says holds: its only WARN is the one naming the local sandbox
     * (so nobody takes the emulation for a cluster), up to the last thing a start logs, its curl names the port the HTTP server listens on, and readiness
     * answers from the first probe.
     */
    @Test
    void aCleanStartWarnsOnlyOfTheSandboxNamesItsRealPortAndIsReadyAtTheFirstProbe() throws Exception {
        // the app's own settings, plus its DEBUG lines of Camel's background tasks: the last thing a start logs is
        // one of those, and the test waits for it to be there before it counts
        runApp(Map.of("QUARKUS_LOG_CATEGORY__ORG_APACHE_CAMEL_SUPPORT_TASK_BACKGROUNDTASK__LEVEL", "DEBUG"), output -> {
            int port = httpPort(output);
            HttpResponse<String> first = get(HttpClient.newHttpClient(), port, "/q/health/ready");
            assertEquals(200, first.statusCode(), first.body());
            await(() -> output.stream().anyMatch(l -> l.contains("e.g. curl")), output);
            String hint = output.stream()
                    .filter(l -> l.contains("e.g. curl"))
                    .findFirst()
                    .orElseThrow();
            assertTrue(hint.endsWith(" http://127.0.0.1:" + port + "/trainjobs"), hint);
            // the last thing a start logs: Camel's leadership task ends (5 s after the completion route's consumer
            // started), with what was a WARN on every start, now DEBUG
            await(
                    () -> output.stream()
                            .anyMatch(l -> l.contains(" DEBUG ")
                                    && l.contains("The task Leadership does not have more budget")),
                    output);
            // Vert.x's blocked-thread checker warns when an event loop ran over 2 s: a measure of how loaded the
            // machine is (2 cores shared by the whole build), not of the app, so it is no part of a clean start's count
            List<String> warnings = output.stream()
                    .filter(l -> l.contains(" WARN ") || l.contains(" ERROR "))
                    .filter(l -> !l.contains("[io.vertx.core.impl.BlockedThreadChecker]"))
                    .toList();
            assertEquals(1, warnings.size(), String.join("\n", output));
            assertTrue(warnings.get(0).contains("LOCAL TRAINER SANDBOX"), warnings.get(0));
        });
    }

    /**
     * The local default is not a remote shell: the HTTP API listens on loopback only, and even there a request needs
     * the token the app wrote to a file only its user can read (a web page can send to localhost, not read that file).
     */
    @Test
    void theLocalHttpApiListensOnLoopbackOnlyAndNeedsTheTokenFromItsFile() throws Exception {
        runApp(Map.of(), output -> {
            // Camel's "started in" can come before Quarkus's line about the HTTP server
            await(() -> output.stream().anyMatch(l -> l.contains("Listening on: http://")), output);
            String listening = output.stream()
                    .filter(l -> l.contains("Listening on: http://"))
                    .findFirst()
                    .orElseThrow(() -> new AssertionError("no listening line in\n" + String.join("\n", output)));
            Matcher address = Pattern.compile("http://([^:/]+):(\\d+)").matcher(listening);
            assertTrue(address.find(), listening);
            assertEquals("127.0.0.1", address.group(1), listening);
            int port = Integer.parseInt(address.group(2));
            for (InetAddress other : nonLoopbackAddresses()) {
                try (Socket socket = new Socket()) {
                    socket.connect(new InetSocketAddress(other, port), 2000);
                    throw new AssertionError("the HTTP API answered on " + other + ":" + port);
                } catch (IOException refused) {
                    // not reachable from outside this machine
                }
            }
            HttpClient http = HttpClient.newHttpClient();
            URI job = URI.create("http://127.0.0.1:" + port + "/trainjobs/no-such-job");
            assertEquals(
                    401,
                    http.send(HttpRequest.newBuilder(job).build(), HttpResponse.BodyHandlers.ofString())
                            .statusCode());
            Path tokenFile = work.resolve(".camel-kubeflow-trainer/http-token");
            assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(tokenFile)));
            String token = Files.readString(tokenFile);
            assertTrue(output.stream().anyMatch(l -> l.contains(tokenFile.toString())), "the app names its token file");
            assertTrue(output.stream().noneMatch(l -> l.contains(token)), "the token was logged");
            assertEquals(
                    404,
                    http.send(
                                    HttpRequest.newBuilder(job)
                                            .header("Authorization", "Bearer " + token)
                                            .build(),
                                    HttpResponse.BodyHandlers.ofString())
                            .statusCode());
            // readiness (open, as health endpoints are) says the app acts on the local sandbox, not a cluster
            // ready once every consumer has polled (the inbox's first poll comes a moment after the start)
            await(() -> get(http, port, "/q/health/ready").statusCode() == 200, output);
            HttpResponse<String> ready = get(http, port, "/q/health/ready");
            assertTrue(ready.body().contains("\"kubeflow-trainer:default\""), ready.body());
            assertTrue(
                    !ready.body().contains("kubeflow-trainer:test"),
                    "a check for a namespace the app does not use: " + ready.body());
            // the sandbox's address is in the app's log only: no open answer names it
            Matcher sandbox =
                    Pattern.compile("SANDBOX at (https://127\\.0\\.0\\.1:\\d+)").matcher(String.join("\n", output));
            assertTrue(sandbox.find(), "no sandbox address in the log:\n" + String.join("\n", output));
            String sandboxAddress = sandbox.group(1).substring("https://".length());
            for (String open : List.of("/q/health", "/q/health/ready", "/q/health/live", "/q/openapi", "/trainjobs")) {
                HttpResponse<String> answer = get(http, port, open);
                assertTrue(!answer.body().contains(sandboxAddress), open + " names the sandbox: " + answer.body());
            }
            JsonNode connection = null;
            for (JsonNode check : new ObjectMapper().readTree(ready.body()).path("checks")) {
                if ("kubernetes-connection".equals(check.path("name").asText())) {
                    connection = check;
                }
            }
            assertTrue(connection != null, "no kubernetes-connection check in " + ready.body());
            assertEquals("sandbox", connection.path("data").path("connection").asText(), ready.body());
        });
    }

    /**
     * An outage is a state, not a crash: with its cluster's API server down, the app starts, stays live, is not ready
     * (saying why), answers 503 at once; when the API server is back it becomes ready, creates, and its completion
     * route (whose first list failed at start) reports the job's end, with no restart.
     */
    @Test
    void theAppStartsWhileItsClusterIsDownAndServesOnceItIsBack() throws Exception {
        // the cluster: a sandbox whose API server is down, its kubeconfig (its token, its certificate) at hand
        try (TrainerSandbox cluster = TrainerSandbox.start(
                TrainerSandbox.Options.defaults().withController(Duration.ofMillis(50), Duration.ofMillis(200)))) {
            Path kubeconfig = cluster.writeKubeconfig(work.resolve("kubeconfig"));
            String apiAddress = "127.0.0.1:" + cluster.client().getMasterUrl().getPort();
            cluster.stopApiServer();
            runApp(Map.of("KUBECONFIG", kubeconfig.toString(), "TRAINER_CLUSTER", "cluster"), output -> {
                int port = httpPort(output);
                HttpClient http = HttpClient.newHttpClient();
                assertEquals(200, get(http, port, "/q/health/live").statusCode());
                // the app asked at start, so the first answer is already the probe's
                await(() -> get(http, port, "/q/health/ready").body().contains("does not answer"), output);
                HttpResponse<String> notReady = get(http, port, "/q/health/ready");
                assertEquals(503, notReady.statusCode(), notReady.body());
                assertTrue(
                        notReady.body().contains("\"kubeflow-trainer:default\"")
                                && notReady.body().contains("does not answer"),
                        notReady.body());
                assertTrue(
                        !notReady.body().contains(apiAddress),
                        "an open answer names the API server: " + notReady.body());
                HttpResponse<String> refused = post(http, port, "any-token");
                assertEquals(503, refused.statusCode(), refused.body());
                assertTrue(refused.body().contains("Kubernetes API unreachable"), refused.body());

                cluster.startApiServer();
                await(() -> get(http, port, "/q/health/ready").statusCode() == 200, output);
                HttpResponse<String> created = post(http, port, cluster.issueToken("developer", "system:masters"));
                assertEquals(201, created.statusCode(), created.body());
                String job =
                        new ObjectMapper().readTree(created.body()).path("name").asText();
                await(
                        () -> output.stream().anyMatch(l -> l.contains("\"event\":\"model-ready\"") && l.contains(job)),
                        output);
            });
        }
    }

    private static HttpResponse<String> get(HttpClient http, int port, String path) {
        try {
            return http.send(
                    HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                            .timeout(Duration.ofSeconds(30))
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static HttpResponse<String> post(HttpClient http, int port, String token) throws Exception {
        return http.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/trainjobs"))
                        .timeout(Duration.ofSeconds(30))
                        .header("Authorization", "Bearer " + token)
                        .header("Content-Type", "application/json")
                        .POST(HttpRequest.BodyPublishers.ofString("{\"pythonFile\": \"/app/train.py\"}"))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private static List<InetAddress> nonLoopbackAddresses() throws SocketException {
        List<InetAddress> addresses = new ArrayList<>();
        for (NetworkInterface nic : Collections.list(NetworkInterface.getNetworkInterfaces())) {
            for (InetAddress address : Collections.list(nic.getInetAddresses())) {
                if (!address.isLoopbackAddress() && address instanceof Inet4Address) {
                    addresses.add(address);
                }
            }
        }
        return addresses;
    }

    @Test
    void asDeployedItWritesJsonLinesWhoseMdcNamesTheTrainJob() throws Exception {
        runApp(Map.of("QUARKUS_LOG_CONSOLE_JSON_ENABLED", "true"), output -> {
            Files.createDirectories(work.resolve("inbox"));
            Files.copy(Path.of("../examples/scripts/hello_train.py"), work.resolve("inbox/hello_train.py"));
            await(() -> output.stream().anyMatch(l -> l.contains("Created TrainJob")), output);
            String created = output.stream()
                    .filter(l -> l.contains("Created TrainJob"))
                    .findFirst()
                    .orElseThrow();
            JsonNode line = new ObjectMapper().readTree(created);
            String job = line.path("mdc").path("CamelKubeflowTrainerJobName").asText();
            assertTrue(job.startsWith("inbox-") && line.path("message").asText().contains("default/" + job), created);
            assertEquals(
                    "default",
                    line.path("mdc").path("CamelKubeflowTrainerNamespace").asText(),
                    created);
        });
    }

    private interface WhileRunning {
        void accept(List<String> output) throws Exception;
    }

    /** Runs the packaged app as the README does, with nothing configured but the given environment. */
    private void runApp(Map<String, String> environment, WhileRunning check) throws Exception {
        try (PackagedApp app = PackagedApp.start(work, environment)) {
            check.accept(app.output);
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
        } catch (IOException e) {
            return "";
        }
    }
}
