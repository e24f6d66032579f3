package io.camelkubeflow.trainer.sandbox.http;

import com.fasterxml.jackson.databind.JsonNode;
import io.camelkubeflow.trainer.sandbox.store.Discovery;
import io.camelkubeflow.trainer.sandbox.store.ResourcePath;
import io.camelkubeflow.trainer.sandbox.store.Selection;
import io.camelkubeflow.trainer.sandbox.store.StatusAnswers;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.fabric8.mockwebserver.dsl.HttpMethod;
import io.fabric8.mockwebserver.http.Buffer;
import io.fabric8.mockwebserver.http.Dispatcher;
import io.fabric8.mockwebserver.http.Headers;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;
import io.fabric8.mockwebserver.http.WebSocket;
import io.fabric8.mockwebserver.http.WebSocketListener;
import io.fabric8.mockwebserver.vertx.ServerWebSocketHandler;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import java.io.IOException;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The sandbox's HTTP front, as a kube-apiserver answers on the wire: discovery and version, the stored objects (the
 * CRUD dispatcher), watches both as WebSocket (fabric8) and as a chunked HTTP stream of JSON lines (kubectl, client-go,
 * the Python client), pod logs with {@code follow=true} streamed while the container runs, and a {@code Status} body on
 * every error answer. A request must first pass the {@link RequestGate} (a token, no browser); each one that does is
 * shown to a recorder, so tests and benchmarks can count them.
 */
public final class ApiHttpServer implements AutoCloseable {
    /** The loopback address the server listens on, as a URL or a Host header names it ("127.0.0.1", "[::1]"). */
    public static final String LOOPBACK_HOST = hostInUrl(InetAddress.getLoopbackAddress());

    private final Vertx vertx = Vertx.vertx(new VertxOptions().setEventLoopPoolSize(2));
    private final Dispatcher dispatcher;
    private final Discovery discovery;
    private final PodLogs podLogs;
    private final Consumer<RecordedRequest> recorder;
    private final RequestGate gate;
    private final ServingCertificate certificate;
    private volatile HttpServer server;
    /** The port it listens on, the same after a restart: what a request's Host must name. */
    private volatile int port;
    /** What every request waits for before it is answered: the sandbox's installation. */
    private final CompletableFuture<Void> installed;
    /** Requests read and held until the installation is done. */
    private final AtomicInteger awaitingInstall = new AtomicInteger();

    public ApiHttpServer(
            Dispatcher dispatcher,
            Discovery discovery,
            PodLogs podLogs,
            Consumer<RecordedRequest> recorder,
            Predicate<String> issuedToken,
            ServingCertificate certificate,
            CompletableFuture<Void> installed) {
        this.gate = new RequestGate(issuedToken, LOOPBACK_HOST);
        this.certificate = certificate;
        this.dispatcher = dispatcher;
        this.discovery = discovery;
        this.podLogs = podLogs;
        this.recorder = recorder;
        this.installed = installed;
    }

    /** Listens with TLS on loopback at {@code port} (0: a free one) and returns the port. */
    public synchronized int listen(int port) {
        HttpServer created = vertx.createHttpServer(new HttpServerOptions()
                .setHost(InetAddress.getLoopbackAddress().getHostAddress())
                .setPort(port)
                .setSsl(true)
                .setKeyCertOptions(certificate.keyCertOptions())
                .setHandle100ContinueAutomatically(true)
                .setCompressionSupported(false)
                // no ALPN: HTTP/1.1, which the streamed watches and logs are written for, never HTTP/2
                .setUseAlpn(false)
                .setHttp2ClearTextEnabled(false));
        created.requestHandler(this::handle);
        server = await(created.listen());
        this.port = server.actualPort();
        return this.port;
    }

    private static String hostInUrl(InetAddress address) {
        return address instanceof Inet6Address ? "[" + address.getHostAddress() + "]" : address.getHostAddress();
    }

    /** How many requests are held now until the installation is done. */
    public int awaitingInstall() {
        return awaitingInstall.get();
    }

    /** Stops listening; open connections (watches, log streams) break. */
    public synchronized void stop() {
        if (server != null) {
            await(server.close());
            server = null;
        }
    }

    private void handle(HttpServerRequest event) {
        MockResponse refused = gate.refusal(event, port);
        if (refused != null) {
            // neither recorded nor held until the installation: it reaches nothing of the sandbox
            write(event.response(), refused);
            return;
        }
        // a WebSocket upgrade must find its request unread
        Future<io.vertx.core.buffer.Buffer> read = hasBody(event) ? event.body() : Future.succeededFuture(null);
        read.onSuccess(body -> {
            if (installed.isDone()) {
                answer(event, body);
            } else {
                Context context = Vertx.currentContext();
                awaitingInstall.incrementAndGet();
                installed.whenComplete((done, failure) -> context.runOnContext(nothing -> {
                    awaitingInstall.decrementAndGet();
                    answer(event, body);
                }));
            }
        });
    }

