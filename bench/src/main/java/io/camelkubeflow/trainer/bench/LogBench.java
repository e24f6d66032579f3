package io.camelkubeflow.trainer.bench;

import io.camelkubeflow.trainer.KubeflowTrainerComponent;
import io.camelkubeflow.trainer.KubeflowTrainerConstants;
import io.camelkubeflow.trainer.api.TrainJob;
import io.camelkubeflow.trainer.api.TrainJobPhase;
import io.camelkubeflow.trainer.sandbox.TrainerSandbox;
import io.camelkubeflow.trainer.sandbox.cluster.TrainJobControllerEmulation;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.LogWatch;
import io.vertx.core.http.HttpClosedException;
import java.io.BufferedReader;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.http.HttpClient;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.apache.camel.CamelContext;
import org.apache.camel.Exchange;
import org.apache.camel.builder.RouteBuilder;
import org.apache.camel.impl.DefaultCamelContext;

/**
 * Log reading: a finished job of {@value #NODES} nodes whose every node's trainer container holds a log of the same
 * size (on the sandbox, lines appended to its log store; on the real control plane, printed by a real process on a
 * real node and served by the node agent's log server through the API server's {@code pods/log} proxy), read in the
 * same run by each of these, counting the lines it got:
 * <ul>
 * <li>the component: a route ({@code kubeflow-trainer:logs}) sending the lines on in chunks of 1,000 lines to another
 * route that counts them;</li>
 * <li>the Kubeflow Python SDK's request pattern ({@code TrainerClient.get_job_logs}), with a plain fabric8 client:
 * its {@code get_job} (GET the TrainJob, GET the namespaced TrainingRuntime, GET the ClusterTrainingRuntime, LIST the
 * job's pods), then the log without timestamps: read whole and split into lines, or (follow) streamed line by line;
 * all ranks are one such call per step, one after the other, as the SDK reads one step per call;</li>
 * <li>a raw HTTP GET of each pod's log without timestamps (the component's query for a finished container's log,
 * followed or not) and with them (its query to follow a running one): the bytes counted, no lines made: the physical
 * limit;</li>
 * <li>with {@link PythonSdk}, the Kubeflow Python SDK's {@code get_job_logs} itself.</li>
 * </ul>
 * Each figure is the median of the rounds (5 in the bench's run) that interleave the readers, after each has read every
 * setting once.
 */
final class LogBench implements AutoCloseable {
    static final int NODES = 4;
    private static final String NAMESPACE = "logs";
    /** A way to read: its name and, per run, the bytes and lines it read. */
    record Reading(
            String reader,
            boolean follow,
            boolean allRanks,
            double megabytesPerSecond,
            double linesPerSecond,
            double megabytes,
            long lines) {}

    private final BenchTarget target;
    private final KubernetesClient componentClient;
    private final KubernetesClient sdkClient;
    private final HttpClient http;
    private final CamelContext camel = new DefaultCamelContext();
    private final AtomicLong linesSeen = new AtomicLong();
    private String jobName;
    private List<Pod> nodePods;
    /** Per node pod, the bytes and lines of its log without timestamps, as a raw GET counts them. */
    private final List<long[]> sizes = new ArrayList<>();

    /** The project's root: where bench/sdk is. */
    private final Path root;

    /** A sandbox whose controller runs a job at once: the log job need not wait. */
    static SandboxTarget sandbox() {
        return new SandboxTarget(TrainerSandbox.start(
                TrainerSandbox.Options.defaults().withController(Duration.ofMillis(10), Duration.ofMillis(100))));
    }

