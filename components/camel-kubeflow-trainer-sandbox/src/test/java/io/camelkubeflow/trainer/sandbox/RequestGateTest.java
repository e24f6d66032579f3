package io.camelkubeflow.trainer.sandbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.camelkubeflow.trainer.sandbox.store.Discovery;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The sandbox's API server as another local user or a web page in a local browser meets it: nothing without a token
 * the sandbox issued, nothing a browser sends, no write of a body type kube-apiserver does not decode. Requests are
 * written byte by byte on a TLS socket, so every header (Host, Origin, Upgrade) is as an attacker would send it.
 */
class RequestGateTest {
    private static final String SECRET_VALUE = "czNjcjN0LXZhbHVl";
    private static final String TRAINJOBS = "/apis/trainer.kubeflow.org/v1alpha1/namespaces/default/trainjobs";
    private static final String TRAINJOB = """
            {"apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "TrainJob",
             "metadata": {"name": "from-a-page"},
             "spec": {"runtimeRef": {"name": "torch-distributed"},
                      "trainer": {"command": ["python", "-c", "import os; os.system('id')"]}}}""";
    private static TrainerSandbox sandbox;
    private static final List<String> trainJobWrites = new CopyOnWriteArrayList<>();
    private long mark;

    @BeforeAll
    static void start() {
        sandbox = TrainerSandbox.start();
        sandbox.onTrainJobWrite(trainJobWrites::add);
        sandbox.client()
                .secrets()
                .inNamespace("default")
                .resource(new SecretBuilder()
                        .withNewMetadata()
                        .withName("hf-token")
                        .endMetadata()
                        .addToData("token", SECRET_VALUE)
                        .build())
                .create();
    }

    @AfterAll
    static void stop() {
        sandbox.close();
    }

    @BeforeEach
    void markRequests() {
        mark = sandbox.requestCount();
    }

    @Test
    void anonymousReadsOfSecretsAreUnauthorizedAndReturnNoObject() throws IOException {
        for (String path : List.of(
                "/api/v1/secrets",
                "/api/v1/namespaces/default/secrets",
                "/api/v1/namespaces/default/secrets/hf-token",
                TRAINJOBS)) {
            Answer answer = send("GET", path, Map.of(), null);
            assertUnauthorized(answer, path);
            assertFalse(answer.body().contains(SECRET_VALUE) || answer.body().contains("\"items\""), answer.body());
        }
        assertEquals(0, sandbox.requestCount() - mark, "a refused request reaches no handler of the sandbox");
    }

    @Test
    void aTokenTheSandboxDidNotIssueIsUnauthorized() throws IOException {
        String issued = sandbox.issueToken("alice");
        List<String> refused = List.of(
                "Bearer ",
                "Bearer    ",
                "Bearer forged",
                "Bearer " + issued.toUpperCase(),
                "Bearer " + issued + "x",
                "Basic " + Base64.getEncoder().encodeToString(("alice:" + issued).getBytes(StandardCharsets.UTF_8)),
                issued);
        for (String authorization : refused) {
            Answer answer =
                    send("GET", "/api/v1/namespaces/default/secrets", Map.of("Authorization", authorization), null);
            assertUnauthorized(answer, authorization);
            assertFalse(answer.body().contains(issued), "the answer repeats no token: " + answer.body());
        }
    }

    @Test
    void aTokenTheSandboxIssuedReads() throws IOException {
        String issued = sandbox.issueToken("alice");
        for (String authorization : List.of("Bearer " + issued, "bearer " + issued)) {
            Answer answer = send(
                    "GET", "/api/v1/namespaces/default/secrets/hf-token", Map.of("Authorization", authorization), null);
            assertEquals(200, answer.code(), answer.body());
            assertTrue(answer.body().contains(SECRET_VALUE), answer.body());
        }
        assertEquals(
                "hf-token",
                sandbox.client()
                        .secrets()
                        .inNamespace("default")
                        .withName("hf-token")
                        .get()
                        .getMetadata()
                        .getName(),
                "the sandbox's own client carries the admin token");
    }