    private void answer(HttpServerRequest event, io.vertx.core.buffer.Buffer body) {
        RecordedRequest request = new RecordedRequest(
                event.version().alpnName().toUpperCase(Locale.ROOT),
                HttpMethod.fromVertx(event.method()),
                event.uri(),
                Headers.builder().addAll(event.headers()).build(),
                new Buffer(body == null ? null : body.getBytes()));
        // recorded with a body of its own: the store reads (and so empties) the body of the request it handles
        recorder.accept(new RecordedRequest(
                request.getHttpVersion(),
                request.method(),
                request.getPath(),
                request.getHeaders(),
                new Buffer(body == null ? null : body.getBytes())));
        if (installed.isCompletedExceptionally()) {
            Throwable failure = installed.handle((done, thrown) -> thrown).join();
            write(
                    event.response(),
                    StatusAnswers.failure(
                            503,
                            "ServiceUnavailable",
                            "the sandbox could not install the Trainer: " + failure.getMessage()));
            return;
        }
        if (body != null && ProtobufObjects.isProtobuf(event.getHeader(HttpHeaders.CONTENT_TYPE))) {
            try {
                // the store reads JSON: a protobuf write (kubectl create namespace, create configmap) goes on as JSON
                request = new RecordedRequest(
                        request.getHttpVersion(),
                        request.method(),
                        request.getPath(),
                        Headers.builder()
                                .setHeaders(request.getHeaders())
                                .set(HttpHeaders.CONTENT_TYPE.toString(), "application/json")
                                .build(),
                        new Buffer(ProtobufObjects.toJson(body.getBytes()).getBytes(StandardCharsets.UTF_8)));
            } catch (ProtobufObjects.Unreadable e) {
                write(
                        event.response(),
                        StatusAnswers.failure(
                                415,
                                "UnsupportedMediaType",
                                "the body of the request"
                                        + " was in an unknown format - accepted media types include: application/json,"
                                        + " application/yaml (" + e.getMessage() + ")"));
                return;
            }
        }
        if (body != null
                && STRATEGIC_MERGE_PATCH.equals(event.getHeader(HttpHeaders.CONTENT_TYPE))
                && !isCustomResource(request.getPath())
                && isPlainMergePatch(body.getBytes())) {
            // the store applies no strategic merge patch: one that means what a merge patch means is applied as one
            // (kubectl apply of a built-in object whose labels or annotations changed); a custom resource takes none
            // (415, as the API server answers)
            request = new RecordedRequest(
                    request.getHttpVersion(),
                    request.method(),
                    request.getPath(),
                    Headers.builder()
                            .setHeaders(request.getHeaders())
                            .set(HttpHeaders.CONTENT_TYPE.toString(), "application/merge-patch+json")
                            .build(),
                    request.getBody());
        }
        try {
            respond(event, withPath(request, goBooleans(request.getPath())));
        } catch (RuntimeException e) {
            if (!event.response().headWritten()) {
                write(event.response(), StatusAnswers.failure(500, "InternalError", "sandbox failure: " + e));
            }
        }
    }

    private static final String STRATEGIC_MERGE_PATCH = "application/strategic-merge-patch+json";

    /**
     * Whether a path is of a custom resource: an API group outside Kubernetes' own, which are the groups without a
     * dot and those under k8s.io (but not x-k8s.io, where projects such as JobSet keep their CRDs).
     */
    static boolean isCustomResource(String path) {
        if (!path.startsWith("/apis/")) {
            return false;
        }
        String group = path.substring("/apis/".length()).split("/", 2)[0];
        return group.contains(".") && !(group.endsWith(".k8s.io") && !group.endsWith(".x-k8s.io"));
    }

    /**
     * Whether a strategic merge patch means what the same JSON means as a merge patch: an object holding no list
     * (which a strategic merge patch merges by key) and no directive ($patch, $setElementOrder, $retainKeys, ...).
     */
    static boolean isPlainMergePatch(byte[] patch) {
        try {
            JsonNode tree = Serialization.jsonMapper().readTree(patch);
            return tree != null && tree.isObject() && holdsNoListOrDirective(tree);
        } catch (IOException notJson) {
            return false;
        }
    }

    private static boolean holdsNoListOrDirective(JsonNode node) {
        if (node.isArray()) {
            return false;
        }
        for (var fields = node.fields(); fields.hasNext(); ) {
            var field = fields.next();
            if (field.getKey().startsWith("$") || !holdsNoListOrDirective(field.getValue())) {
                return false;
            }
        }
        return true;
    }

