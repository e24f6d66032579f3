package io.camelkubeflow.trainer.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import io.camelkubeflow.trainer.KubeflowTrainerComponent;
import io.camelkubeflow.trainer.KubeflowTrainerConstants;
import io.camelkubeflow.trainer.api.TrainJob;
import io.camelkubeflow.trainer.api.TrainJobPhase;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import org.apache.camel.AsyncProducer;
import org.apache.camel.CamelContext;
import org.apache.camel.Exchange;
import org.apache.camel.ProducerTemplate;
import org.apache.camel.builder.RouteBuilder;
import org.apache.camel.impl.DefaultCamelContext;

/**
 * The component at scale on the real control plane (testcluster/up.sh with fake nodes): TrainJobs spread over many
 * namespaces, each created through {@code kubeflow-trainer:train}, run by the real Trainer, JobSet, Job controller and
 * scheduler, and completed by the node agent's fake nodes. One events consumer over all namespaces and one wait per
 * job follow them. Each notice is measured against a plain informer of the same API server (the reference: when a
 * client that only watches learns that the job is Complete), so what is timed is the component's own lag, not the
 * cluster's speed; the heap is this JVM's, which holds the app's side only.
 */
final class ClusterScaleBench implements AutoCloseable {
    private final KubernetesClient client;
    private final CamelContext camel;
    private final ProducerTemplate template;
    private final AsyncProducer waitRoute;
    private final Map<String, Long> referenceComplete = new ConcurrentHashMap<>();
    private final Map<String, Long> eventNotice = new ConcurrentHashMap<>();
    private final Map<String, Long> waitNotice = new ConcurrentHashMap<>();

    record Run(int jobs, int completed, Duration allComplete, Percentiles eventLag, Percentiles waitLag,
            double heapMiB) {
    }

    ClusterScaleBench(Path kubeconfig) throws Exception {
        client = new KubernetesClientBuilder().withConfig(Config.fromKubeconfig(Files.readString(kubeconfig))).build();
        camel = new DefaultCamelContext();
        camel.getComponent("kubeflow-trainer", KubeflowTrainerComponent.class).setKubernetesClient(client);
        camel.addRoutes(new RouteBuilder() {
            @Override
            public void configure() {
                from("kubeflow-trainer:events?allNamespaces=true")
                        .filter(header(KubeflowTrainerConstants.STATUS).isEqualTo("Complete"))
                        .process(e -> eventNotice.putIfAbsent(key(e), System.nanoTime()));
            }
        });
        camel.start();
        template = camel.createProducerTemplate();
        waitRoute = camel.getEndpoint("kubeflow-trainer:wait?waitFor=Complete&waitTimeout=5400s").createAsyncProducer();
        waitRoute.start();
    }

    private static String key(Exchange e) {
        return e.getMessage().getHeader(KubeflowTrainerConstants.NAMESPACE) + "/"
                + e.getMessage().getHeader(KubeflowTrainerConstants.JOB_NAME);
    }

    /** @param limit how long the whole run may take (the waits time out after 90 minutes) */
    Run run(int namespaces, int jobs, int threads, Duration limit) throws Exception {
        List<String> names = new ArrayList<>();
        for (int i = 0; i < namespaces; i++) {
            String namespace = "scale-" + i;
            names.add(namespace);
            client.namespaces().resource(new NamespaceBuilder().withNewMetadata().withName(namespace).endMetadata()
                    .build()).serverSideApply();
        }
        for (String namespace : names) {
            while (client.serviceAccounts().inNamespace(namespace).withName("default").get() == null) {
                Thread.sleep(100);
            }
        }
        SharedIndexInformer<TrainJob> reference = client.resources(TrainJob.class).inAnyNamespace().inform(
                new ResourceEventHandler<>() {
                    @Override
                    public void onAdd(TrainJob job) {
                        seen(job);
                    }

                    @Override
                    public void onUpdate(TrainJob previous, TrainJob job) {
                        seen(job);
                    }

                    @Override
                    public void onDelete(TrainJob job, boolean finalStateUnknown) {
                    }
                }, 0);
        long started = System.nanoTime();
        ExecutorService creators = Executors.newFixedThreadPool(threads);
        for (int i = 0; i < jobs; i++) {
            String namespace = names.get(i % namespaces);
            creators.execute(() -> {
                Exchange trained = template.request("kubeflow-trainer:train?runtime=torch-distributed&command=true"
                        + "&namespace=" + namespace, e -> e.getMessage().setBody(null));
                if (trained.getException() != null) {
                    System.err.println("create failed: " + trained.getException());
                    return;
                }
                String key = key(trained);
                // asynchronously, as a route's wait step runs: no thread is held while the job runs
                Exchange waiting = trained.copy();
                waitRoute.process(waiting, doneSync -> {
                    if (waiting.getException() == null) {
                        waitNotice.putIfAbsent(key, System.nanoTime());
                    }
                });
            });
        }
        creators.shutdown();
        creators.awaitTermination(limit.toMillis(), TimeUnit.MILLISECONDS);
        double heap = heapMiB();
        long deadline = started + limit.toNanos();
        while (referenceComplete.size() < jobs && System.nanoTime() < deadline) {
            Thread.sleep(1000);
            System.err.printf("%d s: %d of %d complete%n", (System.nanoTime() - started) / 1_000_000_000L,
                    referenceComplete.size(), jobs);
        }
        Duration all = Duration.ofNanos(System.nanoTime() - started);
        // the last notices come a moment after the reference's
        Thread.sleep(5000);
        reference.close();
        return new Run(jobs, referenceComplete.size(), all, lag(eventNotice), lag(waitNotice), heap);
    }

    private void seen(TrainJob job) {
        if (TrainJobPhase.of(job) == TrainJobPhase.COMPLETE) {
            referenceComplete.putIfAbsent(job.getMetadata().getNamespace() + "/" + job.getMetadata().getName(),
                    System.nanoTime());
        }
    }

    /** How long after the reference each job's notice came (ms); a notice before it counts as 0. */
    private Percentiles lag(Map<String, Long> notices) {
        List<Double> lags = new ArrayList<>();
        referenceComplete.forEach((job, reference) -> {
            Long notice = notices.get(job);
            if (notice != null) {
                lags.add(Math.max(0, notice - reference) / 1e6);
            }
        });
        return Percentiles.of(lags);
    }

    private static double heapMiB() {
        System.gc();
        Runtime runtime = Runtime.getRuntime();
        return (runtime.totalMemory() - runtime.freeMemory()) / (1024.0 * 1024.0);
    }

    @Override
    public void close() throws IOException {
        camel.stop();
        client.close();
    }
}