    LogBench(BenchTarget target, Path root) throws Exception {
        this.target = target;
        this.root = root;
        target.createNamespace(NAMESPACE);
        // as the Python client does (urllib3 retries a GET whose pooled connection was closed), fabric8's default
        // retries
        sdkClient = target.newClient(BenchTarget.SDK_PATTERN, true);
        componentClient = target.newClient(BenchTarget.COMPONENT, false);
        http = target.rawHttp();
        camel.getComponent("kubeflow-trainer", KubeflowTrainerComponent.class).setKubernetesClient(componentClient);
        camel.addRoutes(new RouteBuilder() {
            @Override
            public void configure() {
                from("direct:lines")
                        .process(e -> linesSeen.addAndGet(lines(e.getMessage().getBody(String.class))));
            }
        });
        camel.start();
    }

    /**
     * Runs a job of {@value #NODES} nodes to its end and gives each node's log {@code megabytes} MB: appended to the
     * sandbox's log store after the job ran, or printed by the job's own process on the real control plane.
     */
    void prepare(int megabytes) throws Exception {
        var template = camel.createProducerTemplate();
        String line = "step=%08d loss=0.%08d lr=0.0003 tokens/s=12345.6 grad_norm=1.234 "
                + "some more training output to make a realistic line";
        Exchange trained;
        if (target instanceof SandboxTarget) {
            trained = template.send(
                    "kubeflow-trainer:train?runtime=torch-distributed&namespace=" + NAMESPACE
                            + "&pythonFile=/app/train.py&numNodes=" + NODES,
                    e -> e.getMessage()
                            .setHeader(
                                    KubeflowTrainerConstants.ANNOTATIONS,
                                    Map.of(TrainJobControllerEmulation.LOG_LINES_ANNOTATION, "1")));
        } else {
            String program = "import sys\nline = '" + line + "\\n'\nwritten = n = 0\n"
                    + "while written < " + megabytes + " * 1024 * 1024:\n"
                    + "    text = line % (n, n)\n    sys.stdout.write(text)\n    written += len(text)\n    n += 1\n";
            // the real torch-distributed runtime on the real nodes; the command is passed through to python
            trained = template.send(
                    "kubeflow-trainer:train?runtime=torch-distributed&namespace=" + NAMESPACE + "&numNodes=" + NODES,
                    e -> e.getMessage().setHeader(KubeflowTrainerConstants.COMMAND, List.of("python3", "-c", program)));
        }
        if (trained.getException() != null) {
            throw trained.getException();
        }
        jobName = trained.getMessage().getHeader(KubeflowTrainerConstants.JOB_NAME, String.class);
        Exchange waited = template.send(
                "kubeflow-trainer:wait?waitTimeout=600s&namespace=" + NAMESPACE,
                e -> e.getMessage().setHeader(KubeflowTrainerConstants.JOB_NAME, jobName));
        if (waited.getException() != null) {
            throw waited.getException();
        }
        TrainJob job = sdkClient
                .resources(TrainJob.class)
                .inNamespace(NAMESPACE)
                .withName(jobName)
                .get();
        if (TrainJobPhase.of(job) != TrainJobPhase.COMPLETE) {
            throw new IllegalStateException("the log job did not complete");
        }
        nodePods = sdkClient
                .pods()
                .inNamespace(NAMESPACE)
                .withLabel(TrainJobControllerEmulation.JOBSET_NAME_LABEL, jobName)
                .list()
                .getItems()
                .stream()
                .filter(p -> "node".equals(p.getMetadata().getLabels().get("jobset.sigs.k8s.io/replicatedjob-name")))
                .sorted(Comparator.comparing(p ->
                        Integer.parseInt(p.getMetadata().getLabels().get("batch.kubernetes.io/job-completion-index"))))
                .toList();
        if (nodePods.size() != NODES) {
            throw new IllegalStateException(nodePods.size() + " node pods, not " + NODES);
        }
        for (Pod pod : nodePods) {
            if (target instanceof SandboxTarget sandbox) {
                long bytes = 0;
                for (long lines = 0; bytes < megabytes * 1024L * 1024L; lines++) {
                    String text = String.format(line, lines, lines);
                    sandbox.sandbox()
                            .podLogs()
                            .append(NAMESPACE, pod.getMetadata().getName(), text);
                    bytes += text.length() + 1;
                }
            }
            // the log also holds what the controller (or the launcher) wrote when the job ran
            sizes.add(raw(false, false, pod));
        }
    }

