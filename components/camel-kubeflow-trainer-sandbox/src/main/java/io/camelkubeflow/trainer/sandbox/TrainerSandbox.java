package io.camelkubeflow.trainer.sandbox;

import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.Field;
import java.net.InetAddress;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.StatusBuilder;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import io.fabric8.mockwebserver.http.Buffer;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;
import io.fabric8.mockwebserver.http.WebSocket;

/**
 * A local emulation of a Kubernetes API server with Kubeflow Trainer v2.3.0's CRDs and default
 * ClusterTrainingRuntimes installed: fabric8's mock API server in CRUD mode, on loopback. It stores and serves
 * objects (create, get, list, watch, patch, delete); with {@link Options#withController} a
 * {@link TrainJobControllerEmulation} also gives TrainJobs pods and status as the Trainer would; no code runs except,
 * with {@link Options#withScriptsRun}, a staged Python script, once, with the local python3 ({@link StagedScriptRunner}). It
 * records the requests it receives (the latest {@value #MAX_RECORDED}) so tests and benchmarks can
 * count them.
 */
public final class TrainerSandbox implements AutoCloseable {
    public static final String CRDS = "/kubeflow-trainer/crds/";
    public static final String RUNTIMES = "/kubeflow-trainer/runtimes/";
    public static final List<String> DEFAULT_RUNTIMES = List.of(
            "torch_distributed.yaml", "deepspeed_distributed.yaml", "mlx_distributed.yaml", "jax_distributed.yaml",
            "xgboost_distributed.yaml", "torchtune/llama3_2/llama3_2_1B.yaml", "torchtune/llama3_2/llama3_2_3B.yaml",
            "torchtune/qwen2_5/qwen2_5_1.5B.yaml", "data-cache/torch_distributed_with_cache.yaml");
    static final int MAX_RECORDED = 100_000;
    private static final String TRAINJOBS_PREFIX = "/apis/trainer.kubeflow.org/v1alpha1/namespaces/";