    private void respond(HttpServerRequest event, RecordedRequest request) {
        boolean get = "GET".equals(event.method().name());
        if (get) {
            MockResponse known = discovery.answer(request);
            if (known != null) {
                // complete as the API server words them: /openapi/v2's 406 has no body there
                writeAsIs(event.response(), known);
                return;
            }
            if (PodLogs.isLog(request.getPath())) {
                event.response().putHeader(HttpHeaders.CONTENT_TYPE, "text/plain");
                ChunkedStream stream = new ChunkedStream(event.response());
                MockResponse refused = PodLogs.isFollow(request.getPath())
                        ? podLogs.follow(request.getPath(), stream)
                        : podLogs.answer(request.getPath(), stream);
                if (refused != null) {
                    event.response().headers().remove(HttpHeaders.CONTENT_TYPE);
                    write(event.response(), refused);
                }
                return;
            }
        }
        Selection selection = null;
        if (get) {
            try {
                selection = Selection.of(request.getPath(), plural(request.getPath()));
            } catch (IllegalArgumentException e) {
                write(event.response(), StatusAnswers.failure(400, "BadRequest", e.getMessage()));
                return;
            }
        }
        MockResponse response =
                dispatcher.dispatch(selection == null ? request : withPath(request, selection.remainingPath()));
        if (selection != null && response != null) {
            response = select(selection, response);
        }
        if (get && response != null && response.getWebSocketListener() == null && response.code() == 200) {
            response = typedList(request.getPath(), response);
            if (Tables.wanted(request.getHeader("Accept"))) {
                response = table(response);
            }
        }
        if (response == null) {
            write(
                    event.response(),
                    StatusAnswers.failure(405, "MethodNotAllowed", "the sandbox does not serve " + event.method()));
        } else if (response.getWebSocketListener() == null) {
            write(event.response(), response);
        } else if (isWebSocketUpgrade(event)) {
            event.toWebSocket().onSuccess(new ServerWebSocketHandler(request, response));
        } else {
            streamWatch(event, request, response);
        }
    }

    private static final Pattern BOOLEAN_PARAMETER = Pattern.compile(
            "([?&](?:watch|follow|previous|timestamps|allowWatchBookmarks|insecureSkipTLSVerifyBackend)=)"
                    + "(1|t|T|TRUE|True|0|f|F|FALSE|False)(?=&|$)");

    /**
     * The query's boolean parameters as the API server reads them (Go's strconv.ParseBool: {@code True}, {@code 1},
     * {@code t} are true), written {@code true}/{@code false} for the store and the log endpoint: the Python client
     * sends {@code follow=True}.
     */
    static String goBooleans(String path) {
        if (path.indexOf('?') < 0) {
            return path;
        }
        Matcher matcher = BOOLEAN_PARAMETER.matcher(path);
        StringBuilder normalized = new StringBuilder();
        while (matcher.find()) {
            boolean value = List.of("1", "t", "T", "TRUE", "True").contains(matcher.group(2));
            matcher.appendReplacement(normalized, matcher.group(1) + value);
        }
        matcher.appendTail(normalized);
        return normalized.toString();
    }

    /** What the store answered to a list or watch of every candidate, narrowed to the selected objects. */
    private static MockResponse select(Selection selection, MockResponse response) {
        if (response.getWebSocketListener() != null) {
            return new MockResponse().withWebSocketUpgrade(selection.selectEvents(response.getWebSocketListener()));
        }
        if (response.code() != 200 || response.getBody() == null) {
            return response;
        }
        String body = response.getBody().readUtf8();
        return response.setBody(body.contains("\"items\"") ? selection.selectItems(body) : body);
    }

    /**
     * The store answers every list as a "v1 List"; an API server names the list's type ("v1 PodList",
     * "trainer.kubeflow.org/v1alpha1 TrainJobList"), which typed clients (client-go's, the Python client's) decode by.
     */
    private MockResponse typedList(String path, MockResponse response) {
        String[] type = discovery.listType(path);
        if (type == null || response.getBody() == null) {
            return response;
        }
        String body = response.getBody().readUtf8();
        String untyped = "{\"apiVersion\":\"v1\",\"kind\":\"List\"";
        return response.setBody(
                body.startsWith(untyped)
                        ? "{\"apiVersion\":\"" + type[0] + "\",\"kind\":\"" + type[1] + "\""
                                + body.substring(untyped.length())
                        : body);
    }

    /** An object or list answer as the table kubectl asked for. */
    @SuppressWarnings("unchecked")
    private MockResponse table(MockResponse response) {
        String body = response.getBody().readUtf8();
        Map<String, Object> answer = Serialization.unmarshal(body, Map.class);
        String kind = String.valueOf(answer.get("kind"));
        if (answer.containsKey("items") && kind.endsWith("List")) {
            kind = kind.substring(0, kind.length() - "List".length());
        } else if (answer.containsKey("items")) {
            return response.setBody(body);
        }
        return response.setBody(
                Serialization.asJson(Tables.of(answer, kind, discovery.customResources(), Instant.now())));
    }