    @Test
    void everythingButTheOpenInformationNeedsAToken() throws IOException {
        sandbox.podLogs().create("default", "worker-0");
        for (String path : List.of(
                "/api",
                "/apis",
                "/api/v1",
                "/openapi/v2",
                "/openapi/v3",
                "/openapi/v3/apis/trainer.kubeflow.org/v1alpha1",
                "/api/v1/namespaces/default/pods/worker-0/log",
                "/api/v1/namespaces/default/pods/worker-0/log?follow=true",
                TRAINJOBS + "?watch=true",
                "/apis/authentication.k8s.io/v1/tokenreviews",
                "/versions",
                "/healthz/etcd")) {
            assertUnauthorized(send("GET", path, Map.of(), null), path);
        }
        Answer version = send("GET", "/version", Map.of(), null);
        assertEquals(200, version.code(), "open to anyone, as system:public-info-viewer makes it: " + version.body());
        assertTrue(version.body().contains(Discovery.KUBERNETES_VERSION), version.body());
        // the other open paths reach the store too: none of them may answer with what it holds
        for (String open : List.of("/healthz", "/livez", "/readyz", "/healthz?verbose", "/version/")) {
            Answer answer = send("GET", open, Map.of(), null);
            assertEquals(200, answer.code(), open);
            assertFalse(
                    answer.body().contains(SECRET_VALUE) || answer.body().contains("\"items\""),
                    open + ": " + answer.body());
        }
        // open to a GET only
        for (String method : List.of("POST", "PUT", "DELETE")) {
            assertUnauthorized(send(method, "/healthz", Map.of("Content-Type", "application/json"), "{}"), method);
        }
    }

    @Test
    void aWebSocketWatchWithoutATokenIsNotUpgraded() throws IOException {
        Answer answer = send(
                "GET",
                TRAINJOBS + "?watch=true",
                Map.of(
                        "Connection",
                        "Upgrade",
                        "Upgrade",
                        "websocket",
                        "Sec-WebSocket-Version",
                        "13",
                        "Sec-WebSocket-Key",
                        "dGhlIHNhbXBsZSBub25jZQ=="),
                null);
        assertUnauthorized(answer, "a WebSocket upgrade");
    }

    @Test
    void aWebSocketWatchFromAnotherOriginIsForbidden() throws IOException {
        Map<String, String> headers = new LinkedHashMap<>(admin());
        headers.putAll(Map.of(
                "Connection",
                "Upgrade",
                "Upgrade",
                "websocket",
                "Sec-WebSocket-Version",
                "13",
                "Sec-WebSocket-Key",
                "dGhlIHNhbXBsZSBub25jZQ==",
                "Origin",
                "http://evil.example"));
        assertStatus(403, "Forbidden", send("GET", TRAINJOBS + "?watch=true", headers, null), "a foreign Origin");
    }

    @Test
    void aWriteABrowserSendsIsForbiddenAndWritesNothing() throws IOException {
        List<Map<String, String>> browsers = List.of(
                Map.of("Origin", "http://evil.example"),
                Map.of("Origin", "null"),
                Map.of("Origin", sandbox.masterUrl().replaceAll("/$", "")),
                Map.of("Sec-Fetch-Site", "cross-site"),
                Map.of("Sec-Fetch-Site", "same-site"));
        for (Map<String, String> browser : browsers) {
            Map<String, String> headers = new LinkedHashMap<>(admin());
            headers.put("Content-Type", "application/json");
            headers.putAll(browser);
            Answer answer = send("POST", TRAINJOBS, headers, TRAINJOB);
            assertStatus(403, "Forbidden", answer, browser.toString());
        }
        assertNothingWritten();
    }