    /** Every reader, follow and not, node 0 and all ranks: the median of the rounds of each. */
    List<Reading> readAll(int roundCount) throws Exception {
        List<String> readers =
                new ArrayList<>(List.of("component", "SDK pattern", "raw GET, timestamps", "raw GET, no timestamps"));
        if (PythonSdk.available()) {
            readers.add(1, PythonSdk.NAME);
        }
        // warm-up, not counted: class loading, JIT, each client's connection; every setting, as each runs code of its
        // own (a follow of node 0 alone left the component's plain and all-ranks reads to be compiled while timed)
        for (boolean follow : new boolean[] {false, true}) {
            for (boolean all : new boolean[] {false, true}) {
                for (String reader : readers) {
                    read(reader, follow, all);
                }
            }
        }
        Map<String, List<Reading>> rounds = new LinkedHashMap<>();
        for (int round = 0; round < roundCount; round++) {
            for (boolean follow : new boolean[] {false, true}) {
                for (boolean all : new boolean[] {false, true}) {
                    for (String reader : readers) {
                        Reading reading = read(reader, follow, all);
                        rounds.computeIfAbsent(reader + follow + all, k -> new ArrayList<>())
                                .add(reading);
                    }
                }
            }
        }
        return rounds.values().stream()
                .map(r -> r.stream()
                        .sorted(Comparator.comparingDouble(Reading::megabytesPerSecond))
                        .toList()
                        .get(r.size() / 2))
                .toList();
    }

    private Reading read(String reader, boolean follow, boolean all) throws Exception {
        int pods = all ? NODES : 1;
        long expectedLines =
                sizes.stream().limit(pods).mapToLong(size -> size[1]).sum();
        long bytes = sizes.stream().limit(pods).mapToLong(size -> size[0]).sum();
        double seconds = Double.NaN;
        long started = System.nanoTime();
        long lines = switch (reader) {
            case "component" -> component(follow, all);
            case "SDK pattern" -> {
                long read = 0;
                for (int node = 0; node < pods; node++) {
                    read += sdkPattern(follow, node);
                }
                yield read;
            }
            case PythonSdk.NAME -> {
                double[] timed = pythonSdk(follow, pods);
                seconds = timed[0];
                yield (long) timed[1];
            }
            case "raw GET, timestamps", "raw GET, no timestamps" -> {
                long read = 0;
                for (int node = 0; node < pods; node++) {
                    read += raw(follow, reader.endsWith(", timestamps"), nodePods.get(node))[1];
                }
                yield read;
            }
            default -> throw new IllegalArgumentException(reader);
        };
        if (Double.isNaN(seconds)) {
            seconds = (System.nanoTime() - started) / 1e9;
        }
        if (lines != expectedLines) {
            throw new IllegalStateException(reader + " read " + lines + " lines, not " + expectedLines);
        }
        double megabytes = bytes / (1024.0 * 1024.0);
        return new Reading(reader, follow, all, megabytes / seconds, lines / seconds, megabytes, lines);
    }

    private long component(boolean follow, boolean all) throws Exception {
        linesSeen.set(0);
        Exchange read = camel.createProducerTemplate()
                .send(
                        "kubeflow-trainer:logs?namespace=" + NAMESPACE
                                + "&follow=" + follow + "&logStep=" + (all ? "all" : "trainer")
                                + "&logDestination=direct:lines&logChunkLines=1000&maxLogBytes=1048576",
                        e -> e.getMessage().setHeader(KubeflowTrainerConstants.JOB_NAME, jobName));
        if (read.getException() != null) {
            throw read.getException();
        }
        return linesSeen.get();
    }

