package io.camelkubeflow.trainer.sandbox;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.Field;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;

import com.fasterxml.jackson.databind.JsonNode;
import io.camelkubeflow.trainer.sandbox.cluster.StagedScriptRunner;
import io.camelkubeflow.trainer.sandbox.cluster.TrainJobControllerEmulation;
import io.camelkubeflow.trainer.sandbox.http.ApiHttpServer;
import io.camelkubeflow.trainer.sandbox.http.PodLogs;
import io.camelkubeflow.trainer.sandbox.http.ServingCertificate;
import io.camelkubeflow.trainer.sandbox.store.AccessReviews;
import io.camelkubeflow.trainer.sandbox.store.CrdSchemaValidator;
import io.camelkubeflow.trainer.sandbox.store.Discovery;
import io.camelkubeflow.trainer.sandbox.store.DuplicateOwnerReferences;
import io.camelkubeflow.trainer.sandbox.store.JsonResources;
import io.camelkubeflow.trainer.sandbox.store.ObjectPatches;
import io.camelkubeflow.trainer.sandbox.store.ResourcePath;
import io.camelkubeflow.trainer.sandbox.store.ServedCrd;
import io.camelkubeflow.trainer.sandbox.store.StatusAnswers;
import io.camelkubeflow.trainer.sandbox.store.StoreIndex;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.StatusBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.server.mock.crud.KubernetesCrudDispatcherException;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.fabric8.mockwebserver.crud.AttributeSet;
import io.fabric8.mockwebserver.http.Buffer;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;
import io.fabric8.mockwebserver.http.WebSocket;

/**
 * A local emulation of a Kubernetes API server with Kubeflow Trainer v2.3.0's CRDs and default
 * ClusterTrainingRuntimes installed, on loopback: fabric8's mock server's store behind an HTTP front
 * ({@link ApiHttpServer}) that answers as a kube-apiserver does, so kubectl, the Kubeflow Python SDK and any
 * client-go or fabric8 program accept it. It stores and serves objects (create, get, list, watch, patch, delete); with
 * {@link Options#withController} a {@link TrainJobControllerEmulation} also gives TrainJobs pods, Events and status as
 * the Trainer, JobSet and a kubelet would; no code runs except, with {@link Options#withScriptsRun}, a staged Python
 * script, with the local python3, one process per node ({@link StagedScriptRunner}). It records the requests it
 * receives (the latest {@value #MAX_RECORDED}) so tests and benchmarks can count them.
 */
public final class TrainerSandbox implements AutoCloseable {
    public static final String CRDS = "/kubeflow-trainer/crds/";
    public static final String RUNTIMES = "/kubeflow-trainer/runtimes/";
    private static final List<String> INSTALLED_CRDS = List.of(JsonResources.TRAINJOBS_CRD,
            CRDS + "trainer.kubeflow.org_clustertrainingruntimes.yaml",
            CRDS + "trainer.kubeflow.org_trainingruntimes.yaml", JsonResources.JOBSET_CRD);
    /**
     * The runtimes the Trainer's release installs (its manifests/overlays/runtimes): the data cache's runtime
     * ({@link #DATA_CACHE_RUNTIME}) is not among them; a test that needs it creates it, as a user would.
     */
    public static final List<String> DEFAULT_RUNTIMES = List.of(
            "torch_distributed.yaml", "deepspeed_distributed.yaml", "mlx_distributed.yaml", "jax_distributed.yaml",
            "xgboost_distributed.yaml", "torchtune/llama3_2/llama3_2_1B.yaml", "torchtune/llama3_2/llama3_2_3B.yaml",
            "torchtune/qwen2_5/qwen2_5_1.5B.yaml");
    /** The data cache's runtime ({@code torch-distributed-with-cache}), as its release ships it, JSON. */
    public static final String DATA_CACHE_RUNTIME = RUNTIMES + "data-cache/torch_distributed_with_cache.json";
    static final int MAX_RECORDED = 100_000;
    /** The Trainer release whose CRDs and runtimes the sandbox holds. */
    public static final String TRAINER_VERSION = "v2.3.0";
    /** Where the Trainer's control plane lives, with its public ConfigMap the SDK reads. */
    public static final String TRAINER_SYSTEM_NAMESPACE = "kubeflow-system";
    /** The cluster, user and context name of the kubeconfig {@link #writeKubeconfig} writes. */
    public static final String KUBECONFIG_CONTEXT = "trainer-sandbox";
    /** Who the admin token acts as: the user kubeadm's admin kubeconfig names. */
    static final String ADMIN_USER = "kubernetes-admin";
    private static final String TRAINJOBS_PREFIX = "/apis/trainer.kubeflow.org/v1alpha1/namespaces/";

    private final ApiHttpServer http;
    /** What the API server serves TLS with, and what its clients trust. */
    private final ServingCertificate certificate;
    /** The API server's port, kept across restarts so clients reconnect to it. */
    private final int port;
    private final KubernetesClient client;
    private final List<Consumer<String>> trainJobWriteListeners = new CopyOnWriteArrayList<>();
    /** The latest requests; also the lock of {@link #recordedTotal}. */
    private final Deque<RecordedRequest> recorded = new ArrayDeque<>();
    private long recordedTotal;