    @Test
    void aRequestForAnotherHostIsForbiddenAndWritesNothing() throws IOException {
        int port = sandbox.client().getMasterUrl().getPort();
        for (String host : List.of(
                "localhost.evil.com:" + port,
                "evil.com:" + port,
                "127.0.0.1.nip.io:" + port,
                "127.0.0.1:" + (port + 1),
                "127.0.0.1",
                "")) {
            Map<String, String> headers = new LinkedHashMap<>(admin());
            headers.put("Content-Type", "application/json");
            headers.put("Host", host);
            assertStatus(403, "Forbidden", send("POST", TRAINJOBS, headers, TRAINJOB), "Host " + host);
            headers.remove("Content-Type");
            assertStatus(
                    403, "Forbidden", send("GET", "/api/v1/namespaces/default/secrets", headers, null), "Host " + host);
        }
        assertNothingWritten();
        for (String host : List.of(
                "localhost:" + port,
                "LOCALHOST:" + port,
                sandbox.client().getMasterUrl().getHost() + ":" + port)) {
            Map<String, String> headers = new LinkedHashMap<>(admin());
            headers.put("Host", host);
            assertEquals(
                    200,
                    send("GET", "/api/v1/namespaces/default/secrets", headers, null)
                            .code(),
                    host);
        }
    }

    @Test
    void aWriteOfABodyKubernetesDoesNotDecodeIsUnsupportedAndWritesNothing() throws IOException {
        List<String> types = new ArrayList<>(List.of(
                "text/plain",
                "text/plain;charset=UTF-8",
                "application/x-www-form-urlencoded",
                "multipart/form-data; boundary=x",
                "application/jsonx",
                "text/json"));
        types.add(null);
        for (String type : types) {
            Map<String, String> headers = new LinkedHashMap<>(admin());
            if (type != null) {
                headers.put("Content-Type", type);
            }
            assertStatus(415, "UnsupportedMediaType", send("POST", TRAINJOBS, headers, TRAINJOB), "type " + type);
            assertStatus(
                    415,
                    "UnsupportedMediaType",
                    send("PUT", TRAINJOBS + "/from-a-page", headers, TRAINJOB),
                    "type " + type);
        }
        assertNothingWritten();
    }

