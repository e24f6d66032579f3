package io.camelkubeflow.trainer.bench;

import io.camelkubeflow.trainer.KubeflowTrainerComponent;
import io.camelkubeflow.trainer.KubeflowTrainerConstants;
import io.camelkubeflow.trainer.api.TrainJob;
import io.camelkubeflow.trainer.api.TrainJobPhase;
import io.camelkubeflow.trainer.api.TrainJobStatus;
import io.camelkubeflow.trainer.sandbox.TrainerSandbox;
import io.fabric8.kubernetes.api.model.ConditionBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.lang.management.ManagementFactory;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.apache.camel.AsyncProducer;
import org.apache.camel.CamelContext;
import org.apache.camel.Exchange;
import org.apache.camel.builder.RouteBuilder;
import org.apache.camel.impl.DefaultCamelContext;
import org.apache.camel.support.DefaultExchange;

/**
 * Completion detection: N TrainJobs wait in a route ({@code direct:wait -> kubeflow-trainer:wait -> record}); after a
 * hold time the harness writes each job's Complete condition, and the latency is from the start of that write to the
 * moment the route's next step runs. The baseline does what the Kubeflow Python SDK's wait does: every 2 s, per job,
 * from a random phase, its get_job: GET the TrainJob, GET the namespaced TrainingRuntime (404), GET the
 * ClusterTrainingRuntime, LIST the job's pods. Requests are counted on the API server (the harness's own
 * status writes excluded), connections on its port.
 */
final class WaitBench implements AutoCloseable {
    static final long POLL_MILLIS = 2000;
    private static final String RUNTIME = "torch-distributed";

    private final TrainerSandbox sandbox = TrainerSandbox.start();
    private final KubernetesClient componentClient = newClient();
    private final KubernetesClient pollingClient = newClient();
    private final CamelContext camel = new DefaultCamelContext();
    private final AsyncProducer waitRoute;
    private volatile Map<String, Long> continued;
    private volatile CountDownLatch remaining;
    private int namespaces;

    WaitBench() throws Exception {
        componentClient.getConfiguration().setRequestRetryBackoffLimit(0);
        camel.getComponent("kubeflow-trainer", KubeflowTrainerComponent.class).setKubernetesClient(componentClient);
        camel.addRoutes(new RouteBuilder() {
            @Override
            public void configure() {
                from("direct:wait").to("kubeflow-trainer:wait?waitTimeout=600s").process(e -> {
                    continued.put(
                            e.getMessage().getHeader(KubeflowTrainerConstants.JOB_NAME, String.class),
                            System.nanoTime());
                    remaining.countDown();
                });
            }
        });
        camel.start();
        waitRoute = camel.getEndpoint("direct:wait").createAsyncProducer();
        waitRoute.start();
    }

    private KubernetesClient newClient() {
        return new KubernetesClientBuilder()
                .withConfig(sandbox.client().getConfiguration())
                .build();
    }

    /** The figures of one run: detection latencies, requests and peak connections per strategy. */
    record Run(
            String strategy,
            int waits,
            long holdMillis,
            Percentiles latency,
            double requestsPerWait,
            long watchRequests,
            int peakConnections,
            double heapBytesPerWait) {}

    Run watch(int waits, long holdMillis, boolean measureHeap) throws Exception {
        return watch(waits, 1, holdMillis, measureHeap);
    }

    /** {@code waits} waits spread evenly over {@code namespaceCount} namespaces. */
    Run watch(int waits, int namespaceCount, long holdMillis, boolean measureHeap) throws Exception {
        List<TrainJob> jobs = new ArrayList<>();
        int run = ++namespaces;
        for (int n = 0; n < namespaceCount; n++) {
            int share = waits / namespaceCount + (n < waits % namespaceCount ? 1 : 0);
            jobs.addAll(createJobs("watch-" + run + (namespaceCount > 1 ? "-" + n : ""), share));
        }
        continued = new ConcurrentHashMap<>();
        remaining = new CountDownLatch(waits);
        long heapBefore = measureHeap ? usedHeapAfterGc() : 0;
        long requestsBefore = sandbox.requestCount();
        Map<String, Long> written;
        int peak;
        try (ConnectionSampler connections = new ConnectionSampler(port())) {
            for (TrainJob job : jobs) {
                Exchange exchange = new DefaultExchange(camel);
                exchange.getMessage()
                        .setHeader(
                                KubeflowTrainerConstants.JOB_NAME,
                                job.getMetadata().getName());
                exchange.getMessage()
                        .setHeader(
                                KubeflowTrainerConstants.NAMESPACE,
                                job.getMetadata().getNamespace());
                waitRoute.process(exchange, doneSync -> {});
            }
            Thread.sleep(holdMillis);
            double heapPerWait = measureHeap ? (usedHeapAfterGc() - heapBefore) / (double) waits : Double.NaN;
            written = completeAll(jobs);
            if (!remaining.await(120, TimeUnit.SECONDS)) {
                throw new IllegalStateException(remaining.getCount() + " waits never continued");
            }
            peak = connections.peakAdded();
            long requests = sandbox.requestCount() - requestsBefore - waits;
            long watches = sandbox.requestsSince(requestsBefore).stream()
                    .filter(r -> r.getPath().contains("watch=true"))
                    .count();
            return new Run(
                    "watch (component)",
                    waits,
                    holdMillis,
                    latencies(written, continued),
                    requests / (double) waits,
                    watches,
                    peak,
                    heapPerWait);
        }
    }

