package io.camelkubeflow.trainer.sandbox;

import io.camelkubeflow.trainer.sandbox.cluster.TrainJobControllerEmulation;
import io.camelkubeflow.trainer.sandbox.http.ApiHttpServer;
import io.camelkubeflow.trainer.sandbox.http.PodLogs;
import io.camelkubeflow.trainer.sandbox.http.ServingCertificate;
import io.camelkubeflow.trainer.sandbox.store.AccessReviews;
import io.camelkubeflow.trainer.sandbox.store.Discovery;
import io.camelkubeflow.trainer.sandbox.store.ObservingCrudDispatcher;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.fabric8.mockwebserver.http.RecordedRequest;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Deque;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Consumer;
import javax.net.ssl.SSLContext;

/**
 * A local emulation of a Kubernetes API server with Kubeflow Trainer v2.3.0's CRDs and default
 * ClusterTrainingRuntimes installed, on loopback: fabric8's mock server's store behind an HTTP front
 * ({@link ApiHttpServer}) that answers as a kube-apiserver does, so kubectl, the Kubeflow Python SDK and any
 * client-go or fabric8 program accept it. It stores and serves objects (create, get, list, watch, patch, delete); with
 * {@link Options#withController} a {@link TrainJobControllerEmulation} also gives TrainJobs pods, Events and status as
 * the Trainer, JobSet and a kubelet would; no code runs except, with {@link Options#withScriptsRun}, a staged Python
 * script, with the local python3, one process per node ({@code StagedScriptRunner}). It records the requests it
 * receives (the latest {@value #MAX_RECORDED}) so tests and benchmarks can count them.
 */
public final class TrainerSandbox implements AutoCloseable {
    public static final String CRDS = "/kubeflow-trainer/crds/";
    public static final String RUNTIMES = "/kubeflow-trainer/runtimes/";
    /**
     * The runtimes the Trainer's release installs (its manifests/overlays/runtimes): the data cache's runtime
     * ({@link #DATA_CACHE_RUNTIME}) is not among them; a test that needs it creates it, as a user would.
     */
    public static final List<String> DEFAULT_RUNTIMES = List.of(
            "torch_distributed.yaml",
            "deepspeed_distributed.yaml",
            "mlx_distributed.yaml",
            "jax_distributed.yaml",
            "xgboost_distributed.yaml",
            "torchtune/llama3_2/llama3_2_1B.yaml",
            "torchtune/llama3_2/llama3_2_3B.yaml",
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

    private final ApiHttpServer http;
    /** What the API server serves TLS with, and what its clients trust. */
    private final ServingCertificate certificate;
    /** The API server's port, kept across restarts so clients reconnect to it. */
    private final int port;

    private final KubernetesClient client;
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
    public record Options(
            int port,
            boolean controller,
            Duration startDelay,
            Duration runTime,
            boolean runScripts,
            List<Path> manifests,
            List<String> namespaces) {
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
            return new Options(port, controller, startDelay, runTime, runScripts, newManifests, List.of(newNamespaces));
        }
    }

    /** The controller, once installed; guarded by this sandbox, which a close during the installation may take. */
    private TrainJobControllerEmulation controller;

    private boolean closed;
    /** Whether the API server is stopped ({@link #stopApiServer}): the controller's writes under way cannot finish. */
    private boolean apiServerStopped;

    private final PodLogs podLogs = new PodLogs();
    private final ObservingCrudDispatcher dispatcher = new ObservingCrudDispatcher(podLogs::end, this::client);
    private final TrainerInstallation installation = new TrainerInstallation(dispatcher);
    private final Discovery discovery = dispatcher.discovery();
    /** The Trainer installed: until then, requests wait. */
    private final CompletableFuture<Void> installed = new CompletableFuture<>();
    /** Installed, and the controller (when asked for) watching. */
    private final CompletableFuture<Void> started = new CompletableFuture<>();
    /** The API server listens and the client is made: what the installation needs after the store's objects. */
    private final CompletableFuture<Void> listening = new CompletableFuture<>();

