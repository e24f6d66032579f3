package io.camelkubeflow.trainer.e2e;

import io.camelkubeflow.trainer.testing.BoundedProcess;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.HttpResponse;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * One of the two API servers a differential test sends the same requests to: its kubeconfig (for kubectl) and a
 * fabric8 client made from it (for fabric8 calls and raw HTTP with the same credentials and trust).
 */
record Side(String name, Path kubeconfig, KubernetesClient client) {
    /** What a process printed and how it ended. */
    record Run(int exitCode, String stdout, String stderr) {}

    /** An HTTP answer: status code, Content-Type, body, and the Warning header (null when none). */
    record Answer(int code, String contentType, String body, String warning) {}

    /** Runs kubectl with this side's kubeconfig and {@code stdin} (null: none). */
    Run kubectl(String stdin, String... args) {
        List<String> command = new ArrayList<>(List.of("kubectl", "--kubeconfig", kubeconfig.toString()));
        command.addAll(List.of(args));
        BoundedProcess.Result run = BoundedProcess.run(Duration.ofSeconds(60), command, stdin, Map.of(), null);
        return new Run(run.exitCode(), run.output(), run.error());
    }

    /** Sends a request with this side's credentials, accepting JSON; {@code body} null sends none. */
    Answer http(String method, String path, String contentType, byte[] body) {
        return http(method, path, "application/json", contentType, body);
    }

    /** Sends a request with this side's credentials, accepting {@code accept}; {@code body} null sends none. */
    Answer http(String method, String path, String accept, String contentType, byte[] body) {
        HttpRequest.Builder builder = client.getHttpClient()
                .newHttpRequestBuilder()
                .uri(client.getMasterUrl().toString().replaceAll("/$", "") + path)
                .setHeader("Accept", accept);
        if (body != null) {
            builder.method(method, contentType, new ByteArrayInputStream(body), body.length);
        } else if (!"GET".equals(method)) {
            builder.method(method, "application/json", "");
        }
        try {
            HttpResponse<byte[]> response = client.getHttpClient()
                    .sendAsync(builder.build(), byte[].class)
                    .get(60, TimeUnit.SECONDS);
            return new Answer(
                    response.code(),
                    response.header("Content-Type"),
                    new String(response.body(), StandardCharsets.UTF_8),
                    response.header("Warning"));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        } catch (ExecutionException | TimeoutException e) {
            throw new AssertionError(name + ": " + method + " " + path + " failed", e);
        }
    }

    Answer json(String method, String path, String json) {
        return http(method, path, "application/json", json == null ? null : json.getBytes(StandardCharsets.UTF_8));
    }
}
