package io.camelkubeflow.trainer.bench;

import io.camelkubeflow.trainer.KubeflowTrainerComponent;
import io.camelkubeflow.trainer.KubeflowTrainerConstants;
import io.camelkubeflow.trainer.api.TrainJob;
import io.camelkubeflow.trainer.api.TrainJobPhase;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
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
 * Waits on the real control plane: N TrainJobs are created suspended, N waits start (the component's, the Kubeflow
 * SDK's own {@code wait_for_job_status}, or its requests from Java), then every job is resumed and the real Trainer,
 * JobSet, Job controller and scheduler run it to Complete on the fake nodes. Each notice is timed against a plain
 * informer of the same API server (when a client that only watches learns the job is Complete: the physical limit),
 * so what is measured is each waiter's own lag; requests are counted in the API server's audit log by User-Agent.
 */
final class ClusterWaitBench implements AutoCloseable {
    private final BenchTarget target;
    private final Path root;
    private final KubernetesClient componentClient;
    private final KubernetesClient sdkClient;
    private final CamelContext camel = new DefaultCamelContext();
    private final AsyncProducer waitRoute;
    private volatile Map<String, Double> componentNotices;
    private int runs;

    /** One way of waiting on N jobs: each job's lag behind the reference, and the requests it took per wait. */
    record Run(String waiter, int waits, Percentiles lag, double requestsPerWait) {}

    ClusterWaitBench(BenchTarget target, Path root) throws Exception {
        this.target = target;
        this.root = root;
        componentClient = target.newClient(BenchTarget.COMPONENT, false);
        sdkClient = target.newClient(BenchTarget.SDK_PATTERN, true);
        camel.getComponent("kubeflow-trainer", KubeflowTrainerComponent.class).setKubernetesClient(componentClient);
        camel.addRoutes(new RouteBuilder() {
            @Override
            public void configure() {
                from("direct:wait")
                        .to("kubeflow-trainer:wait?waitTimeout=3600s")
                        .process(e -> componentNotices.put(
                                CompletionReference.key(
                                        e.getMessage().getHeader(KubeflowTrainerConstants.NAMESPACE, String.class),
                                        e.getMessage().getHeader(KubeflowTrainerConstants.JOB_NAME, String.class)),
                                CompletionReference.now()));
            }
        });
        camel.start();
        waitRoute = camel.getEndpoint("direct:wait").createAsyncProducer();
        waitRoute.start();
    }

    /** The component: one exchange per job through {@code kubeflow-trainer:wait}, none holding a thread. */
    Run component(int waits) throws Exception {
        componentNotices = new ConcurrentHashMap<>();
        return run(
                "component",
                waits,
                (namespace, names, resume) -> {
                    for (String name : names) {
                        Exchange exchange = new DefaultExchange(camel);
                        exchange.getMessage().setHeader(KubeflowTrainerConstants.JOB_NAME, name);
                        exchange.getMessage().setHeader(KubeflowTrainerConstants.NAMESPACE, namespace);
                        waitRoute.process(exchange, doneSync -> {});
                    }
                    resume.run();
                    return componentNotices;
                },
                BenchTarget.COMPONENT);
    }

    /** The SDK's requests from Java: its get_job every 2 s per job from a random phase, on 32 threads. */
    Run sdkPattern(int waits) throws Exception {
        Map<String, Double> seen = new ConcurrentHashMap<>();
        ScheduledExecutorService pollers = Executors.newScheduledThreadPool(32);
        try {
            return run(
                    "SDK request pattern",
                    waits,
                    (namespace, names, resume) -> {
                        for (String name : names) {
                            ScheduledFuture<?>[] self = new ScheduledFuture<?>[1];
                            self[0] = pollers.scheduleAtFixedRate(
                                    () -> {
                                        TrainJob job;
                                        try {
                                            job = SdkRequests.getJob(sdkClient, namespace, name, target.runtime())
                                                    .trainJob();
                                        } catch (RuntimeException failed) {
                                            // as the SDK's loop, which a failed poll would end: said, and polled again
                                            // next time
                                            Benchmarks.progress(
                                                    "SDK request pattern: a poll of " + name + " failed: " + failed);
                                            return;
                                        }
                                        if (TrainJobPhase.of(job) == TrainJobPhase.COMPLETE
                                                && seen.putIfAbsent(
                                                                CompletionReference.key(namespace, name),
                                                                CompletionReference.now())
                                                        == null) {
                                            self[0].cancel(false);
                                        }
                                    },
                                    ThreadLocalRandom.current().nextLong(WaitBench.POLL_MILLIS),
                                    WaitBench.POLL_MILLIS,
                                    TimeUnit.MILLISECONDS);
                        }
                        resume.run();
                        return seen;
                    },
                    BenchTarget.SDK_PATTERN);
        } finally {
            pollers.shutdownNow();
        }
    }

    /** The Kubeflow SDK itself: {@code bench/sdk/sdk_waits.py}, a thread per job in wait_for_job_status. */
    Run pythonSdk(int waits) throws Exception {
        return run(
                PythonSdk.NAME,
                waits,
                (namespace, jobs, resume) -> {
                    Path names = Files.createTempFile("bench-waits-", ".txt");
                    try {
                        Files.write(names, jobs);
                        var result = PythonSdk.run(
                                root,
                                target,
                                "sdk_waits.py",
                                line -> {
                                    if (line.equals("waiting")) {
                                        resume.run();
                                    }
                                },
                                namespace,
                                names.toString());
                        Map<String, Double> ended = new ConcurrentHashMap<>();
                        result.get("ended")
                                .properties()
                                .forEach(e -> ended.put(
                                        CompletionReference.key(namespace, e.getKey()),
                                        e.getValue().asDouble() * 1000));
                        return ended;
                    } finally {
                        Files.delete(names);
                    }
                },
                BenchTarget.PYTHON_SDK);
    }

    /**
     * A way of waiting: it starts a wait on each job, runs {@code resume} once they all wait, and answers each job's
     * notice time (epoch ms), filled in as the waits return.
     */
    private interface Waiter {
        Map<String, Double> await(String namespace, List<String> names, Runnable resume) throws Exception;
    }

    private Run run(String name, int waits, Waiter waiter, String userAgent) throws Exception {
        String namespace = "waits-" + (++runs);
        target.createNamespace(namespace);
        List<String> names = HarnessJobs.create(target.harness(), namespace, target.runtime(), waits, true).stream()
                .map(job -> job.getMetadata().getName())
                .toList();
        CompletionReference reference = new CompletionReference(target.harness(), namespace::equals);
        try {
            long mark = target.requestMark();
            Map<String, Double> noticed = waiter.await(namespace, names, () -> resume(namespace, names));
            if (!reference.await(
                    waits,
                    Duration.ofMinutes(30),
                    count -> Benchmarks.progress(name + ": " + count + " of " + waits + " Complete"))) {
                throw new IllegalStateException(
                        name + ": " + reference.complete().size() + " of " + waits + " jobs completed");
            }
            // the last notices of an asynchronous waiter come a moment after the reference's
            long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(5);
            while (noticed.size() < waits && System.nanoTime() < deadline) {
                Thread.sleep(100);
            }
            if (noticed.size() < waits) {
                throw new IllegalStateException(name + ": " + (waits - noticed.size()) + " waits never returned");
            }
            return new Run(
                    name, waits, reference.lagOf(noticed), target.requestsSince(mark, userAgent) / (double) waits);
        } finally {
            reference.close();
            target.deleteNamespaces(List.of(namespace));
        }
    }

    private void resume(String namespace, List<String> names) {
        try {
            HarnessJobs.onThreads(
                    names.size(),
                    i -> () -> target.harness()
                            .resources(TrainJob.class)
                            .inNamespace(namespace)
                            .withName(names.get(i))
                            .patch(PatchContext.of(PatchType.JSON_MERGE), "{\"spec\":{\"suspend\":false}}"));
        } catch (Exception e) {
            throw new IllegalStateException("resuming the jobs", e);
        }
    }

    @Override
    public void close() throws Exception {
        waitRoute.stop();
        camel.close();
        componentClient.close();
        sdkClient.close();
    }
}