    /**
     * How to start a sandbox.
     *
     * @param port       loopback port of the API server; 0 picks a free one
     * @param controller whether the controller emulation runs TrainJobs (pods, status, conditions); without it,
     *                   TrainJobs are only stored
     * @param startDelay time from TrainJob creation to Running, with the controller
     * @param runTime    time from Running to Complete (a job may set its own with the run-millis annotation)
     * @param runScripts whether a staged Python script is really run (with the local python3, one process per node)
     * @param manifests  YAML files whose objects are created after the Trainer's, in order, as {@code kubectl create
     *                   -f} would (a namespaced object without a namespace goes into "default"); a file that cannot
     *                   be read or an object refused fails the start
     * @param namespaces namespaces made after the manifests' objects, when they do not exist yet
     */
    public record Options(int port, boolean controller, Duration startDelay, Duration runTime, boolean runScripts,
            List<Path> manifests, List<String> namespaces) {
        /** How long a job's pods take to start and to run when the sandbox runs on its own (SandboxMain, apps). */
        public static final Duration STANDALONE_START_DELAY = Duration.ofMillis(500);
        public static final Duration STANDALONE_RUN_TIME = Duration.ofSeconds(5);

        public Options {
            manifests = List.copyOf(manifests);
            namespaces = List.copyOf(namespaces);
        }

        /** A free port, no controller. */
        public static Options defaults() {
            return new Options(0, false, Duration.ZERO, Duration.ZERO, false, List.of(), List.of());
        }

        /** A free port, the controller at the pace of a sandbox that runs on its own. */
        public static Options standalone() {
            return defaults().withController(STANDALONE_START_DELAY, STANDALONE_RUN_TIME);
        }

        public Options withPort(int newPort) {
            return new Options(newPort, controller, startDelay, runTime, runScripts, manifests, namespaces);
        }

        public Options withController(Duration newStartDelay, Duration newRunTime) {
            return new Options(port, true, newStartDelay, newRunTime, runScripts, manifests, namespaces);
        }

        /** The controller runs a job's staged Python script with the local python3, instead of emulating a run. */
        public Options withScriptsRun() {
            return new Options(port, controller, startDelay, runTime, true, manifests, namespaces);
        }

        /** Also the objects of these YAML files, then these namespaces, before the first request is answered. */
        public Options withInstalled(List<Path> newManifests, String... newNamespaces) {
            return new Options(port, controller, startDelay, runTime, runScripts, newManifests,
                    List.of(newNamespaces));
        }
    }

    /** The controller, once installed; guarded by this sandbox, which a close during the installation may take. */
    private TrainJobControllerEmulation controller;
    private boolean closed;
    private final ObservingCrudDispatcher dispatcher = new ObservingCrudDispatcher();
    private final Discovery discovery = new Discovery(dispatcher::stored);
    private static final String NAMESPACES = "/api/v1/namespaces";
    private static final String CLUSTER_RUNTIMES = "/apis/trainer.kubeflow.org/v1alpha1/clustertrainingruntimes";
    /** The namespaces that exist: a write into any other is refused, as on a cluster. */
    private final Set<String> namespaces = ConcurrentHashMap.newKeySet();
    private final Map<String, Integer> goneWatches = new ConcurrentHashMap<>();
    private final PodLogs podLogs = new PodLogs();
    /** Set by the installation, which every request waits for. */
    private volatile CrdSchemaValidator trainJobSchema;
    /** The runtime kinds' schemas, by plural: a runtime is stored with their defaults, as the API server stores it. */
    private final Map<String, CrdSchemaValidator> runtimeSchemas = new ConcurrentHashMap<>();
    /** The Trainer installed: until then, requests wait. */
    private final CompletableFuture<Void> installed = new CompletableFuture<>();
    /** Installed, and the controller (when asked for) watching. */
    private final CompletableFuture<Void> started = new CompletableFuture<>();
    /** The API server listens and the client is made: what the installation needs after the store's objects. */
    private final CompletableFuture<Void> listening = new CompletableFuture<>();
    private final AccessReviews accessReviews = new AccessReviews(dispatcher::stored);
    /**
     * The token of the cluster's admin ({@code system:masters}), which the sandbox's own client and the kubeconfig it
     * writes carry: the API server answers no request without a token it issued.
     */
    private final String adminToken = accessReviews.issueToken(ADMIN_USER, List.of("system:masters"));
    private final java.util.concurrent.atomic.AtomicInteger refusedCreates = new java.util.concurrent.atomic.AtomicInteger();
    private volatile int refusedCreateCode;

    /**
     * Installs the Trainer on a thread of its own while this constructor starts the API server and the client: the
     * store needs neither, and the installation, the larger part, starts that much earlier.
     */
    private TrainerSandbox(Options options) {
        Thread installer = new Thread(() -> install(options), "trainer-sandbox-install");
        installer.setDaemon(true);
        installer.start();
        try {
            certificate = ServingCertificate.create();
            http = new ApiHttpServer(dispatcher, discovery, podLogs, this::record, accessReviews::isIssued,
                    certificate, installed);
            this.port = http.listen(options.port());
            client = new KubernetesClientBuilder().withConfig(new ConfigBuilder(Config.empty())
                    .withMasterUrl("https://" + ApiHttpServer.LOOPBACK_HOST + ":" + this.port + "/")
                    .withCaCertData(certificateAuthorityData()).withOauthToken(adminToken).withNamespace("test")
                    .withHttp2Disable(true).build()).build();
            listening.complete(null);
        } catch (RuntimeException e) {
            listening.completeExceptionally(e);
            throw e;
        }
    }

    /** Starts a sandbox on a free loopback port with the CRDs and the default runtimes, storing TrainJobs only. */
    public static TrainerSandbox start() {
        return start(Options.defaults());
    }

