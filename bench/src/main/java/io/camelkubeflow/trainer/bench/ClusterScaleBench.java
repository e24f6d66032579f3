package io.camelkubeflow.trainer.bench;

import io.camelkubeflow.trainer.KubeflowTrainerComponent;
import io.camelkubeflow.trainer.KubeflowTrainerConstants;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.camel.AsyncProducer;
import org.apache.camel.CamelContext;
import org.apache.camel.Exchange;
import org.apache.camel.ProducerTemplate;
import org.apache.camel.builder.RouteBuilder;
import org.apache.camel.impl.DefaultCamelContext;

/**
 * The component at scale on the real control plane (testcluster/up.sh with fake nodes): TrainJobs spread over many
 * namespaces, each created through {@code kubeflow-trainer:train} on the runtime that sends pods to the fake nodes,
 * run by the real Trainer, JobSet, Job controller and scheduler, and completed by the node agent's fake nodes, at most a
 * set number of them unfinished at a time. One events consumer over all namespaces and one wait per job follow them.
 * Each notice is measured against a plain informer of the same API server (the reference: when a client that only
 * watches learns that the job is Complete), so what is timed is the component's own lag, not the cluster's speed; the
 * heap is this JVM's after a collection at the end, when the events consumer's cache holds every job (it holds the
 * app's side only), once with the harness's own maps of each job's notice times and once without them (the
 * component's, Camel's and the JVM's own); its threads, but the harness's own, the most of samples every 5 s.
 * Beside them, the Trainer's own pace: its writes to the API server per second (from the audit log) and TrainJobs
 * completed per second.
 */
final class ClusterScaleBench implements AutoCloseable {
    private final TestClusterTarget target;
    private final KubernetesClient client;
    private final CamelContext camel;
    private final ProducerTemplate template;
    private final AsyncProducer waitRoute;
    private final Map<String, Double> eventNotice = new ConcurrentHashMap<>();
    private final Map<String, Double> waitNotice = new ConcurrentHashMap<>();
    /** Creates of this run that failed: their jobs never complete (the run's Complete row shows them missing). */
    private final AtomicInteger failedCreates = new AtomicInteger();

    record Run(
            int jobs,
            int completed,
            Duration allComplete,
            int eventsNoticed,
            int waitsNoticed,
            Percentiles eventLag,
            Percentiles waitLag,
            double heapMiB,
            double componentHeapMiB,
            int threads,
            double trainerWritesPerSecond) {
        double completedPerSecond() {
            return completed / (allComplete.toMillis() / 1000.0);
        }
    }

    ClusterScaleBench(TestClusterTarget target) throws Exception {
        this.target = target;
        client = target.newClient(BenchTarget.COMPONENT, true);
        camel = new DefaultCamelContext();
        camel.getComponent("kubeflow-trainer", KubeflowTrainerComponent.class).setKubernetesClient(client);
        camel.addRoutes(new RouteBuilder() {
            @Override
            public void configure() {
                from("kubeflow-trainer:events?allNamespaces=true")
                        .filter(header(KubeflowTrainerConstants.STATUS).isEqualTo("Complete"))
                        .process(e -> eventNotice.putIfAbsent(key(e), CompletionReference.now()));
            }
        });
        camel.start();
        template = camel.createProducerTemplate();
        waitRoute = camel.getEndpoint("kubeflow-trainer:wait?waitFor=Complete&waitTimeout=5400s")
                .createAsyncProducer();
        waitRoute.start();
    }

    private static String key(Exchange e) {
        return CompletionReference.key(
                e.getMessage().getHeader(KubeflowTrainerConstants.NAMESPACE, String.class),
                e.getMessage().getHeader(KubeflowTrainerConstants.JOB_NAME, String.class));
    }