    private static RecordedRequest withPath(RecordedRequest request, String path) {
        return new RecordedRequest(
                request.getHttpVersion(), request.method(), path, request.getHeaders(), request.getBody());
    }

    /** The resource a path names: "pods" in /api/v1/namespaces/ns/pods/name; empty when it names none. */
    static String plural(String path) {
        ResourcePath resource = ResourcePath.of(path);
        return resource == null || resource.plural() == null ? "" : resource.plural();
    }

    /** A watch as kubectl and client-go read it: one JSON event per line on a chunked response. */
    private void streamWatch(HttpServerRequest event, RecordedRequest request, MockResponse response) {
        WebSocketListener listener = response.getWebSocketListener();
        HttpServerResponse http = event.response()
                .setStatusCode(200)
                .setChunked(true)
                .putHeader(HttpHeaders.CONTENT_TYPE, "application/json");
        http.write("");
        ChunkedStream stream = new ChunkedStream(http);
        WebSocket socket = new WatchStream(request, stream);
        listener.onOpen(socket, response);
        Runnable closed = () -> listener.onClosed(socket, 1000, "watch ended");
        http.closeHandler(v -> closed.run());
        http.endHandler(v -> closed.run());
        String timeout = event.getParam("timeoutSeconds");
        if (timeout != null && timeout.matches("\\d+")) {
            vertx.setTimer(TimeUnit.SECONDS.toMillis(Long.parseLong(timeout)) + 1, id -> stream.end());
        }
    }

    static boolean hasBody(HttpServerRequest event) {
        String length = event.getHeader(HttpHeaders.CONTENT_LENGTH);
        return length != null
                ? !length.trim().equals("0")
                : event.headers().contains(HttpHeaders.TRANSFER_ENCODING)
                        || event.headers().contains(HttpHeaders.CONTENT_TYPE);
    }

    static boolean isWebSocketUpgrade(HttpServerRequest event) {
        String upgrade = event.getHeader(HttpHeaders.UPGRADE);
        return upgrade != null && upgrade.equalsIgnoreCase("websocket");
    }

    /** Writes a complete answer; an error without a body gets the Status object a kube-apiserver sends. */
    private static void write(HttpServerResponse http, MockResponse response) {
        writeAsIs(
                http,
                response.code() >= 400
                                && (response.getBody() == null
                                        || response.getBody().size() == 0)
                        ? StatusAnswers.failure(response.code(), reason(response.code()), message(response.code()))
                        : response);
    }

    /** Writes an answer as it is, a body in JSON unless it says otherwise (an empty one with no type at all). */
    private static void writeAsIs(HttpServerResponse http, MockResponse answer) {
        http.setStatusCode(answer.code());
        answer.getHeaders().toMultimap().forEach((key, values) -> http.headers().set(key, values));
        byte[] body = answer.getBody() == null ? new byte[0] : answer.getBody().getBytes();
        if (!http.headers().contains(HttpHeaders.CONTENT_TYPE) && body.length > 0) {
            http.putHeader(HttpHeaders.CONTENT_TYPE, "application/json");
        }
        http.end(io.vertx.core.buffer.Buffer.buffer(body));
    }

    private static final Map<Integer, String> REASONS = Map.of(
            400,
            "BadRequest",
            401,
            "Unauthorized",
            403,
            "Forbidden",
            404,
            "NotFound",
            405,
            "MethodNotAllowed",
            409,
            "Conflict",
            410,
            "Expired",
            422,
            "Invalid",
            429,
            "TooManyRequests",
            500,
            "InternalError");

    private static String reason(int code) {
        return REASONS.getOrDefault(code, "Unknown");
    }

    private static String message(int code) {
        return code == 404 ? "the server could not find the requested resource" : "the server refused the request";
    }

    private static <T> T await(Future<T> future) {
        try {
            return future.toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("the sandbox's API server could not listen: " + e.getMessage(), e);
        }
    }

    @Override
    public void close() {
        stop();
        CompletableFuture<Void> closed = vertx.close().toCompletionStage().toCompletableFuture();
        try {
            closed.get(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | TimeoutException e) {
            // the sandbox is going away; a slow close of its event loops changes nothing for its clients
        }
    }

    /** The watch listener's socket, as a stream of JSON lines. */
    private record WatchStream(RecordedRequest request, ChunkedStream stream) implements WebSocket {
        @Override
        public boolean send(String text) {
            return stream.write(text + "\n");
        }

        @Override
        public boolean send(byte[] bytes) {
            return send(new String(bytes, StandardCharsets.UTF_8));
        }

        @Override
        public boolean close(int code, String reason) {
            stream.end();
            return true;
        }
    }
}