    private volatile KubernetesMockServer server;
    /** The API server's port, kept across restarts so clients reconnect to it. */
    private final int port;
    private final KubernetesClient client;
    private final List<Consumer<String>> trainJobWriteListeners = new CopyOnWriteArrayList<>();
    private final Deque<RecordedRequest> recorded = new ArrayDeque<>();
    private long recordedTotal;
    /** The mock server queues every request it receives; draining it keeps a long-running sandbox's memory flat. */
    private final ScheduledExecutorService drainer = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread thread = new Thread(r, "trainer-sandbox-request-drain");
        thread.setDaemon(true);
        return thread;
    });

    /**
     * How to start a sandbox.
     *
     * @param port       loopback port of the API server; 0 picks a free one
     * @param controller whether the controller emulation runs TrainJobs (pods, status, conditions); without it,
     *                   TrainJobs are only stored
     * @param startDelay time from TrainJob creation to Running, with the controller
     * @param runTime    time from Running to Complete (a job may set its own with the run-millis annotation)
     * @param runScripts whether a staged Python script is really run (once, with the local python3)
     */
    public record Options(int port, boolean controller, Duration startDelay, Duration runTime, boolean runScripts) {
        /** A free port, no controller. */
        public static Options defaults() {
            return new Options(0, false, Duration.ZERO, Duration.ZERO, false);
        }

        public Options withPort(int newPort) {
            return new Options(newPort, controller, startDelay, runTime, runScripts);
        }

        public Options withController(Duration newStartDelay, Duration newRunTime) {
            return new Options(port, true, newStartDelay, newRunTime, runScripts);
        }

        /** The controller runs a job's staged Python script with the local python3, instead of emulating a run. */
        public Options withScriptsRun() {
            return new Options(port, controller, startDelay, runTime, true);
        }
    }

    private TrainJobControllerEmulation controller;
    private final ObservingCrudDispatcher dispatcher = new ObservingCrudDispatcher();
    private final Map<String, Integer> goneWatches = new ConcurrentHashMap<>();
    private final PodLogs podLogs = new PodLogs();
    private final CrdSchemaValidator trainJobSchema = CrdSchemaValidator.trainJobs();
    private final AccessReviews accessReviews = new AccessReviews(dispatcher::stored);
    private final java.util.concurrent.atomic.AtomicInteger refusedCreates = new java.util.concurrent.atomic.AtomicInteger();
    private volatile int refusedCreateCode;

    private TrainerSandbox(int port) {
        server = new KubernetesMockServer(new Context(), new MockWebServer(), new HashMap<>(), dispatcher, false);
        server.init(InetAddress.getLoopbackAddress(), port);
        this.port = server.getPort();
        client = server.createClient();
        drainer.scheduleWithFixedDelay(this::drain, 1, 1, TimeUnit.SECONDS);
    }

    /** Starts a sandbox on a free loopback port with the CRDs and the default runtimes, storing TrainJobs only. */
    public static TrainerSandbox start() {
        return start(Options.defaults());
    }

    public static TrainerSandbox start(Options options) {
        TrainerSandbox sandbox = new TrainerSandbox(options.port());
        for (String crd : List.of("trainer.kubeflow.org_trainjobs.yaml",
                "trainer.kubeflow.org_clustertrainingruntimes.yaml", "trainer.kubeflow.org_trainingruntimes.yaml")) {
            sandbox.client.apiextensions().v1().customResourceDefinitions()
                    .resource(load(CRDS + crd, CustomResourceDefinition.class)).create();
        }
        for (String runtime : DEFAULT_RUNTIMES) {
            sandbox.createRuntime(load(RUNTIMES + runtime, GenericKubernetesResource.class));
        }
        if (options.controller()) {
            sandbox.controller = new TrainJobControllerEmulation(sandbox.client, sandbox.podLogs, options.startDelay(),
                    options.runTime(), options.runScripts());
        }
        return sandbox;
    }

    /** A client of this sandbox (namespace "test"). Closed with the sandbox. */
    public KubernetesClient client() {
        return client;
    }

    public String masterUrl() {
        return client.getMasterUrl().toString();
    }

    /** Creates a ClusterTrainingRuntime or (namespaced) TrainingRuntime. */
    public void createRuntime(GenericKubernetesResource runtime) {
        boolean namespaced = "TrainingRuntime".equals(runtime.getKind());
        ResourceDefinitionContext context = new ResourceDefinitionContext.Builder().withGroup("trainer.kubeflow.org")
                .withVersion("v1alpha1").withKind(runtime.getKind())
                .withPlural(namespaced ? "trainingruntimes" : "clustertrainingruntimes").withNamespaced(namespaced)
                .build();
        if (namespaced) {
            client.genericKubernetesResources(context).inNamespace(runtime.getMetadata().getNamespace())
                    .resource(runtime).create();
        } else {
            client.genericKubernetesResources(context).resource(runtime).create();
        }
    }

    public void createRuntime(String yaml) {
        createRuntime(Serialization.unmarshal(yaml, GenericKubernetesResource.class));
    }

    /**
     * Closes every open watch connection, as a network failure or an API server restart would; clients must
     * re-establish them. Returns how many were closed.
     */
    public int dropWatches() {
        return forEachWatchSocket(socket -> socket.close(1011, "trainer sandbox dropped the watch"));
    }

    /**
     * Sends every open watch the ERROR event with a {@code 410 Gone} status that an API server sends when the watched
     * resourceVersion has expired: clients must re-list. Returns how many watches were told.
     */
    public int expireWatches() {
        String gone = Serialization.asJson(Map.of("type", "ERROR", "object", new StatusBuilder().withStatus("Failure")
                .withCode(410).withReason("Expired").withMessage("too old resource version (sandbox fault injection)")
                .build()));
        return forEachWatchSocket(socket -> socket.send(gone));
    }

    /**
     * Answers the next {@code count} watch requests whose path contains {@code pathPart} with {@code 410 Gone}, as an
     * API server does when asked to resume from a resourceVersion it no longer has: clients must re-list.
     */
    public void answerNextWatchesWithGone(String pathPart, int count) {
        goneWatches.merge(pathPart, count, Integer::sum);
    }

    @SuppressWarnings("unchecked")
    private int forEachWatchSocket(java.util.function.Predicate<WebSocket> action) {
        int count = 0;
        for (Object listener : watchListeners()) {
            try {
                Field socketField = listener.getClass().getDeclaredField("webSocketRef");
                socketField.setAccessible(true);
                WebSocket socket = ((AtomicReference<WebSocket>) socketField.get(listener)).get();
                if (socket != null && action.test(socket)) {
                    count++;
                }
            } catch (ReflectiveOperationException e) {
                throw new IllegalStateException("this fabric8 mock server version hides its watch sockets", e);
            }
        }
        return count;
    }

    /**
     * Stops the API server and starts it again on the same port with the same stored objects, as a control-plane
     * restart would: every open connection (watches, log streams, requests in flight) breaks, and requests fail until
     * it listens again, {@code downtime} later. Clients must reconnect; their resourceVersions stay valid.
     */
    public synchronized void restartApiServer(Duration downtime) {
        stopApiServer();
        try {
            Thread.sleep(downtime.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        startApiServer();
    }

    /**
     * Stops the API server, keeping its stored objects and port, as an outage would: open connections break and
     * requests are refused until {@link #startApiServer()}.
     */
    public synchronized void stopApiServer() {
        drain();
        server.destroy();
    }

    /** Starts a stopped API server again on its port, with the objects it held. */
    public synchronized void startApiServer() {
        KubernetesMockServer restarted = new KubernetesMockServer(new Context(), new MockWebServer(), new HashMap<>(),
                dispatcher, false);
        restarted.init(InetAddress.getLoopbackAddress(), port);
        server = restarted;
    }

    /**
     * Refuses the next {@code count} TrainJob creates with {@code code} (403 as the Trainer webhook would deny, 422,
     * 500, ...), before anything is stored.
     */
    public void refuseNextTrainJobCreates(int count, int code) {
        refusedCreates.set(count);
        refusedCreateCode = code;
    }

    /** Uses up one 410 answer planned for a path part this watch path contains; false when none is planned. */
    private boolean takeGoneAnswer(String path) {
        for (String part : goneWatches.keySet()) {
            if (path.contains(part)) {
                boolean[] taken = {false};
                goneWatches.computeIfPresent(part, (k, n) -> {
                    taken[0] = true;
                    return n > 1 ? n - 1 : null;
                });
                if (taken[0]) {
                    return true;
                }
            }
        }
        return false;
    }

    @SuppressWarnings("unchecked")
    private Set<Object> watchListeners() {
        try {
            Field field = KubernetesCrudDispatcher.class.getDeclaredField("watchEventListeners");
            field.setAccessible(true);
            return Set.copyOf((Set<Object>) field.get(dispatcher));
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("this fabric8 mock server version hides its watch listeners", e);
        }
    }

    /** Calls {@code listener} with the JSON body of every TrainJob create or replace, before it is stored. */
    public void onTrainJobWrite(Consumer<String> listener) {
        trainJobWriteListeners.add(listener);
    }

    /** How many requests the sandbox has received since it started. */
    public synchronized long requestCount() {
        drain();
        return recordedTotal;
    }

    /** The requests received after the first {@code since} (as counted by {@link #requestCount()}). */
    public synchronized List<RecordedRequest> requestsSince(long since) {
        drain();
        long skip = Math.max(0, since - (recordedTotal - recorded.size()));
        List<RecordedRequest> result = new ArrayList<>();
        long index = 0;
        for (RecordedRequest request : recorded) {
            if (index++ >= skip) {
                result.add(request);
            }
        }
        return result;
    }

    private synchronized void drain() {
        try {
            RecordedRequest request;
            while ((request = server.takeRequest(0, TimeUnit.MILLISECONDS)) != null) {
                recorded.addLast(request);
                recordedTotal++;
                if (recorded.size() > MAX_RECORDED) {
                    recorded.removeFirst();
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static <T> T load(String resource, Class<T> type) {
        try (InputStream in = TrainerSandbox.class.getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException("missing sandbox resource " + resource);
            }
            return Serialization.unmarshal(in, type);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public void close() {
        if (controller != null) {
            controller.close();
        }
        drainer.shutdownNow();
        client.close();
        server.destroy();
    }

    private static boolean isTrainJobPath(String path) {
        return path.startsWith(TRAINJOBS_PREFIX) && path.contains("/trainjobs");
    }

    /**
     * A bearer token the sandbox's TokenReview accepts for this user and groups, as a cluster's authenticator would.
     * What the user may do is decided by the Roles, ClusterRoles and bindings created in the sandbox
     * (SubjectAccessReview).
     */
    public String issueToken(String user, String... groups) {
        return accessReviews.issueToken(user, List.of(groups));
    }

    /** The sandbox's pod logs, which the emulated controller writes and the log endpoint serves. */
    public PodLogs podLogs() {
        return podLogs;
    }

    /**
     * The CRUD dispatcher, showing each TrainJob body to the listeners, refusing invalid TrainJobs with 422 as the CRD
     * would, serving pod logs and answering planned faults.
     */
    private final class ObservingCrudDispatcher extends KubernetesCrudDispatcher {
        @Override
        public MockResponse dispatch(RecordedRequest request) {
            if ("GET".equals(request.getMethod())) {
                MockResponse log = podLogs.answer(request.getPath());
                if (log != null) {
                    return log;
                }
            }
            return super.dispatch(request);
        }

        /** The JSON the store holds at a path (an object or a list), read in process; null when there is none. */
        String stored(String path) {
            MockResponse answer = super.handleGet(path);
            return answer.code() == 200 ? answer.getBody().readUtf8() : null;
        }

        @Override
        public MockResponse handleCreate(RecordedRequest request) {
            if (AccessReviews.isReview(request.getPath())) {
                return accessReviews.answer(request, request.getUtf8Body());
            }
            if (isTrainJobPath(request.getPath()) && refusedCreates.getAndUpdate(n -> Math.max(n - 1, 0)) > 0) {
                return failure(refusedCreateCode, null, "refused by the sandbox (fault injection)");
            }
            return isTrainJobPath(request.getPath()) ? writeTrainJob(request, super::handleCreate)
                    : super.handleCreate(request);
        }

        @Override
        public MockResponse handleUpdate(RecordedRequest request) {
            return isTrainJobPath(request.getPath()) ? writeTrainJob(request, super::handleUpdate)
                    : super.handleUpdate(request);
        }

        @Override
        public MockResponse handleWatch(String path) {
            if (takeGoneAnswer(path)) {
                return failure(410, "Expired", "too old resource version (sandbox fault injection)");
            }
            return super.handleWatch(path);
        }

        /** Shows a TrainJob write to the listeners, then refuses it (422) or lets {@code store} store it. */
        private MockResponse writeTrainJob(RecordedRequest request,
                java.util.function.Function<RecordedRequest, MockResponse> store) {
            String body = observe(request);
            MockResponse invalid = refuseInvalidTrainJob(request.getPath(), body);
            return invalid != null ? invalid : store.apply(withBody(request, body));
        }

        /** Reads a TrainJob write's body (which reading consumes) and shows it to the listeners. */
        private String observe(RecordedRequest request) {
            String body = request.getUtf8Body();
            trainJobWriteListeners.forEach(listener -> listener.accept(body));
            return body;
        }

        private RecordedRequest withBody(RecordedRequest request, String body) {
            return new RecordedRequest(request.getHttpVersion(), request.method(), request.getPath(),
                    request.getHeaders(), new Buffer().writeUtf8(body));
        }

        /**
         * A real API server answers 422 to a TrainJob its CRD's schema or CEL rules refuse; so does the sandbox,
         * where fabric8's mock server would store anything. (Stricter than a real server in one way: unknown fields
         * are refused, not pruned, so a setting cannot vanish unnoticed.)
         */
        private MockResponse refuseInvalidTrainJob(String path, String body) {
            if (path.contains("/status")) {
                return null;
            }
            List<String> violations = trainJobSchema.validate(body);
            if (violations.isEmpty()) {
                return null;
            }
            return failure(422, "Invalid", "TrainJob is invalid: " + String.join("; ", violations));
        }

        /** A Kubernetes Status answer, as the API server gives for a refused request. */
        private MockResponse failure(int code, String reason, String message) {
            return new MockResponse().setResponseCode(code).setBody(Serialization.asJson(new StatusBuilder()
                    .withStatus("Failure").withCode(code).withReason(reason).withMessage(message).build()));
        }
    }
}