    /**
     * Creates {@code jobs} TrainJobs, at most {@code running} of them not yet Complete at a time, as a load generator
     * paces a cluster (the Trainer's queue is served by one worker, so a burst of thousands only measures its back-off,
     * see BENCHMARKS.md); every job stays until the end, so the events consumer's cache holds them all.
     *
     * @param limit how long the whole run may take (the waits time out after 90 minutes)
     */
    Run run(int namespaces, int jobs, int threads, int running, Duration limit) throws Exception {
        eventNotice.clear();
        waitNotice.clear();
        failedCreates.set(0);
        List<String> names = new ArrayList<>();
        String run = "scale-" + jobs + "-";
        for (int i = 0; i < namespaces; i++) {
            String namespace = run + i;
            names.add(namespace);
            target.createNamespace(namespace);
        }
        for (String namespace : names) {
            while (target.harness()
                            .serviceAccounts()
                            .inNamespace(namespace)
                            .withName("default")
                            .get()
                    == null) {
                Thread.sleep(100);
            }
        }
        CompletionReference reference =
                new CompletionReference(target.harness(), namespace -> namespace.startsWith(run));
        long mark = target.requestMark();
        long started = System.nanoTime();
        long deadline = started + limit.toNanos();
        // the harness's own threads are named bench-*: the figure is the component's and Camel's
        AtomicInteger peakThreads = new AtomicInteger();
        ScheduledExecutorService sampler = Executors.newSingleThreadScheduledExecutor(named("bench-sampler-"));
        sampler.scheduleWithFixedDelay(
                () -> peakThreads.accumulateAndGet(threadsButTheBenchs(), Math::max), 0, 5, TimeUnit.SECONDS);
        ExecutorService creators = Executors.newFixedThreadPool(threads, named("bench-creator-"));
        try {
            for (int i = 0; i < jobs; i++) {
                int next = i;
                // a job may start once fewer than `running` of those started are unfinished (a create that failed
                // never starts its job)
                if (!reference.awaitEnded(
                        () -> next - running + 1 - failedCreates.get(),
                        Duration.ofNanos(deadline - System.nanoTime()),
                        count -> Benchmarks.progress("scale: " + count + " of " + jobs + " ended"))) {
                    break;
                }
                if (i % 1000 == 0) {
                    Benchmarks.progress("scale: " + i + " of " + jobs + " created, "
                            + reference.complete().size() + " Complete");
                }
                String namespace = names.get(i % namespaces);
                creators.execute(() -> createAndWait(namespace, reference));
            }
            creators.shutdown();
            creators.awaitTermination(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            reference.awaitEnded(
                    () -> jobs - failedCreates.get(),
                    Duration.ofNanos(Math.max(0, deadline - System.nanoTime())),
                    count -> Benchmarks.progress("scale: " + count + " of " + jobs + " ended"));
        } finally {
            creators.shutdownNow();
            sampler.shutdownNow();
        }
        Duration all = Duration.ofNanos(System.nanoTime() - started);
        // the last notices come a moment after the reference's: up to 5 s for them
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while ((eventNotice.size() < reference.complete().size()
                        || waitNotice.size() < reference.complete().size())
                && System.nanoTime() < until) {
            Thread.sleep(50);
        }
        int completed = reference.complete().size();
        Percentiles eventLag = reference.lagOf(eventNotice);
        Percentiles waitLag = reference.lagOf(waitNotice);
        int eventsNoticed = eventNotice.size();
        int waitsNoticed = waitNotice.size();
        // the reference's own cache (every job once more) goes before the heap is measured
        reference.close();
        // every job is still there, the events consumer's cache holds them all, and nothing is timed any more: a
        // collection here measures what stays (one forced during the run would pause what is timed)
        double heapMiB = WaitBench.usedHeapAfterGc() / (1024.0 * 1024.0);
        // then the harness's own maps of each job's notice times go too: what stays is the component's, Camel's and
        // the JVM's
        eventNotice.clear();
        waitNotice.clear();
        reference.forget();
        double componentHeapMiB = WaitBench.usedHeapAfterGc() / (1024.0 * 1024.0);
        double trainerWrites =
                target.writesSince(mark, TestClusterTarget.TRAINER) / ((System.nanoTime() - started) / 1e9);
        // the next run starts on an empty cluster: its jobs, JobSets, Jobs and pods gone
        target.deleteNamespaces(names);
        return new Run(
                jobs,
                completed,
                all,
                eventsNoticed,
                waitsNoticed,
                eventLag,
                waitLag,
                heapMiB,
                componentHeapMiB,
                peakThreads.get(),
                trainerWrites);
    }

    private void createAndWait(String namespace, CompletionReference reference) {
        Exchange trained = template.request(
                "kubeflow-trainer:train?runtime=" + target.runtime() + "&command=true&namespace=" + namespace,
                e -> e.getMessage().setBody(null));
        if (trained.getException() != null) {
            failedCreates.incrementAndGet();
            // the pacing loop may wait for this job: it never comes
            reference.wake();
            System.err.println("create failed: " + trained.getException());
            return;
        }
        String key = key(trained);
        // asynchronously, as a route's wait step runs: no thread is held while the job runs
        Exchange waiting = trained.copy();
        waitRoute.process(waiting, doneSync -> {
            if (waiting.getException() == null) {
                waitNotice.putIfAbsent(key, CompletionReference.now());
            }
        });
    }

    private static ThreadFactory named(String prefix) {
        AtomicInteger count = new AtomicInteger();
        return work -> new Thread(work, prefix + count.incrementAndGet());
    }

    /** This JVM's live threads but the harness's own (named bench-*). */
    private static int threadsButTheBenchs() {
        var threads = ManagementFactory.getThreadMXBean();
        return (int) Arrays.stream(threads.getThreadInfo(threads.getAllThreadIds()))
                .filter(Objects::nonNull)
                .filter(info -> !info.getThreadName().startsWith("bench-"))
                .count();
    }

    @Override
    public void close() {
        camel.stop();
        client.close();
    }
}