    /** Starts a sandbox and returns once it is installed and its controller (when asked for) watches. */
    public static TrainerSandbox start(Options options) {
        TrainerSandbox sandbox = starting(options);
        try {
            sandbox.awaitStarted();
        } catch (RuntimeException e) {
            sandbox.close();
            throw e;
        }
        return sandbox;
    }

    /**
     * Starts a sandbox and returns as soon as it listens: the Trainer is installed (and the controller started) on a
     * thread of its own, and every request waits for the installation, so nobody sees a cluster half made. An app
     * that uses the sandbox starts beside it, on another core, and calls {@link #awaitStarted} before it says it is up.
     */
    public static TrainerSandbox starting(Options options) {
        return new TrainerSandbox(options);
    }

    /** Waits until the sandbox is installed and its controller watches; throws what made that fail. */
    public void awaitStarted() {
        try {
            started.join();
        } catch (java.util.concurrent.CompletionException e) {
            throw e.getCause() instanceof RuntimeException failure ? failure : e;
        }
    }

    /**
     * What a cluster with the Trainer installed has before anyone uses it: the CRDs, the default runtimes, the system
     * namespaces and the Trainer's public ConfigMap, then the objects and namespaces of the options. Written straight
     * into the store, as an installer's {@code kubectl apply} would have left them, without a trip through the wire.
     */
    private void install(Options options) {
        try {
            for (String crd : INSTALLED_CRDS) {
                String json = JsonResources.read(crd);
                installObject(crd, Discovery.CRDS, json);
                if (crd.equals(JsonResources.TRAINJOBS_CRD)) {
                    trainJobSchema = CrdSchemaValidator.of(json);
                } else if (crd.startsWith(CRDS)) {
                    runtimeSchemas.put(ServedCrd.of(json).context().getPlural(), CrdSchemaValidator.of(json));
                }
            }
            RuntimesOverlay overlay = RuntimesOverlay.release();
            for (String runtime : DEFAULT_RUNTIMES) {
                installObject(RUNTIMES + runtime, CLUSTER_RUNTIMES, overlay.apply(JsonResources.read(RUNTIMES + runtime)));
            }
            List.of("default", "kube-system", "kube-public", TRAINER_SYSTEM_NAMESPACE).forEach(this::installNamespace);
            installObject("the Trainer's public ConfigMap", NAMESPACES + "/" + TRAINER_SYSTEM_NAMESPACE + "/configmaps",
                    Serialization.asJson(
                    new io.fabric8.kubernetes.api.model.ConfigMapBuilder().withNewMetadata()
                            .withName("kubeflow-trainer-public").endMetadata()
                            .addToData("kubeflow_trainer_version", TRAINER_VERSION).build()));
            listening.join();
            for (Path manifest : options.manifests()) {
                installManifest(manifest);
            }
            options.namespaces().forEach(this::installNamespace);
            installed.complete(null);
            synchronized (this) {
                if (options.controller() && !closed) {
                    controller = new TrainJobControllerEmulation(client, podLogs, options.startDelay(),
                            options.runTime(), options.runScripts());
                }
            }
            started.complete(null);
        } catch (RuntimeException | Error e) {
            installed.completeExceptionally(e);
            started.completeExceptionally(e);
        }
    }

    private void installManifest(Path manifest) {
        List<io.fabric8.kubernetes.api.model.HasMetadata> objects;
        try {
            objects = client.load(new java.io.ByteArrayInputStream(Files.readAllBytes(manifest))).items();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the manifest " + manifest, e);
        }
        for (io.fabric8.kubernetes.api.model.HasMetadata object : objects) {
            String what = manifest + ": " + object.getApiVersion() + " " + object.getKind() + " "
                    + object.getMetadata().getName();
            String path = discovery.collectionPath(object);
            if (path == null) {
                throw new IllegalArgumentException(what + ": the sandbox does not serve that kind");
            }
            installObject(what, path, Serialization.asJson(object));
        }
    }

    /** A namespace as the cluster's admin makes it, unless it exists (a manifest may have made it). */
    private void installNamespace(String name) {
        if (!namespaces.contains(name)) {
            installObject("namespace " + name, NAMESPACES, Serialization.asJson(namespace(name)));
        }
    }

    /** Creates an object in process, as a POST of its JSON to its collection would; a refusal is a failure. */
    private void installObject(String what, String collection, String json) {
        MockResponse answer = dispatcher.dispatch(new RecordedRequest("HTTP/1.1",
                io.fabric8.mockwebserver.dsl.HttpMethod.POST, collection,
                io.fabric8.mockwebserver.http.Headers.builder().add("Content-Type", "application/json").build(),
                new Buffer(json.getBytes(java.nio.charset.StandardCharsets.UTF_8))));
        if (answer == null || answer.code() != 201) {
            String body = answer == null || answer.getBody() == null ? "" : answer.getBody().readUtf8();
            throw new IllegalStateException(what + ": the sandbox could not create it: "
                    + (answer == null ? "not served" : answer.code() + " " + body));
        }
    }

    private static io.fabric8.kubernetes.api.model.Namespace namespace(String name) {
        return new io.fabric8.kubernetes.api.model.NamespaceBuilder().withNewMetadata().withName(name)
                .addToLabels("kubernetes.io/metadata.name", name).endMetadata().withNewStatus().withPhase("Active")
                .endStatus().build();
    }

    /** A client of this sandbox (namespace "test"). Closed with the sandbox. */
    public KubernetesClient client() {
        return client;
    }

    public String masterUrl() {
        return client.getMasterUrl().toString();
    }

