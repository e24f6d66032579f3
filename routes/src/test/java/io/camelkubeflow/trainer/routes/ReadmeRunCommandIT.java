package io.camelkubeflow.trainer.routes;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static io.camelkubeflow.trainer.routes.PackagedApp.await;
import static io.camelkubeflow.trainer.routes.PackagedApp.httpPort;
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
            java.net.http.HttpResponse<String> first = get(java.net.http.HttpClient.newHttpClient(), port,
                    "/q/health/ready");
            assertEquals(200, first.statusCode(), first.body());
            await(() -> output.stream().anyMatch(l -> l.contains("e.g. curl")), output);
            String hint = output.stream().filter(l -> l.contains("e.g. curl")).findFirst().orElseThrow();
            assertTrue(hint.endsWith(" http://127.0.0.1:" + port + "/trainjobs"), hint);
            // the last thing a start logs: Camel's leadership task ends (5 s after the completion route's consumer
            // started), with what was a WARN on every start, now DEBUG
            await(() -> output.stream().anyMatch(l -> l.contains(" DEBUG ")
                    && l.contains("The task Leadership does not have more budget")), output);
            // Vert.x's blocked-thread checker warns when an event loop ran over 2 s: a measure of how loaded the
            // machine is (2 cores shared by the whole build), not of the app, so it is no part of a clean start's count
            List<String> warnings = output.stream().filter(l -> l.contains(" WARN ") || l.contains(" ERROR "))
                    .filter(l -> !l.contains("[io.vertx.core.impl.BlockedThreadChecker]")).toList();
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
            String listening = output.stream().filter(l -> l.contains("Listening on: http://")).findFirst()
                    .orElseThrow(() -> new AssertionError("no listening line in\n" + String.join("\n", output)));
            java.util.regex.Matcher address = java.util.regex.Pattern.compile("http://([^:/]+):(\\d+)")
                    .matcher(listening);
            assertTrue(address.find(), listening);
            assertEquals("127.0.0.1", address.group(1), listening);
            int port = Integer.parseInt(address.group(2));
            for (java.net.InetAddress other : nonLoopbackAddresses()) {
                try (java.net.Socket socket = new java.net.Socket()) {
                    socket.connect(new java.net.InetSocketAddress(other, port), 2000);
                    throw new AssertionError("the HTTP API answered on " + other + ":" + port);
                } catch (java.io.IOException refused) {
                    // not reachable from outside this machine
                }
            }
            java.net.http.HttpClient http = java.net.http.HttpClient.newHttpClient();
            java.net.URI job = java.net.URI.create("http://127.0.0.1:" + port + "/trainjobs/no-such-job");
            assertEquals(401, http.send(java.net.http.HttpRequest.newBuilder(job).build(),
                    java.net.http.HttpResponse.BodyHandlers.ofString()).statusCode());
            Path tokenFile = work.resolve(".camel-kubeflow-trainer/http-token");
            assertEquals("rw-------", java.nio.file.attribute.PosixFilePermissions.toString(
                    Files.getPosixFilePermissions(tokenFile)));
            String token = Files.readString(tokenFile);
            assertTrue(output.stream().anyMatch(l -> l.contains(tokenFile.toString())), "the app names its token file");
            assertTrue(output.stream().noneMatch(l -> l.contains(token)), "the token was logged");
            assertEquals(404, http.send(java.net.http.HttpRequest.newBuilder(job)
                    .header("Authorization", "Bearer " + token).build(),
                    java.net.http.HttpResponse.BodyHandlers.ofString()).statusCode());
            // readiness (open, as health endpoints are) says the app acts on the local sandbox, not a cluster
            // ready once every consumer has polled (the inbox's first poll comes a moment after the start)
            await(() -> get(http, port, "/q/health/ready").statusCode() == 200, output);
            java.net.http.HttpResponse<String> ready = get(http, port, "/q/health/ready");
            assertTrue(ready.body().contains("\"kubeflow-trainer:default\""), ready.body());
            assertTrue(!ready.body().contains("kubeflow-trainer:test"), "a check for a namespace the app does not use: "
                    + ready.body());
            // the sandbox's address is in the app's log only: no open answer names it
            java.util.regex.Matcher sandbox = java.util.regex.Pattern.compile("SANDBOX at (https://127\\.0\\.0\\.1:\\d+)")
                    .matcher(String.join("\n", output));
            assertTrue(sandbox.find(), "no sandbox address in the log:\n" + String.join("\n", output));
            String sandboxAddress = sandbox.group(1).substring("https://".length());
            for (String open : List.of("/q/health", "/q/health/ready", "/q/health/live", "/q/openapi", "/trainjobs")) {
                java.net.http.HttpResponse<String> answer = get(http, port, open);
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
        try (io.camelkubeflow.trainer.sandbox.TrainerSandbox cluster = io.camelkubeflow.trainer.sandbox
                .TrainerSandbox.start(io.camelkubeflow.trainer.sandbox.TrainerSandbox.Options.defaults()
                        .withController(Duration.ofMillis(50), Duration.ofMillis(200)))) {
            Path kubeconfig = cluster.writeKubeconfig(work.resolve("kubeconfig"));
            String apiAddress = "127.0.0.1:" + cluster.client().getMasterUrl().getPort();
            cluster.stopApiServer();
            runApp(Map.of("KUBECONFIG", kubeconfig.toString(), "TRAINER_CLUSTER", "cluster"), output -> {
                int port = httpPort(output);
                java.net.http.HttpClient http = java.net.http.HttpClient.newHttpClient();
                assertEquals(200, get(http, port, "/q/health/live").statusCode());
                // the app asked at start, so the first answer is already the probe's
                await(() -> get(http, port, "/q/health/ready").body().contains("does not answer"), output);
                java.net.http.HttpResponse<String> notReady = get(http, port, "/q/health/ready");
                assertEquals(503, notReady.statusCode(), notReady.body());
                assertTrue(notReady.body().contains("\"kubeflow-trainer:default\"")
                        && notReady.body().contains("does not answer"), notReady.body());
                assertTrue(!notReady.body().contains(apiAddress), "an open answer names the API server: "
                        + notReady.body());
                java.net.http.HttpResponse<String> refused = post(http, port, "any-token");
                assertEquals(503, refused.statusCode(), refused.body());
                assertTrue(refused.body().contains("Kubernetes API unreachable"), refused.body());

                cluster.startApiServer();
                await(() -> get(http, port, "/q/health/ready").statusCode() == 200, output);
                java.net.http.HttpResponse<String> created = post(http, port,
                        cluster.issueToken("developer", "system:masters"));
                assertEquals(201, created.statusCode(), created.body());
                String job = new ObjectMapper().readTree(created.body()).path("name").asText();
                await(() -> output.stream().anyMatch(l -> l.contains("\"event\":\"model-ready\"")
                        && l.contains(job)), output);
            });
        }
    }

    private static java.net.http.HttpResponse<String> get(java.net.http.HttpClient http, int port, String path) {
        try {
            return http.send(java.net.http.HttpRequest.newBuilder(java.net.URI.create("http://127.0.0.1:" + port
                    + path)).timeout(Duration.ofSeconds(30)).build(), java.net.http.HttpResponse.BodyHandlers.ofString());
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static java.net.http.HttpResponse<String> post(java.net.http.HttpClient http, int port, String token)
            throws Exception {
        return http.send(java.net.http.HttpRequest.newBuilder(java.net.URI.create("http://127.0.0.1:" + port
                + "/trainjobs")).timeout(Duration.ofSeconds(30)).header("Authorization", "Bearer " + token)
                .header("Content-Type", "application/json")
                .POST(java.net.http.HttpRequest.BodyPublishers.ofString("{\"pythonFile\": \"/app/train.py\"}")).build(),
                java.net.http.HttpResponse.BodyHandlers.ofString());
    }

    private static List<java.net.InetAddress> nonLoopbackAddresses() throws java.net.SocketException {
        List<java.net.InetAddress> addresses = new java.util.ArrayList<>();
        for (java.net.NetworkInterface nic : java.util.Collections.list(java.net.NetworkInterface.getNetworkInterfaces())) {
            for (java.net.InetAddress address : java.util.Collections.list(nic.getInetAddresses())) {
                if (!address.isLoopbackAddress() && address instanceof java.net.Inet4Address) {
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
        } catch (java.io.IOException e) {
            return "";
        }
    }
}