    /** {@code TrainerClient.get_job_logs(name, follow, step="node-N")}: its requests, and lines as the SDK makes them. */
    private long sdkPattern(boolean follow, int node) throws Exception {
        // get_job: the TrainJob, its runtime, the job's pods for its steps
        Pod pod = reconnecting(() ->
                SdkRequests.getJob(sdkClient, NAMESPACE, jobName, "torch-distributed").pods().stream()
                        .filter(p -> p.getMetadata()
                                .getName()
                                .equals(nodePods.get(node).getMetadata().getName()))
                        .findFirst()
                        .orElseThrow());
        var log = sdkClient
                .pods()
                .inNamespace(NAMESPACE)
                .withName(pod.getMetadata().getName())
                .inContainer("node");
        if (!follow) {
            // read_namespaced_pod_log(...) then logs.splitlines()
            return log.getLog().lines().toList().size();
        }
        // watch.Watch().stream(read_namespaced_pod_log, follow=True): the lines as they come
        long lines = 0;
        try (LogWatch watch = log.watchLog();
                BufferedReader reader =
                        new BufferedReader(new InputStreamReader(watch.getOutput(), StandardCharsets.UTF_8))) {
            while (reader.readLine() != null) {
                lines++;
            }
        }
        return lines;
    }

    /**
     * {@code bench/sdk/sdk_logs.py}: the SDK's {@code get_job_logs}, one step after the other, timed by the script
     * itself after a warm-up read (so Python's start and imports are not counted): {seconds, lines}.
     */
    private double[] pythonSdk(boolean follow, int pods) throws Exception {
        List<String> steps = new ArrayList<>();
        for (int node = 0; node < pods; node++) {
            steps.add("node-" + node);
        }
        var result = PythonSdk.run(
                root, target, "sdk_logs.py", NAMESPACE, jobName, Boolean.toString(follow), String.join(",", steps));
        return new double[] {
            result.get("seconds").asDouble(), result.get("lines").asDouble()
        };
    }

    /**
     * The Python client (urllib3) sends a GET again when the pooled connection it used was closed before the answer.
     * Here that happens after a follow: closing fabric8's {@code LogWatch} cancels its ended response, which closes
     * the connection the client has pooled again, and the next request fails with an {@code HttpClosedException}
     * that fabric8's retries do not cover. (The component's own log stream cancels only a response still coming.)
     */
    private static <T> T reconnecting(Supplier<T> requests) {
        try {
            return requests.get();
        } catch (KubernetesClientException e) {
            if (!(e.getCause() instanceof HttpClosedException)) {
                throw e;
            }
            return requests.get();
        }
    }

    /** One GET of a pod's log, its bytes counted and its newlines the lines: {bytes, lines}. */
    private long[] raw(boolean follow, boolean timestamps, Pod pod) throws Exception {
        HttpResponse<InputStream> response = http.send(
                target.rawRequest("api/v1/namespaces/" + NAMESPACE + "/pods/"
                                + pod.getMetadata().getName() + "/log?container=node" + (follow ? "&follow=true" : "")
                                + (timestamps ? "&timestamps=true" : ""))
                        .build(),
                HttpResponse.BodyHandlers.ofInputStream());
        if (response.statusCode() != 200) {
            throw new IllegalStateException("the raw GET of the log answered " + response.statusCode());
        }
        long lines = 0;
        long bytes = 0;
        try (InputStream body = response.body()) {
            byte[] buffer = new byte[64 * 1024];
            int n;
            while ((n = body.read(buffer)) > 0) {
                bytes += n;
                for (int i = 0; i < n; i++) {
                    if (buffer[i] == '\n') {
                        lines++;
                    }
                }
            }
        }
        return new long[] {bytes, lines};
    }

    private static long lines(String chunk) {
        long lines = 1;
        for (int i = chunk.indexOf('\n'); i >= 0; i = chunk.indexOf('\n', i + 1)) {
            lines++;
        }
        return lines;
    }

    @Override
    public void close() throws Exception {
        camel.close();
        sdkClient.close();
        componentClient.close();
    }
}