    /**
     * The serving certificate as a kubeconfig's {@code certificate-authority-data} and fabric8's caCertData hold it.
     */
    private String certificateAuthorityData() {
        return java.util.Base64.getEncoder().encodeToString(certificate.pem().getBytes(
                java.nio.charset.StandardCharsets.US_ASCII));
    }

    /**
     * A TLS context that trusts this sandbox's certificate alone (the API server serves https with a certificate made
     * at start), for an HTTP client made by hand; it then needs the admin's token too:
     * {@code client().getConfiguration().getOauthToken()}.
     */
    public javax.net.ssl.SSLContext sslContext() {
        return certificate.trustingContext();
    }

    /**
     * Writes a kubeconfig for this sandbox at {@code path} (context {@value #KUBECONFIG_CONTEXT}, namespace "default"),
     * for kubectl, the Kubeflow Python SDK or any client. It holds the admin token, so on a POSIX file system it is
     * created readable and writable by its owner only (mode 600) before anything is written into it.
     */
    public Path writeKubeconfig(Path path) {
        return writeKubeconfig(path, "default");
    }

    /**
     * Writes a kubeconfig for this sandbox as {@link #writeKubeconfig(Path)} does, its context in {@code namespace}.
     */
    public Path writeKubeconfig(Path path, String namespace) {
        String yaml = """
                apiVersion: v1
                kind: Config
                clusters:
                - name: %1$s
                  cluster:
                    server: %2$s
                    certificate-authority-data: %4$s
                users:
                - name: %1$s
                  user: {token: %3$s}
                contexts:
                - name: %1$s
                  context: {cluster: %1$s, user: %1$s, namespace: %5$s}
                current-context: %1$s
                """.formatted(KUBECONFIG_CONTEXT, masterUrl().replaceAll("/$", ""), adminToken,
                certificateAuthorityData(), namespace);
        try {
            return writeOwnerOnly(path, yaml);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the sandbox's kubeconfig to " + path, e);
        }
    }

    /**
     * Issues a token ({@link #issueToken}) and writes it to {@code path}, readable by its owner only, for a local
     * developer's requests.
     */
    public Path writeToken(Path path, String user, String... groups) {
        try {
            return writeOwnerOnly(path, issueToken(user, groups));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write a sandbox token to " + path, e);
        }
    }