    @Test
    void theKubeconfigIsTheOwnersOnlyAndCarriesTheToken(@TempDir Path dir) throws IOException {
        Path path = dir.resolve("sandbox.kubeconfig");
        // a file left there readable by all is replaced, not written into
        Files.writeString(path, "old");
        Files.setPosixFilePermissions(path, PosixFilePermissions.fromString("rw-r--r--"));
        Path written = sandbox.writeKubeconfig(path);
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(written)));
        assertTrue(
                Files.readString(written)
                        .contains(
                                "token: " + sandbox.client().getConfiguration().getOauthToken()),
                "kubectl and the Python SDK authenticate with the kubeconfig's token");
    }

    @Test
    void aTokenFileIsTheOwnersOnlyAndALinkThereIsReplacedNotFollowed(@TempDir Path dir) throws IOException {
        Path elsewhere = Files.writeString(dir.resolve("elsewhere"), "someone else's");
        Path path = dir.resolve("http-token");
        Files.createSymbolicLink(path, elsewhere);
        Path written = sandbox.writeToken(path, "developer", "system:masters");
        assertFalse(Files.isSymbolicLink(written), "the link is replaced by the token's own file");
        assertEquals("someone else's", Files.readString(elsewhere), "the link's target never receives the token");
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(written)));
        Map<String, String> bearer = Map.of("Authorization", "Bearer " + Files.readString(written));
        assertEquals(200, send("GET", TRAINJOBS, bearer, null).code(), "the file's token authenticates");
    }

    private static void assertUnauthorized(Answer answer, String what) {
        assertStatus(401, "Unauthorized", answer, what);
    }

    private static void assertStatus(int code, String reason, Answer answer, String what) {
        assertEquals(code, answer.code(), what + ": " + answer.body());
        Map<?, ?> status = Serialization.unmarshal(answer.body(), Map.class);
        assertEquals(
                List.of("Status", "Failure", reason, code),
                List.of(status.get("kind"), status.get("status"), status.get("reason"), status.get("code")),
                what);
    }

    private void assertNothingWritten() {
        assertEquals(List.of(), trainJobWrites, "no TrainJob body reached the store");
        assertEquals(
                List.of(),
                sandbox.client()
                        .genericKubernetesResources("trainer.kubeflow.org/v1alpha1", "TrainJob")
                        .inNamespace("default")
                        .list()
                        .getItems());
        assertEquals(
                List.of(),
                sandbox.requestsSince(mark).stream()
                        .filter(r -> !"GET".equals(r.getMethod()))
                        .map(r -> r.getMethod() + " " + r.getPath())
                        .toList(),
                "writes the sandbox served");
    }

    private static Map<String, String> admin() {
        return Map.of(
                "Authorization", "Bearer " + sandbox.client().getConfiguration().getOauthToken());
    }

    /** What came back: the status code and the body. */
    private record Answer(int code, String body) {}

    /**
     * Sends one HTTP/1.1 request with exactly these headers (a Host of the sandbox's address unless one is given) and
     * reads the answer, sent whole as the refusals are, until the server closes the connection.
     */
    private static Answer send(String method, String path, Map<String, String> headers, String body)
            throws IOException {
        var url = sandbox.client().getMasterUrl();
        StringBuilder request = new StringBuilder(method + " " + path + " HTTP/1.1\r\n");
        if (!headers.containsKey("Host")) {
            request.append("Host: ")
                    .append(url.getHost())
                    .append(':')
                    .append(url.getPort())
                    .append("\r\n");
        }
        headers.forEach(
                (name, value) -> request.append(name).append(": ").append(value).append("\r\n"));
        byte[] bytes = body == null ? new byte[0] : body.getBytes(StandardCharsets.UTF_8);
        if (body != null) {
            request.append("Content-Length: ").append(bytes.length).append("\r\n");
        }
        if (!headers.containsKey("Upgrade")) {
            request.append("Connection: close\r\n");
        }
        request.append("\r\n");
        try (Socket socket = sandbox.sslContext().getSocketFactory().createSocket(url.getHost(), url.getPort())) {
            socket.setSoTimeout(30_000);
            OutputStream out = socket.getOutputStream();
            out.write(request.toString().getBytes(StandardCharsets.ISO_8859_1));
            out.write(bytes);
            out.flush();
            String answer = readAnswer(socket.getInputStream());
            int headEnd = answer.indexOf("\r\n\r\n");
            return new Answer(
                    Integer.parseInt(answer.substring(9, 12)), headEnd < 0 ? "" : answer.substring(headEnd + 4));
        }
    }

    /**
     * The answer's bytes up to the end of its body: the connection's end, or its Content-Length; an upgrade to a
     * WebSocket ({@code 101}) ends with its head, as the socket then stays open.
     */
    private static String readAnswer(InputStream in) throws IOException {
        ByteArrayOutputStream read = new ByteArrayOutputStream();
        byte[] buffer = new byte[8192];
        int n;
        while ((n = in.read(buffer)) >= 0) {
            read.write(buffer, 0, n);
            String sofar = read.toString(StandardCharsets.UTF_8);
            int headEnd = sofar.indexOf("\r\n\r\n");
            Matcher length = Pattern.compile("(?im)^content-length: *(\\d+)")
                    .matcher(headEnd < 0 ? "" : sofar.substring(0, headEnd));
            if (headEnd >= 0 && sofar.startsWith("HTTP/1.1 101")
                    || length.find() && read.size() >= headEnd + 4 + Integer.parseInt(length.group(1))) {
                break;
            }
        }
        return read.toString(StandardCharsets.UTF_8);
    }
}