    Run polling(int waits, long holdMillis) throws Exception {
        String namespace = "poll-" + (++namespaces);
        List<TrainJob> jobs = createJobs(namespace, waits);
        Map<String, Long> seen = new ConcurrentHashMap<>();
        CountDownLatch ended = new CountDownLatch(waits);
        ScheduledExecutorService pollers = Executors.newScheduledThreadPool(32);
        long requestsBefore = sandbox.requestCount();
        try (ConnectionSampler connections = new ConnectionSampler(port())) {
            for (TrainJob job : jobs) {
                String name = job.getMetadata().getName();
                ScheduledFuture<?>[] self = new ScheduledFuture<?>[1];
                self[0] = pollers.scheduleAtFixedRate(
                        () -> {
                            if (seen.containsKey(name)) {
                                return;
                            }
                            // the SDK's wait_for_job_status polls get_job
                            TrainJob current = SdkRequests.getJob(pollingClient, namespace, name, RUNTIME)
                                    .trainJob();
                            if (TrainJobPhase.of(current).isTerminal()
                                    && seen.putIfAbsent(name, System.nanoTime()) == null) {
                                ended.countDown();
                                self[0].cancel(false);
                            }
                        },
                        ThreadLocalRandom.current().nextLong(POLL_MILLIS),
                        POLL_MILLIS,
                        TimeUnit.MILLISECONDS);
            }
            Thread.sleep(holdMillis);
            Map<String, Long> written = completeAll(jobs);
            if (!ended.await(120, TimeUnit.SECONDS)) {
                throw new IllegalStateException(ended.getCount() + " polled waits never ended");
            }
            long requests = sandbox.requestCount() - requestsBefore - waits;
            return new Run(
                    "polling every 2 s (SDK-style)",
                    waits,
                    holdMillis,
                    latencies(written, seen),
                    requests / (double) waits,
                    0,
                    connections.peakAdded(),
                    Double.NaN);
        } finally {
            pollers.shutdownNow();
        }
    }

    /** Writes each job's Complete condition (one PUT of the status each); answers when each write started. */
    private Map<String, Long> completeAll(List<TrainJob> jobs) {
        Map<String, Long> written = new ConcurrentHashMap<>();
        for (TrainJob job : jobs) {
            job.setStatus(new TrainJobStatus(
                    List.of(new ConditionBuilder()
                            .withType("Complete")
                            .withStatus("True")
                            .withReason("AllJobsCompleted")
                            .withMessage("jobset completed successfully")
                            .withLastTransitionTime(Instant.now().toString())
                            .build()),
                    null,
                    null));
            written.put(job.getMetadata().getName(), System.nanoTime());
            sandbox.client()
                    .resources(TrainJob.class)
                    .inNamespace(job.getMetadata().getNamespace())
                    .resource(job)
                    .updateStatus();
        }
        return written;
    }

    private List<TrainJob> createJobs(String namespace, int count) throws Exception {
        sandbox.createNamespace(namespace);
        return HarnessJobs.create(sandbox.client(), namespace, RUNTIME, count, false);
    }

    private static Percentiles latencies(Map<String, Long> written, Map<String, Long> detected) {
        List<Double> millis = new ArrayList<>();
        written.forEach((name, at) -> millis.add((detected.get(name) - at) / 1e6));
        return Percentiles.of(millis);
    }

    private int port() {
        return sandbox.client().getMasterUrl().getPort();
    }

    static long usedHeapAfterGc() throws InterruptedException {
        for (int i = 0; i < 3; i++) {
            System.gc();
            Thread.sleep(100);
        }
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }

    @Override
    public void close() throws Exception {
        waitRoute.stop();
        camel.close();
        componentClient.close();
        pollingClient.close();
        sandbox.close();
    }
}