    /** A file that holds a credential: its folder made if missing, any file or link there replaced, mode 600. */
    private static Path writeOwnerOnly(Path path, String text) throws IOException {
        Path absolute = path.toAbsolutePath();
        Files.createDirectories(absolute.getParent());
        Files.deleteIfExists(absolute);
        // made new and written through one handle: a file or link someone put there meanwhile fails the write
        // instead of receiving the credential
        java.nio.file.attribute.FileAttribute<?>[] ownerOnly = absolute.getFileSystem()
                .supportedFileAttributeViews().contains("posix") ? new java.nio.file.attribute.FileAttribute<?>[] {
                        PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------"))}
                : new java.nio.file.attribute.FileAttribute<?>[0];
        try (var file = Files.newByteChannel(absolute, java.util.EnumSet.of(
                java.nio.file.StandardOpenOption.CREATE_NEW, java.nio.file.StandardOpenOption.WRITE), ownerOnly)) {
            file.write(java.nio.ByteBuffer.wrap(text.getBytes(java.nio.charset.StandardCharsets.UTF_8)));
        }
        return absolute;
    }

    /**
     * Creates each namespace that does not exist yet, as {@code kubectl create namespace} would: objects can be
     * created only in namespaces that exist.
     */
    public void createNamespace(String... names) {
        for (String name : names) {
            if (!namespaces.contains(name)) {
                client.namespaces().resource(namespace(name)).create();
            }
        }
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
        http.stop();
    }

    /** Starts a stopped API server again on its port, with the objects it held. */
    public synchronized void startApiServer() {
        http.listen(port);
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

    /**
     * How many requests are held now, read but not answered, until the Trainer's CRDs, runtimes and the given manifests
     * are installed (a client that came early: {@link #starting}).
     */
    public int requestsAwaitingInstall() {
        return http.awaitingInstall();
    }

    /** How many requests the sandbox has received since it started. */
    public long requestCount() {
        synchronized (recorded) {
            return recordedTotal;
        }
    }

    /** The requests received after the first {@code since} (as counted by {@link #requestCount()}). */
    public List<RecordedRequest> requestsSince(long since) {
        synchronized (recorded) {
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
    }

    /** Records a request; its own lock, as the API server's event loops record while a restart holds the sandbox's. */
    private void record(RecordedRequest request) {
        synchronized (recorded) {
            recorded.addLast(request);
            recordedTotal++;
            if (recorded.size() > MAX_RECORDED) {
                recorded.removeFirst();
            }
        }
    }

    @Override
    public void close() {
        synchronized (this) {
            closed = true;
            if (controller != null) {
                controller.close();
            }
        }
        client.close();
        http.close();
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
        private final StoreIndex index = new StoreIndex();
        /** The store's resourceVersion counter, which lists report. */
        private final java.util.concurrent.atomic.AtomicLong resourceVersion = storeResourceVersion();

        ObservingCrudDispatcher() {
            learnCrdsFromServedFacts();
        }

        /**
         * Puts {@link ServedCrd.Processor} where fabric8's store keeps its CRD processor, which it makes itself and
         * offers no way to replace: the installation writes four CRDs, and fabric8's own processor parses each into
         * the typed model.
         */
        private void learnCrdsFromServedFacts() {
            ServedCrd.Processor processor = new ServedCrd.Processor();
            try {
                Field field = KubernetesCrudDispatcher.class.getDeclaredField("crdProcessor");
                field.setAccessible(true);
                field.set(this, processor);
            } catch (ReflectiveOperationException e) {
                throw new IllegalStateException("this fabric8 mock server version hides its CRD processor", e);
            }
            ((io.fabric8.kubernetes.client.server.mock.KubernetesAttributesExtractor) attributeExtractor)
                    .setCustomResourceDefinitionProcessor(processor);
        }

        private java.util.concurrent.atomic.AtomicLong storeResourceVersion() {
            try {
                Field field = KubernetesCrudDispatcher.class.getDeclaredField("resourceVersion");
                field.setAccessible(true);
                return (java.util.concurrent.atomic.AtomicLong) field.get(this);
            } catch (ReflectiveOperationException e) {
                throw new IllegalStateException("this fabric8 mock server version hides its resourceVersion", e);
            }
        }

        /** A JSON merge patch of any kind, applied as RFC 7386 says (see {@link ObjectPatches}). */
        @Override
        public JsonNode merge(JsonNode stored, String patch) throws KubernetesCrudDispatcherException {
            try {
                return ObjectPatches.merge(stored, Serialization.jsonMapper().readTree(patch));
            } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
                throw new KubernetesCrudDispatcherException(e.getMessage(), 422);
            }
        }

        /** The JSON the store holds at a path (an object or a list), read in process; null when there is none. */
        String stored(String path) {
            MockResponse answer = handleGet(path);
            return answer.code() == 200 ? answer.getBody().readUtf8() : null;
        }

        /** Reads of one object or one collection from the index; watches as the store serves them. */
        @Override
        public MockResponse handleGet(String path) {
            if (path.contains("watch=true")) {
                return super.handleGet(path);
            }
            AttributeSet query = getKey(path);
            Map.Entry<AttributeSet, String> found = index.find(query);
            if (found == null) {
                return new MockResponse().setResponseCode(404);
            }
            if (found != StoreIndex.UNINDEXED) {
                return new MockResponse().setResponseCode(200).setBody(found.getValue());
            }
            if (query.getAttribute(io.fabric8.kubernetes.client.server.mock.KubernetesAttributesExtractor.PLURAL)
                    == null) {
                return super.handleGet(path);
            }
            return new MockResponse().setResponseCode(200).setBody("{\"apiVersion\":\"v1\",\"kind\":\"List\","
                    + " \"items\": [" + String.join(",", index.list(query)) + "], \"metadata\": {\"resourceVersion\": \""
                    + resourceVersion.get() + "\", \"selfLink\": \"\"}}");
        }

        /** The writes find the object they change from the index. */
        @Override
        public Map.Entry<AttributeSet, String> findResource(AttributeSet attributes) {
            Map.Entry<AttributeSet, String> found = index.find(attributes);
            return found == StoreIndex.UNINDEXED ? super.findResource(attributes) : found;
        }

        /** Every change of the store, kept in the index under the key the store gives it. */
        @Override
        public void processEvent(String path, AttributeSet pathAttributes, AttributeSet oldAttributes,
                GenericKubernetesResource resource, String stored) {
            String newState = withoutGeneration(ResourcePath.of(path), stored);
            super.processEvent(path, pathAttributes, oldAttributes, resource, newState);
            AttributeSet newAttributes = null;
            if (newState != null) {
                var extractor = (io.fabric8.kubernetes.client.server.mock.KubernetesAttributesExtractor) attributeExtractor;
                newAttributes = resource != null ? extractor.extract(resource) : extractor.fromResource(newState);
                if (!newAttributes.containsKey(io.fabric8.kubernetes.client.server.mock.KubernetesAttributesExtractor
                        .PLURAL)) {
                    newAttributes = AttributeSet.merge(pathAttributes, newAttributes);
                }
            }
            index.changed(oldAttributes, newAttributes, newState);
        }

        @Override
        public MockResponse dispatch(RecordedRequest request) {
            String path = request.getPath();
            boolean write = !"GET".equals(request.getMethod());
            ResourcePath resource = ResourcePath.of(path);
            String namespace = resource == null || resource.plural() == null ? null : resource.namespace();
            if (write && !"DELETE".equals(request.getMethod()) && namespace != null && !namespaces.contains(namespace)) {
                return StatusAnswers.notFound(ResourcePath.of(NAMESPACES), namespace);
            }
            // the body as sent, read before the store consumes it: is it JSON at all, what name does a create ask for
            byte[] sent = request.getBody() == null ? null : request.getBody().getBytes();
            String contentType = String.valueOf(request.getHeader("Content-Type"));
            if (sent != null && resource != null && resource.plural() != null && contentType.contains("json")
                    && ("POST".equals(request.getMethod()) || "PUT".equals(request.getMethod()))) {
                try {
                    com.fasterxml.jackson.databind.JsonNode object = Serialization.jsonMapper().readTree(sent);
                    if (object == null || !object.isObject()) {
                        // JSON, but no object: as Go's decoder says of it
                        return unrecognized(path, resource, sent, "cannot unmarshal "
                                + (object == null ? "nothing" : object.getNodeType().name().toLowerCase(
                                        java.util.Locale.ROOT)) + " into Go value of type struct");
                    }
                } catch (com.fasterxml.jackson.core.JsonProcessingException notJson) {
                    return unrecognized(path, resource, sent, notJson.getOriginalMessage());
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            }
            boolean namespaceCreate = "POST".equals(request.getMethod()) && sent != null && resource != null
                    && "v1".equals(resource.groupVersion()) && "namespaces".equals(resource.plural())
                    && resource.name() == null;
            if (namespaceCreate) {
                try {
                    request = withBody(request, asTheNamespaceStrategyMakesIt(sent));
                } catch (RuntimeException notANamespace) {
                    // JSON, but not of a Namespace's shape ([], {"metadata": "x"}, {"spec": 5})
                    return unrecognized(path, resource, sent, String.valueOf(notANamespace.getMessage()));
                }
            }
            Optional<DuplicateOwnerReferences.Rewrite> deduplicated = withoutDuplicateOwners(request, resource,
                    contentType);
            if (deduplicated.isPresent()) {
                request = withBody(request, deduplicated.get().body());
            }
            try {
                MockResponse response = super.dispatch(request);
                if ("PATCH".equals(request.getMethod()) && response != null && response.code() == 202) {
                    // fabric8's store answers a patch 202 Accepted; the API server answers 200 with the object
                    response.setResponseCode(200);
                }
                if (deduplicated.isPresent() && response != null && response.code() < 300) {
                    response.addHeader("Warning", deduplicated.get().warning());
                }
                if ("DELETE".equals(request.getMethod()) && response != null && response.code() == 200) {
                    collectGarbage(request, response);
                }
                if (response == null || resource == null || resource.plural() == null) {
                    return response;
                }
                if ("DELETE".equals(request.getMethod()) && response.code() == 200 && resource.name() != null
                        && !RETURN_DELETED_OBJECT.contains(resource.plural())) {
                    GenericKubernetesResource gone = Serialization.unmarshal(response.getBody().readUtf8(),
                            GenericKubernetesResource.class);
                    return StatusAnswers.deleted(resource, resource.name(), gone.getMetadata().getUid());
                }
                if (write && response.code() < 300 && response.getBody() != null) {
                    response.setBody(withoutGeneration(resource, response.getBody().readUtf8()));
                }
                return inApiServerWords(request, sent, resource, response);
            } finally {
                if (write && path.startsWith(Discovery.CRDS)) {
                    discovery.crdsChanged();
                } else if (write && path.startsWith(NAMESPACES)) {
                    refreshNamespaces();
                }
            }
        }

        /** The write without the duplicate owner references the API server would drop from what it stores. */
        private Optional<DuplicateOwnerReferences.Rewrite> withoutDuplicateOwners(RecordedRequest request,
                ResourcePath resource, String contentType) {
            if (request.getBody() == null || resource == null || resource.plural() == null) {
                return Optional.empty();
            }
            String body = new String(request.getBody().getBytes(), java.nio.charset.StandardCharsets.UTF_8);
            if (!body.contains("ownerReferences")) {
                // every stored object is without duplicates: only a write that names owners can add one (a status
                // write of the controller never parses, nor applies a patch twice)
                return Optional.empty();
            }
            return switch (request.getMethod()) {
                case "POST", "PUT" -> contentType.contains("json") ? DuplicateOwnerReferences.inObject(body)
                        : Optional.empty();
                case "PATCH" -> resource.name() == null ? Optional.empty() : DuplicateOwnerReferences.inPatch(
                        stored(request.getPath().split("\\?")[0]), body, contentType);
                default -> Optional.empty();
            };
        }

        /**
         * A namespace as the API server's namespace strategy stores it: labelled with its name
         * (kubernetes.io/metadata.name), with the "kubernetes" finalizer its controller removes, and Active.
         */
        private static String asTheNamespaceStrategyMakesIt(byte[] sent) {
            var namespace = (com.fasterxml.jackson.databind.node.ObjectNode) Serialization.unmarshal(new String(sent,
                    java.nio.charset.StandardCharsets.UTF_8), com.fasterxml.jackson.databind.JsonNode.class);
            var metadata = namespace.withObjectProperty("metadata");
            if (metadata.hasNonNull("name")) {
                metadata.withObjectProperty("labels").put("kubernetes.io/metadata.name", metadata.get("name").asText());
            }
            var spec = namespace.withObjectProperty("spec");
            if (!spec.has("finalizers")) {
                spec.putArray("finalizers").add("kubernetes");
            }
            namespace.withObjectProperty("status").put("phase", "Active");
            return Serialization.asJson(namespace);
        }

        /** The kinds whose registry answers a delete with the deleted object (ReturnDeletedObject), not a Status. */
        private static final Set<String> RETURN_DELETED_OBJECT = Set.of("pods", "namespaces", "services",
                "serviceaccounts");

        /**
         * An object as the API server keeps it: fabric8's store gives every object a metadata.generation, which the
         * API server sets only for kinds with a spec it tracks (pods, jobs, custom resources), never for these.
         */
        private static final Set<String> WITHOUT_GENERATION = Set.of("configmaps", "events", "namespaces", "secrets",
                "serviceaccounts", "services", "leases", "clusterroles", "clusterrolebindings", "roles",
                "rolebindings");

        /**
         * fabric8's store copies the stored object's generation into its update, and fails on an object without one:
         * it gets one to copy, which the update loses again before it is stored or answered.
         */
        @Override
        public void preserveMetadata(com.fasterxml.jackson.databind.JsonNode current,
                com.fasterxml.jackson.databind.JsonNode updated) {
            if (current.get("metadata") instanceof com.fasterxml.jackson.databind.node.ObjectNode metadata
                    && !metadata.has("generation")) {
                metadata.put("generation", 0);
            }
            super.preserveMetadata(current, updated);
        }

        private static String withoutGeneration(ResourcePath resource, String json) {
            if (json == null || resource == null || !WITHOUT_GENERATION.contains(resource.plural())
                    || !json.contains("\"generation\"")) {
                return json;
            }
            var object = (com.fasterxml.jackson.databind.node.ObjectNode) Serialization.unmarshal(json,
                    com.fasterxml.jackson.databind.JsonNode.class);
            if (object.get("metadata") instanceof com.fasterxml.jackson.databind.node.ObjectNode metadata) {
                metadata.remove("generation");
            }
            return Serialization.asJson(object);
        }

        /**
         * The store's refusals as the API server words them: it answers a missing object with a bare 404 and a taken
         * name or a stale resourceVersion with a 409 of its own words and reason "Invalid".
         */
        private MockResponse inApiServerWords(RecordedRequest request, byte[] sent, ResourcePath resource,
                MockResponse response) {
            boolean bare = response.getBody() == null || response.getBody().size() == 0;
            if (response.code() == 404 && bare && resource.name() != null) {
                return StatusAnswers.notFound(resource, resource.name());
            }
            if (response.code() != 409) {
                return response;
            }
            if ("POST".equals(request.getMethod())) {
                String name = Serialization.unmarshal(new String(sent, java.nio.charset.StandardCharsets.UTF_8),
                        GenericKubernetesResource.class).getMetadata().getName();
                return StatusAnswers.alreadyExists(resource, name);
            }
            return StatusAnswers.conflict(resource, resource.name());
        }

        /** The API server's refusal of a body that is not JSON: the kind it expected, why the body is not, the body. */
        private MockResponse unrecognized(String path, ResourcePath resource, byte[] sent, String parseError) {
            String bare = path.contains("?") ? path.substring(0, path.indexOf('?')) : path;
            String[] listType = discovery.listType(resource.name() == null ? bare
                    : bare.substring(0, bare.lastIndexOf('/')));
            String kind = listType == null ? "Unknown"
                    : listType[1].substring(0, listType[1].length() - "List".length());
            return StatusAnswers.failure(400, "BadRequest", "the object provided is unrecognized (must be of type "
                    + kind + "): couldn't get version/kind; json parse error: " + parseError + " ("
                    + new String(sent, java.nio.charset.StandardCharsets.UTF_8) + ")");
        }

        /**
         * What Kubernetes' garbage collector does after a delete (background propagation, unless the request asked to
         * orphan): every object whose ownerReferences name a deleted object goes too, and so on down; a deleted pod's
         * log streams end.
         */
        private void collectGarbage(RecordedRequest request, MockResponse response) {
            String body = response.getBody() == null ? ""
                    : new String(response.getBody().getBytes(), java.nio.charset.StandardCharsets.UTF_8);
            String options = request.getBody() == null ? ""
                    : new String(request.getBody().getBytes(), java.nio.charset.StandardCharsets.UTF_8);
            if (body.isEmpty() || request.getPath().contains("propagationPolicy=Orphan")
                    || options.contains("\"Orphan\"")) {
                return;
            }
            List<GenericKubernetesResource> deleted = new ArrayList<>();
            GenericKubernetesResource object = Serialization.unmarshal(body, GenericKubernetesResource.class);
            if (object.getKind() != null && object.getKind().endsWith("List")) {
                return;
            }
            deleted.add(object);
            while (!deleted.isEmpty()) {
                GenericKubernetesResource owner = deleted.remove(0);
                if ("Pod".equals(owner.getKind())) {
                    podLogs.end(owner.getMetadata().getNamespace(), owner.getMetadata().getName());
                }
                String uid = owner.getMetadata().getUid();
                if (uid == null) {
                    continue;
                }
                List<String> dependents;
                synchronized (map) {
                    dependents = map.values().stream().filter(json -> json.contains(uid)).toList();
                }
                for (String json : dependents) {
                    GenericKubernetesResource dependent = Serialization.unmarshal(json, GenericKubernetesResource.class);
                    boolean owned = dependent.getMetadata().getOwnerReferences().stream()
                            .anyMatch(ref -> uid.equals(ref.getUid()));
                    if (owned && dependent.getMetadata().getOwnerReferences().stream()
                            .anyMatch(ref -> !uid.equals(ref.getUid()) && exists(ref.getUid()))) {
                        // another owner lives on: the collector takes only the dead owner's reference away
                        dropOwner(dependent, uid);
                        continue;
                    }
                    String path = owned ? discovery.path(dependent) : null;
                    if (path != null && super.handleDelete(path).code() == 200) {
                        deleted.add(dependent);
                    }
                }
            }
        }

        /** Whether the store holds an object of that uid. */
        private boolean exists(String uid) {
            List<String> candidates;
            synchronized (map) {
                candidates = map.values().stream().filter(json -> json.contains(uid)).toList();
            }
            return candidates.stream().anyMatch(json -> uid.equals(
                    Serialization.unmarshal(json, GenericKubernetesResource.class).getMetadata().getUid()));
        }

        /** Removes one owner reference, as the garbage collector does, after the delete that ended that owner. */
        private void dropOwner(GenericKubernetesResource dependent, String uid) {
            java.util.concurrent.CompletableFuture.runAsync(() -> {
                var resource = client.genericKubernetesResources(dependent.getApiVersion(), dependent.getKind())
                        .inNamespace(dependent.getMetadata().getNamespace()).withName(dependent.getMetadata().getName());
                resource.edit(current -> {
                    current.getMetadata().getOwnerReferences().removeIf(ref -> uid.equals(ref.getUid()));
                    return current;
                });
            });
        }

        /** The namespaces the store holds, read again after a namespace was written. */
        private void refreshNamespaces() {
            Set<String> current = new java.util.HashSet<>();
            String list = stored(NAMESPACES);
            if (list != null) {
                Serialization.unmarshal(list, io.fabric8.kubernetes.api.model.NamespaceList.class).getItems()
                        .forEach(n -> current.add(n.getMetadata().getName()));
            }
            namespaces.retainAll(current);
            namespaces.addAll(current);
        }

        @Override
        public MockResponse handleCreate(RecordedRequest request) {
            if (AccessReviews.isReview(request.getPath())) {
                return accessReviews.answer(request, request.getUtf8Body());
            }
            if (isTrainJobPath(request.getPath()) && refusedCreates.getAndUpdate(n -> Math.max(n - 1, 0)) > 0) {
                return StatusAnswers.failure(refusedCreateCode, null, "refused by the sandbox (fault injection)");
            }
            return isTrainJobPath(request.getPath()) ? writeTrainJob(request, null, super::handleCreate)
                    : super.handleCreate(withRuntimeDefaults(request));
        }

        @Override
        public MockResponse handleUpdate(RecordedRequest request) {
            return isTrainJobPath(request.getPath())
                    ? writeTrainJob(request, stored(request.getPath().split("\\?")[0]), super::handleUpdate)
                    : super.handleUpdate(withRuntimeDefaults(request));
        }

        /**
         * A write of a runtime with its CRD's defaults applied (a replicated job's replicas and groupName, a numNodes),
         * as the API server stores and serves it; the runtime's schema is not enforced.
         */
        private RecordedRequest withRuntimeDefaults(RecordedRequest request) {
            ResourcePath resource = ResourcePath.of(request.getPath());
            CrdSchemaValidator schema = resource == null || resource.plural() == null
                    || !"trainer.kubeflow.org/v1alpha1".equals(resource.groupVersion()) ? null
                    : runtimeSchemas.get(resource.plural());
            return schema == null || request.getBody() == null ? request : withBody(request, schema.withDefaults(
                    new String(request.getBody().getBytes(), java.nio.charset.StandardCharsets.UTF_8)));
        }

        /**
         * A TrainJob patch is applied here and admitted as the update it makes, against the stored object (so the
         * CRD's schema and transition rules hold for patches too), then stored as that update. Like the API server
         * for a custom resource, a strategic merge patch is refused: CRDs have no patch strategies.
         */
        @Override
        public MockResponse handlePatch(RecordedRequest request) {
            String path = request.getPath();
            String type = String.valueOf(request.getHeader("Content-Type"));
            if (!isTrainJobPath(path) || path.contains("/status") || type.startsWith("application/apply-patch")) {
                return super.handlePatch(request);
            }
            if (type.startsWith("application/strategic-merge-patch+json")) {
                return StatusAnswers.failure(415, "UnsupportedMediaType", "the body of the request was in an unknown"
                        + " format - accepted media types include: application/json-patch+json, application/merge-patch+json,"
                        + " application/apply-patch+yaml");
            }
            String old = stored(path.split("\\?")[0]);
            if (old == null) {
                return super.handlePatch(request);
            }
            String patched;
            try {
                patched = ObjectPatches.apply(old, request.getUtf8Body(), type);
            } catch (IllegalArgumentException e) {
                return StatusAnswers.failure(422, "Invalid", "the patch could not be applied: " + e.getMessage());
            }
            return writeTrainJob(new RecordedRequest(request.getHttpVersion(),
                    io.fabric8.mockwebserver.dsl.HttpMethod.PUT, path, request.getHeaders(),
                    new Buffer().writeUtf8(patched)), old, super::handleUpdate);
        }

        @Override
        public MockResponse handleWatch(String path) {
            if (takeGoneAnswer(path)) {
                return StatusAnswers.failure(410, "Expired", "too old resource version (sandbox fault injection)");
            }
            return super.handleWatch(path);
        }

        /**
         * Shows a TrainJob write to the listeners, then refuses it with 422 as the CRD's schema or CEL rules would
         * (against {@code stored}, the object it updates, or null for a create), or lets {@code store} store what the
         * API server would store. (Stricter than a real server in one way: unknown
         * fields are refused, not pruned, so a setting cannot vanish unnoticed.)
         */
        private MockResponse writeTrainJob(RecordedRequest request, String stored,
                java.util.function.Function<RecordedRequest, MockResponse> store) {
            String body = request.getUtf8Body();
            trainJobWriteListeners.forEach(listener -> listener.accept(body));
            if (request.getPath().contains("/status")) {
                return store.apply(withBody(request, body));
            }
            CrdSchemaValidator.Admission admission = trainJobSchema.admit(body, stored);
            if (!admission.violations().isEmpty()) {
                return StatusAnswers.invalid("trainer.kubeflow.org", "TrainJob", trainJobName(body, request),
                        admission.violations());
            }
            return store.apply(withBody(request, admission.stored()));
        }

        /** The name a TrainJob write is about: its body's, else its path's (a patch names none in its body). */
        private String trainJobName(String body, RecordedRequest request) {
            try {
                String named = Serialization.jsonMapper().readTree(body).path("metadata").path("name").asText("");
                if (!named.isEmpty()) {
                    return named;
                }
            } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
                // not JSON: the path names it, if anything does
            }
            ResourcePath path = ResourcePath.of(request.getPath());
            return path.name() == null ? "" : path.name();
        }

        private RecordedRequest withBody(RecordedRequest request, String body) {
            return new RecordedRequest(request.getHttpVersion(), request.method(), request.getPath(),
                    request.getHeaders(), new Buffer().writeUtf8(body));
        }
    }
}