    private final AccessReviews accessReviews = dispatcher.accessReviews();
    /**
     * The token of the cluster's admin ({@code system:masters}), which the sandbox's own client and the kubeconfig it
     * writes carry: the API server answers no request without a token it issued.
     */
    private final String adminToken = accessReviews.issueToken(ADMIN_USER, List.of("system:masters"));

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
            http = new ApiHttpServer(
                    dispatcher, discovery, podLogs, this::record, accessReviews::isIssued, certificate, installed);
            this.port = http.listen(options.port());
            client = new KubernetesClientBuilder()
                    .withConfig(new ConfigBuilder(Config.empty())
                            .withMasterUrl("https://" + ApiHttpServer.LOOPBACK_HOST + ":" + this.port + "/")
                            .withCaCertData(certificateAuthorityData())
                            .withOauthToken(adminToken)
                            .withNamespace("test")
                            .withHttp2Disable(true)
                            .build())
                    .build();
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
        } catch (CompletionException e) {
            throw e.getCause() instanceof RuntimeException failure ? failure : e;
        }
    }

    /**
     * What a cluster with the Trainer installed has before anyone uses it (the CRDs, the default runtimes, the system
     * namespaces and the Trainer's public ConfigMap), then the objects and namespaces of the options, written into the
     * store by {@link TrainerInstallation}; then the controller, when asked for.
     */
    private void install(Options options) {
        try {
            installation.installTrainer();
            listening.join();
            for (Path manifest : options.manifests()) {
                installation.installManifest(client, manifest);
            }
            options.namespaces().forEach(installation::installNamespace);
            installed.complete(null);
            synchronized (this) {
                if (options.controller() && !closed) {
                    controller = new TrainJobControllerEmulation(
                            client, podLogs, options.startDelay(), options.runTime(), options.runScripts());
                }
            }
            started.complete(null);
        } catch (RuntimeException | Error e) {
            installed.completeExceptionally(e);
            started.completeExceptionally(e);
        }
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
        return Base64.getEncoder().encodeToString(certificate.pem().getBytes(StandardCharsets.US_ASCII));
    }

    /**
     * A TLS context that trusts this sandbox's certificate alone (the API server serves https with a certificate made
     * at start), for an HTTP client made by hand; it then needs the admin's token too:
     * {@code client().getConfiguration().getOauthToken()}.
     */
    public SSLContext sslContext() {
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
                """.formatted(
                        KUBECONFIG_CONTEXT,
                        masterUrl().replaceAll("/$", ""),
                        adminToken,
                        certificateAuthorityData(),
                        namespace);
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
        FileAttribute<?>[] ownerOnly =
                absolute.getFileSystem().supportedFileAttributeViews().contains("posix")
                        ? new FileAttribute<?>[] {
                            PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------"))
                        }
                        : new FileAttribute<?>[0];
        try (var file = Files.newByteChannel(
                absolute, EnumSet.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE), ownerOnly)) {
            file.write(ByteBuffer.wrap(text.getBytes(StandardCharsets.UTF_8)));
        }
        return absolute;
    }

    /**
     * Creates each namespace that does not exist yet, as {@code kubectl create namespace} would: objects can be
     * created only in namespaces that exist.
     */
    public void createNamespace(String... names) {
        for (String name : names) {
            if (!dispatcher.namespaceExists(name)) {
                client.namespaces()
                        .resource(TrainerInstallation.namespace(name))
                        .create();
            }
        }
    }

    /** Creates a ClusterTrainingRuntime or (namespaced) TrainingRuntime. */
    public void createRuntime(GenericKubernetesResource runtime) {
        boolean namespaced = "TrainingRuntime".equals(runtime.getKind());
        ResourceDefinitionContext context = new ResourceDefinitionContext.Builder()
                .withGroup("trainer.kubeflow.org")
                .withVersion("v1alpha1")
                .withKind(runtime.getKind())
                .withPlural(namespaced ? "trainingruntimes" : "clustertrainingruntimes")
                .withNamespaced(namespaced)
                .build();
        if (namespaced) {
            client.genericKubernetesResources(context)
                    .inNamespace(runtime.getMetadata().getNamespace())
                    .resource(runtime)
                    .create();
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
        return dispatcher.watchFaults().dropWatches();
    }

    /**
     * Sends every open watch the ERROR event with a {@code 410 Gone} status that an API server sends when the watched
     * resourceVersion has expired: clients must re-list. Returns how many watches were told.
     */
    public int expireWatches() {
        return dispatcher.watchFaults().expireWatches();
    }

    /**
     * Answers the next {@code count} watch requests whose path contains {@code pathPart} with {@code 410 Gone}, as an
     * API server does when asked to resume from a resourceVersion it no longer has: clients must re-list.
     */
    public void answerNextWatchesWithGone(String pathPart, int count) {
        dispatcher.watchFaults().answerNextWatchesWithGone(pathPart, count);
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
        apiServerStopped = true;
    }

    /** Starts a stopped API server again on its port, with the objects it held. */
    public synchronized void startApiServer() {
        http.listen(port);
        apiServerStopped = false;
    }

    /**
     * Refuses the next {@code count} TrainJob creates with {@code code} (403 as the Trainer webhook would deny, 422,
     * 500, ...), before anything is stored.
     */
    public void refuseNextTrainJobCreates(int count, int code) {
        dispatcher.admission().refuseNextTrainJobCreates(count, code);
    }

    /** Calls {@code listener} with the JSON body of every TrainJob create or replace, before it is stored. */
    public void onTrainJobWrite(Consumer<String> listener) {
        dispatcher.admission().onTrainJobWrite(listener);
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
                if (apiServerStopped) {
                    controller.closeNow();
                } else {
                    controller.close();
                }
            }
        }
        client.close();
        http.close();
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
}
