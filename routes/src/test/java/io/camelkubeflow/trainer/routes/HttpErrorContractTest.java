package io.camelkubeflow.trainer.routes;

import static io.camelkubeflow.trainer.routes.HttpRoutesTest.HTTP;
import static io.camelkubeflow.trainer.routes.HttpRoutesTest.json;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.camelkubeflow.trainer.api.TrainJob;
import io.camelkubeflow.trainer.job.TrainField;
import io.camelkubeflow.trainer.quarkus.LocalTrainerSandbox;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.URL;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The HTTP API's error contract: every refusal is a 4xx with RFC 9457 problem details (application/problem+json: type,
 * title, status, detail, instance) naming the field as the caller wrote it and the fix, and no request, however bad,
 * gets an empty answer or a 500; nothing is written for any of them.
 */
@QuarkusTest
@QuarkusTestResource(FreshFolders.class)
@QuarkusTestResource(OidcProviderResource.class)
class HttpErrorContractTest {
    @TestHTTPResource("/trainjobs")
    URL trainjobs;

    @Inject
    KubernetesClient client;

    @Inject
    LocalTrainerSandbox localSandbox;

    private HttpResponse<String> send(String method, String path, HttpRequest.BodyPublisher body, String idempotencyKey)
            throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(trainjobs + path))
                .timeout(Duration.ofSeconds(30))
                .header("Authorization", "Bearer " + HttpRoutesTest.localToken())
                .header("Content-Type", "application/json")
                .method(method, body);
        if (idempotencyKey != null) {
            request.header("Idempotency-Key", idempotencyKey);
        }
        return HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    private HttpResponse<String> post(String body) throws Exception {
        return send("POST", "", HttpRequest.BodyPublishers.ofString(body), null);
    }

    /** Bad train requests (bodies) and the field each refusal names: also held to the schema by ContractAgreementTest. */
    static Map<String, String> badRequests() {
        Map<String, String> wantedField = new LinkedHashMap<>();
        wantedField.put("", "body");
        wantedField.put("   ", "body");
        wantedField.put("null", "body");
        wantedField.put("[1, 2]", "body");
        wantedField.put("{\"script\": ", "body");
        wantedField.put("{\"pythonFile\": \"/a.py\", \"numNodes\": \"many\"}", "numNodes");
        wantedField.put("{\"pythonFile\": \"/a.py\", \"nodes\": 2}", "nodes");
        wantedField.put("{\"script\": 42}", "script");
        wantedField.put("{\"pythonFile\": \"/a.py\", \"numNodes\": 1.5}", "numNodes");
        wantedField.put("{\"pythonFile\": \"/a.py\", \"numNodes\": 4294967298}", "numNodes");
        wantedField.put("{\"pythonFile\": \"/a.py\", \"args\": {\"lr\": 0.1}}", "args");
        wantedField.put("{\"pythonFile\": \"/a.py\", \"args\": [\"--lr\", 0.1]}", "args");
        wantedField.put("{\"script\": \"print(1)\", \"packages\": [{\"name\": \"numpy\"}]}", "packages");
        wantedField.put("{\"pythonFile\": \"/a.py\", \"env\": {\"LR\": {\"v\": 1}}}", "env.LR");
        wantedField.put("{\"pythonFile\": \"/a.py\", \"resources\": {\"cpu\": 4}}", "resources.cpu");
        // one quantity given twice with two values: refused, neither dropped (cpu wins over resources.cpu no more)
        wantedField.put(
                "{\"pythonFile\": \"/app/t.py\", \"gpu\": \"8\", \"resources\": {\"nvidia.com/gpu\": \"9\"}}", "gpu");
        wantedField.put("{\"pythonFile\": \"/a.py\", \"resources\": {\"cpu\": \"2\"}, \"cpu\": \"4\"}", "cpu");
        wantedField.put("{\"command\": \"python 'x.py\"}", "command");
        wantedField.put("{\"pythonFile\": \"/a.py\", \"launcher\": \"deepspeed\"}", "launcher");
        wantedField.put("{\"pythonFile\": \"/a.py\", \"args\": \"--lr \\\"0.1\"}", "args");
        wantedField.put("{\"pythonFile\": \"/a.py\", \"suspend\": \"yes\"}", "suspend");
        wantedField.put("{\"script\": \"print(1)\", \"scriptFileName\": \"..\"}", "scriptFileName");
        wantedField.put("{\"script\": \"print(1)\", \"scriptFileName\": \".\"}", "scriptFileName");
        wantedField.put("{\"script\": \"print(1)\\u0000\"}", "script");
        wantedField.put("{\"pythonFile\": \"/a.py\", \"args\": [\"a\\u0000b\"]}", "args");
        wantedField.put("{\"command\": [\"python\", \"-c\", \"\\u0000\"]}", "command");
        // one JSON object of whole characters, no field twice: the refusal names where it is
        wantedField.put("{\"script\": \"print(1)\", \"script\": \"print(2)\"}", "script");
        wantedField.put("{\"script\": \"print(1)\", \"labels\": {\"team\": \"a\", \"team\": \"b\"}}", "labels.team");
        wantedField.put("{\"script\": \"print(1)\", \"annotations\": {\"note\": \"\\ud800\"}}", "annotations.note");
        wantedField.put("{\"script\": \"print(1)\"} {\"script\": \"print(2)\"}", "body");
        wantedField.put("{\"script\": \"print(1)\", \"nodes\": \"\\ud800\"}", "nodes");
        // what the train request's schema once let through (issue 38)
        wantedField.put("{}", "command/pythonFile/script");
        wantedField.put("{\"command\": \"python x.py\", \"script\": \"print(1)\"}", "command/pythonFile/script");
        wantedField.put("{\"script\": \"print(1)\", \"numNodes\": 0}", "numNodes");
        wantedField.put("{\"script\": \"print(1)\", \"cpu\": \"lots\"}", "cpu");
        return wantedField;
    }

    /** Bad initializer fields and the field each refusal names; a credential among them is never repeated. */
    static Map<String, String> badInitializerRequests() {
        String tune = "{\"runtime\": \"torchtune-llama3.2-1b\", \"args\": [\"epochs=1\"], ";
        Map<String, String> wantedField = new LinkedHashMap<>();
        wantedField.put(
                tune + "\"datasetUri\": \"hf://d/x\", \"datasetAccessToken\": \"hf_HttpPlainToken\"}",
                "datasetAccessToken");
        wantedField.put(
                tune + "\"modelUri\": \"s3://m/x\", \"modelSecretAccessKey\": \"wJalrHttpKey\"}",
                "modelSecretAccessKey");
        wantedField.put(tune + "\"datasetUri\": \"s3://AKIA:wJalrInUri@bucket/d\"}", "datasetUri");
        wantedField.put(
                tune + "\"datasetUri\": \"cache://db/t\", \"datasetCacheDataNodes\": \"3\"}", "datasetCacheDataNodes");
        wantedField.put(
                tune + "\"modelUri\": \"hf://m/x\", \"modelIgnorePatterns\": [\"*.bin\", 2]}", "modelIgnorePatterns");
        wantedField.put(
                tune + "\"datasetUri\": \"hf://d/x\", \"datasetEndpoint\": \"http://minio:9000\"}", "datasetEndpoint");
        wantedField.put(tune + "\"datasetKind\": \"gcs\", \"datasetUri\": \"bucket/d\"}", "datasetKind");
        // the app's default runtime, torch-distributed, has no dataset-initializer step
        wantedField.put("{\"pythonFile\": \"/a.py\", \"datasetUri\": \"s3://data/set\"}", "datasetUri");
        return wantedField;
    }

    @Test
    void everyBadRequestIsA4xxWithAJsonBodyNamingTheFieldAndNothingIsWritten() throws Exception {
        int before = client.resources(TrainJob.class)
                .inAnyNamespace()
                .list()
                .getItems()
                .size();
        List<String> faults = new ArrayList<>();
        for (Map.Entry<String, String> attempt : badRequests().entrySet()) {
            HttpResponse<String> answer = post(attempt.getKey());
            if (answer.statusCode() < 400
                    || answer.statusCode() >= 500
                    || answer.body().isBlank()
                    || !attempt.getValue().equals(json(answer).get("field"))
                    || namesAnInternalHeader(answer)) {
                faults.add(attempt.getKey() + " -> " + answer.statusCode() + " " + answer.body());
            }
        }
        assertEquals(List.of(), faults);
        assertEquals(
                before,
                client.resources(TrainJob.class)
                        .inAnyNamespace()
                        .list()
                        .getItems()
                        .size());
    }

    /**
     * The initializer fields: each bad one is a 400 naming the field as written, nothing is written, and a credential
     * given as a value (or inside a storage URI) is never repeated in the answer.
     */
    @Test
    void initializerFieldsAreRefusedNamingTheFieldNeverRepeatingACredential() throws Exception {
        int before = client.resources(TrainJob.class)
                .inAnyNamespace()
                .list()
                .getItems()
                .size();
        List<String> faults = new ArrayList<>();
        for (Map.Entry<String, String> attempt : badInitializerRequests().entrySet()) {
            HttpResponse<String> answer = post(attempt.getKey());
            if (answer.statusCode() != 400
                    || !attempt.getValue().equals(json(answer).get("field"))
                    || namesAnInternalHeader(answer)
                    || answer.body().contains("hf_HttpPlainToken")
                    || answer.body().contains("wJalr")) {
                faults.add(attempt.getKey() + " -> " + answer.statusCode() + " " + answer.body());
            }
        }
        assertEquals(List.of(), faults);
        assertEquals(
                before,
                client.resources(TrainJob.class)
                        .inAnyNamespace()
                        .list()
                        .getItems()
                        .size());
    }

    /** No answer may name a component header: the caller wrote message fields, and the headers are the app's own. */
    private static boolean namesAnInternalHeader(HttpResponse<String> answer) {
        return answer.body().contains("CamelKubeflowTrainer");
    }

    private HttpResponse<String> postBytes(byte[] body, String contentType) throws Exception {
        return HTTP.send(
                HttpRequest.newBuilder(trainjobs.toURI())
                        .timeout(Duration.ofSeconds(30))
                        .header("Authorization", "Bearer " + HttpRoutesTest.localToken())
                        .header("Content-Type", contentType)
                        .POST(HttpRequest.BodyPublishers.ofByteArray(body))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
    }

    /** A JSON null in any list or map field of a train request is a 400 naming where it is, never a 500. */
    @Test
    void aNullInsideEveryListOrMapFieldIs400NamingItsPlace() throws Exception {
        List<String> faults = new ArrayList<>();
        int fields = 0;
        for (TrainField field : TrainField.values()) {
            if (!field.inMessages()) {
                continue;
            }
            String request;
            String named;
            switch (field.kind()) {
                case MAP -> {
                    request = "{\"pythonFile\": \"/a.py\", \"" + field.fieldName() + "\": {\"team\": null}}";
                    named = field.fieldName() + ".team";
                }
                case LIST, WORDS -> {
                    request = "{\"script\": \"print(1)\", \"" + field.fieldName() + "\": [\"a\", null]}";
                    named = field.fieldName();
                }
                default -> {
                    continue;
                }
            }
            fields++;
            HttpResponse<String> answer = post(request);
            if (answer.statusCode() != 400
                    || !named.equals(json(answer).get("field"))
                    || namesAnInternalHeader(answer)) {
                faults.add(request + " -> " + answer.statusCode() + " " + answer.body());
            }
        }
        assertEquals(List.of(), faults);
        assertEquals(
                20,
                fields,
                "env, labels, annotations, resources, command, args, packages, pipIndexUrls,"
                        + " datasetIgnorePatterns, modelIgnorePatterns, torchtuneLoraAttnModules, torchtuneColumnMap,"
                        + " nodeSelector, tolerations, nodeAffinity, volumes, imagePullSecrets, podSecurityContext,"
                        + " securityContext, podJobs");
    }

    /** Bytes that are not UTF-8 are refused where they are, never stored as replacement characters. */
    @Test
    void invalidUtf8IsA400NamingItsPlaceNeverStoredMangled() throws Exception {
        int before = client.resources(TrainJob.class)
                .inAnyNamespace()
                .list()
                .getItems()
                .size();
        ByteArrayOutputStream value = new ByteArrayOutputStream();
        value.writeBytes("{\"pythonFile\": \"/a.py\", \"labels\": {\"team\": \"vi".getBytes());
        value.write(0xff);
        value.writeBytes("sion\"}}".getBytes());
        ByteArrayOutputStream key = new ByteArrayOutputStream();
        key.writeBytes("{\"pythonFile\": \"/a.py\", \"lab".getBytes());
        key.write(0xc3);
        key.writeBytes("els\": {}}".getBytes());
        for (byte[] body : List.of(value.toByteArray(), key.toByteArray())) {
            HttpResponse<String> answer = postBytes(body, "application/json");
            assertEquals(400, answer.statusCode(), answer.body());
            assertEquals("body", json(answer).get("field"), answer.body());
            String error = String.valueOf(json(answer).get("detail"));
            assertTrue(error.contains("not UTF-8") && error.contains("offset"), answer.body());
            assertTrue(answer.body().indexOf('\uFFFD') < 0, answer.body());
        }
        assertEquals(
                before,
                client.resources(TrainJob.class)
                        .inAnyNamespace()
                        .list()
                        .getItems()
                        .size());
    }

    /**
     * A refusal is problem details: its type a URI of the API's problems, its status the answer's, its instance the
     * path asked for without the query, as application/problem+json; field and fix as members beside them.
     */
    @Test
    void aRefusalIsProblemDetailsOfItsTypeAndPath() throws Exception {
        HttpResponse<String> invalid = post("{\"script\": \"print(1)\", \"numNodes\": 0}");
        assertEquals(400, invalid.statusCode(), invalid.body());
        assertEquals(
                "application/problem+json",
                invalid.headers().firstValue("Content-Type").orElseThrow());
        Map<?, ?> problem = json(invalid);
        assertEquals("https://camelkubeflow.io/problems/invalid-field", problem.get("type"), invalid.body());
        assertEquals("A field of the request is invalid", problem.get("title"), invalid.body());
        assertEquals(400, problem.get("status"), invalid.body());
        assertEquals("/trainjobs", problem.get("instance"), invalid.body());
        assertEquals("numNodes", problem.get("field"), invalid.body());
        assertEquals("Invalid 'numNodes': 0 is not allowed; give a whole number of at least 1", problem.get("detail"));
        assertEquals(null, problem.get("error"), "no member of the old {error, field, fix} form");
        HttpResponse<String> missing = HTTP.send(
                HttpRequest.newBuilder(URI.create(trainjobs + "/no-such-job?namespace" + "=default"))
                        .timeout(Duration.ofSeconds(30))
                        .header("Authorization", "Bearer " + HttpRoutesTest.localToken())
                        .GET()
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(404, missing.statusCode(), missing.body());
        assertEquals(
                "application/problem+json",
                missing.headers().firstValue("Content-Type").orElseThrow());
        assertEquals(
                "https://camelkubeflow.io/problems/not-found", json(missing).get("type"), missing.body());
        assertEquals("/trainjobs/no-such-job", json(missing).get("instance"), missing.body());
        HttpResponse<String> unauthenticated = HTTP.send(
                HttpRequest.newBuilder(trainjobs.toURI())
                        .timeout(Duration.ofSeconds(30))
                        .GET()
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(401, unauthenticated.statusCode(), unauthenticated.body());
        assertEquals(
                "https://camelkubeflow.io/problems/unauthenticated",
                json(unauthenticated).get("type"));
        assertEquals(401, json(unauthenticated).get("status"), unauthenticated.body());
    }

    /** A body in another media type gets the same problem details as every other refusal, not an empty 415. */
    @Test
    void aBodyThatIsNotJsonIs415WithAJsonBody() throws Exception {
        HttpResponse<String> answer = postBytes("print(1)".getBytes(), "text/plain");
        assertEquals(415, answer.statusCode(), answer.body());
        assertEquals(
                "https://camelkubeflow.io/problems/unsupported-media-type",
                json(answer).get("type"));
        Map<?, ?> error = json(answer);
        assertEquals("Content-Type", error.get("field"), answer.body());
        assertTrue(String.valueOf(error.get("detail")).contains("text/plain"), answer.body());
        assertTrue(String.valueOf(error.get("fix")).contains("application/json"), answer.body());
    }

    /** A path no operation has gets the API's problem details too, not a server's HTML page. */
    @Test
    void aPathNoOperationHasIs404WithAJsonBody() throws Exception {
        for (String path : List.of("/runtimes", "/runtimes/torch-distributed/packages", "/trainjobs/x/y/z")) {
            HttpResponse<String> answer = HTTP.send(
                    HttpRequest.newBuilder(trainjobs.toURI().resolve(path))
                            .timeout(Duration.ofSeconds(30))
                            .header("Authorization", "Bearer " + HttpRoutesTest.localToken())
                            .GET()
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
            assertEquals(404, answer.statusCode(), path + " " + answer.body());
            Map<?, ?> error = json(answer);
            assertEquals("path", error.get("field"), answer.body());
            assertEquals(path, error.get("instance"), answer.body());
            assertTrue(String.valueOf(error.get("fix")).contains("/q/openapi"), answer.body());
        }
    }

    /** What an answer quotes of the request holds no raw control character, so it cannot forge a log line either. */
    @Test
    void anAnswerQuotesControlCharactersAsEscapes() throws Exception {
        HttpResponse<String> answer = post("{\"pythonFile\": \"/a.py\", \"x\\u001b[2K\\r\\nINFO forged\": 1,"
                + " \"labels\": {\"team\": \"a\\u2028b\"}}");
        assertEquals(400, answer.statusCode(), answer.body());
        String field = String.valueOf(json(answer).get("field"));
        String error = String.valueOf(json(answer).get("detail"));
        assertEquals("x\\u001b[2K\\r\\nINFO forged", field, answer.body());
        assertTrue(
                (field + error).codePoints().noneMatch(c -> Character.isISOControl(c) || c == 0x2028), answer.body());
    }

    @Test
    void aBodyOverTheLimitIs413WithAJsonBody() throws Exception {
        // over HTTP/1.1 as curl sends it (an HTTP/2 upgrade carrying 11 MB is refused before any answer)
        HttpRequest tooLarge = HttpRequest.newBuilder(trainjobs.toURI())
                .header("Authorization", "Bearer " + HttpRoutesTest.localToken())
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{\"script\": \"" + "#".repeat(11 * 1024 * 1024) + "\"}"))
                .build();
        HttpResponse<String> answer = HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .build()
                .send(tooLarge, HttpResponse.BodyHandlers.ofString());
        assertEquals(413, answer.statusCode(), answer.body());
        assertEquals("body", json(answer).get("field"), answer.body());
    }

    /** The app's body limit (trainer.http.max-body-bytes in application.properties). */
    private static final int LIMIT = 10 * 1024 * 1024;

    /**
     * A POST with a chunked JSON body, written as a hostile client would: chunks of 64 KiB until {@code total} bytes
     * are sent or the server has answered (then 3 more close the JSON: {@code total + 3} bytes in all); the answer is read as it comes, on its own thread, so it is seen even when
     * the server closes the connection on a client still sending.
     */
    private ChunkedPost postChunked(String authorization, long total) throws Exception {
        try (Socket socket = new Socket(trainjobs.getHost(), trainjobs.getPort())) {
            socket.setSoTimeout(30_000);
            CompletableFuture<String> answer = CompletableFuture.supplyAsync(() -> readAnswerThenClose(socket));
            OutputStream out = socket.getOutputStream();
            out.write(("POST " + trainjobs.getPath() + " HTTP/1.1\r\nHost: " + trainjobs.getHost() + "\r\n"
                            + (authorization == null ? "" : "Authorization: " + authorization + "\r\n")
                            + "Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n")
                    .getBytes());
            byte[] opening = "{\"script\": \"".getBytes();
            byte[] chunk = "#".repeat(64 * 1024).getBytes();
            long sent = 0;
            try {
                out.write((Integer.toHexString(opening.length) + "\r\n").getBytes());
                out.write(opening);
                out.write("\r\n".getBytes());
                sent += opening.length;
                while (sent < total && !answer.isDone()) {
                    int size = (int) Math.min(chunk.length, total - sent);
                    out.write((Integer.toHexString(size) + "\r\n").getBytes());
                    out.write(chunk, 0, size);
                    out.write("\r\n".getBytes());
                    sent += size;
                }
                if (!answer.isDone()) {
                    out.write("3\r\n\"}\n\r\n0\r\n\r\n".getBytes());
                    sent += 3;
                }
            } catch (IOException closedByTheServer) {
                // the server answered and closed the connection while the client was still sending
            }
            return new ChunkedPost(sent, answer.get(60, TimeUnit.SECONDS));
        }
    }

    /**
     * One HTTP/1.1 answer: its head, then the Content-Length bytes of its body; then the socket is closed, so a client
     * blocked sending to a server that no longer reads stops.
     */
    private static String readAnswerThenClose(Socket socket) {
        try (socket) {
            DataInputStream in = new DataInputStream(socket.getInputStream());
            StringBuilder head = new StringBuilder();
            while (!head.toString().endsWith("\r\n\r\n")) {
                head.append((char) in.readUnsignedByte());
            }
            Matcher length = Pattern.compile("(?i)content-length: *(\\d+)").matcher(head);
            ByteArrayOutputStream body = new ByteArrayOutputStream();
            if (length.find()) {
                body.writeBytes(in.readNBytes(Integer.parseInt(length.group(1))));
            } else {
                // chunked: each chunk's size in hex on its own line, the last one 0
                for (int size = chunkSize(in); size > 0; size = chunkSize(in)) {
                    body.writeBytes(in.readNBytes(size));
                    in.readNBytes(2);
                }
            }
            return head + body.toString(StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "read failed: " + e;
        }
    }

    private static int chunkSize(DataInputStream in) throws IOException {
        StringBuilder line = new StringBuilder();
        while (!line.toString().endsWith("\r\n")) {
            line.append((char) in.readUnsignedByte());
        }
        return Integer.parseInt(line.toString().trim(), 16);
    }

    /** What a chunked POST sent of its body before the answer, and the answer as it came on the wire. */
    private record ChunkedPost(long sent, String answer) {
        int status() {
            return answer.startsWith("HTTP/1.1 ") ? Integer.parseInt(answer.substring(9, 12)) : -1;
        }

        Map<?, ?> json() throws Exception {
            return HttpRoutesTest.JSON.readValue(answer.substring(answer.indexOf("\r\n\r\n") + 4), Map.class);
        }
    }

    /**
     * A chunked body declares no length: it is counted as it arrives and refused as soon as it passes the limit,
     * before the client has finished sending (the app never holds it whole); one within the limit is read.
     */
    @Test
    void aChunkedBodyOverTheLimitIs413BeforeTheClientFinishedSending() throws Exception {
        long total = 4L * LIMIT;
        ChunkedPost tooLarge = postChunked("Bearer " + HttpRoutesTest.localToken(), total);
        assertEquals(413, tooLarge.status(), tooLarge.answer());
        assertEquals("body", tooLarge.json().get("field"), tooLarge.answer());
        assertTrue(tooLarge.sent() < total, "the answer came only after all " + total + " bytes were sent");

        ChunkedPost justOver = postChunked("Bearer " + HttpRoutesTest.localToken(), LIMIT - 2);
        assertEquals(413, justOver.status(), justOver.answer());
        // exactly the limit: read whole, then refused for what it says (a script over 200 KiB), not for its size
        ChunkedPost atTheLimit = postChunked("Bearer " + HttpRoutesTest.localToken(), LIMIT - 3);
        assertEquals(400, atTheLimit.status(), atTheLimit.answer());
        assertEquals("script", atTheLimit.json().get("field"), atTheLimit.answer());
    }

    /** Authentication comes before the body is read: a caller without a token is refused on the request's head. */
    @Test
    void anUnauthenticatedChunkedPostIs401BeforeItsBodyIsRead() throws Exception {
        long total = 4L * LIMIT;
        ChunkedPost anonymous = postChunked(null, total);
        assertEquals(401, anonymous.status(), anonymous.answer());
        assertTrue(anonymous.sent() < total, "the answer came only after all " + total + " bytes were sent");
    }

    @Test
    void theSameKeyWithADifferentRequestIs422NamingWhatDiffers() throws Exception {
        HttpResponse<String> first = send(
                "POST",
                "",
                HttpRequest.BodyPublishers.ofString("{\"pythonFile\": \"/a.py\", \"numNodes\": 1}"),
                "contract-1");
        assertEquals(201, first.statusCode(), first.body());
        HttpResponse<String> other = send(
                "POST",
                "",
                HttpRequest.BodyPublishers.ofString("{\"pythonFile\": \"/a.py\", \"numNodes\": 2}"),
                "contract-1");
        assertEquals(422, other.statusCode(), other.body());
        assertTrue(
                String.valueOf(json(other).get("detail")).contains("differs in spec.trainer.numNodes"), other.body());
        HttpResponse<String> same = send(
                "POST",
                "",
                HttpRequest.BodyPublishers.ofString("{\"pythonFile\": \"/a.py\", \"numNodes\": 1}"),
                "contract-1");
        assertEquals(200, same.statusCode(), same.body());
    }

    @Test
    void theKubernetesApisRefusalsKeepTheirMeaningAndAnUnavailableApiIs503() throws Exception {
        String request = "{\"pythonFile\": \"/a.py\"}";
        localSandbox.sandbox().refuseNextTrainJobCreates(1, 403);
        HttpResponse<String> denied = post(request);
        assertEquals(403, denied.statusCode(), denied.body());
        assertTrue(
                String.valueOf(json(denied).get("detail")).startsWith("the Kubernetes API refused the request (403)"),
                denied.body());

        localSandbox.sandbox().refuseNextTrainJobCreates(1, 422);
        HttpResponse<String> invalid = post(request);
        assertEquals(422, invalid.statusCode(), invalid.body());

        // more 500s than the component's retries: unavailable, try again; never an empty 500
        localSandbox.sandbox().refuseNextTrainJobCreates(10, 500);
        HttpResponse<String> unavailable = post(request);
        assertEquals(503, unavailable.statusCode(), unavailable.body());
        assertTrue(String.valueOf(json(unavailable).get("detail")).contains("unavailable"), unavailable.body());
        localSandbox.sandbox().refuseNextTrainJobCreates(0, 500);
    }

    @Test
    void anUnreachableApiIs503InSecondsAndTheAppRecoversWhenItIsBack() throws Exception {
        String request = "{\"pythonFile\": \"/a.py\"}";
        // an OIDC token is checked without the API server, so the request gets as far as its access review
        String oidc = "Bearer " + OidcProviderResource.provider.token("outage", List.of());
        localSandbox.sandbox().stopApiServer();
        HttpResponse<String> tokenReview;
        HttpResponse<String> accessReview;
        HttpResponse<String> metricsReview;
        long took;
        try {
            tokenReview = post(request);
            long started = System.nanoTime();
            accessReview = HTTP.send(
                    HttpRequest.newBuilder(URI.create(trainjobs.toString()))
                            .timeout(Duration.ofSeconds(30))
                            .header("Authorization", oidc)
                            .header("Content-Type", "application/json")
                            .POST(HttpRequest.BodyPublishers.ofString(request))
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
            took = (System.nanoTime() - started) / 1_000_000;
            // the metrics' access review too
            metricsReview = HTTP.send(
                    HttpRequest.newBuilder(URI.create(trainjobs.toString().replace("/trainjobs", "/q/metrics")))
                            .timeout(Duration.ofSeconds(30))
                            .header("Authorization", oidc)
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
        } finally {
            localSandbox.sandbox().startApiServer();
        }
        for (HttpResponse<String> during : List.of(tokenReview, accessReview, metricsReview)) {
            assertEquals(503, during.statusCode(), during.body());
            assertTrue(
                    String.valueOf(json(during).get("detail")).startsWith("Kubernetes API unreachable"), during.body());
        }
        // the component's bounded retries (about 3 s), not fabric8's on top of them (19.5 s before)
        assertTrue(took < 10_000, "answered after " + took + " ms");
        HttpResponse<String> after = null;
        for (long deadline = System.nanoTime() + 30_000_000_000L; System.nanoTime() < deadline; Thread.sleep(200)) {
            after = send("POST", "", HttpRequest.BodyPublishers.ofString(request), "outage-1");
            if (after.statusCode() != 503) {
                break;
            }
        }
        assertEquals(201, after.statusCode(), after.body());
    }

    @Test
    void concurrentRetriesOfOneKeyWithAScriptAllAnswerCreatedOrAdopted() throws Exception {
        int attempts = 50;
        ExecutorService pool = Executors.newFixedThreadPool(16);
        List<Future<HttpResponse<String>>> answers = new ArrayList<>();
        for (int i = 0; i < attempts; i++) {
            answers.add(pool.submit(() -> send(
                    "POST",
                    "",
                    HttpRequest.BodyPublishers.ofString("{\"script\": \"print('once')\"}"),
                    "concurrent-1")));
        }
        Map<Integer, Integer> statuses = new TreeMap<>();
        for (Future<HttpResponse<String>> answer : answers) {
            statuses.merge(answer.get().statusCode(), 1, Integer::sum);
        }
        pool.shutdown();
        assertEquals(Map.of(201, 1, 200, attempts - 1), statuses);
    }
}
