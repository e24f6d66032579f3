package io.camelkubeflow.trainer.bench;

import static io.camelkubeflow.trainer.bench.KafkaBurst.DEAD_LETTERS_TOPIC;
import static io.camelkubeflow.trainer.bench.KafkaBurst.GROUP;
import static io.camelkubeflow.trainer.bench.KafkaBurst.RESULTS_TOPIC;

import io.camelkubeflow.trainer.api.TrainJob;
import io.camelkubeflow.trainer.api.TrainJobPhase;
import io.camelkubeflow.trainer.job.KueueWorkloads;
import io.camelkubeflow.trainer.job.TrainJobMetadata;
import io.camelkubeflow.trainer.routes.AppReplica;
import io.camelkubeflow.trainer.routes.KafkaBroker;
import io.camelkubeflow.trainer.routes.TopicReader;
import io.camelkubeflow.trainer.testing.DeployedAccount;
import io.camelkubeflow.trainer.watch.ClusterInformers;
import io.camelkubeflow.trainer.watch.TrainJobEventStream;
import io.camelkubeflow.trainer.watch.WatchConnectionMonitor;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;

/**
 * An event storm under Kueue's quota on the real control plane with the real Kueue: one burst of Kafka requests to
 * the packaged routes app (deploy/'s account), whose request policy forces every job into one LocalQueue, whose
 * ClusterQueue admits {@value #ADMITTED_AT_ONCE} one-CPU jobs at a time. Every request must become exactly one TrainJob
 * (or one dead letter), Kueue must never hold more than its quota admitted at once (read from every change of the
 * Workloads), every job must complete and have its result published once, and the component's events consumer (a
 * harness one, beside the app) must hear each job's statuses in order: Queued, Admitted, Running, Complete.
 */
final class KueueStormBench implements AutoCloseable {
    static final String NAMESPACE = "kueue-storm";
    /** The ClusterQueue's CPU quota; each job asks one CPU. */
    static final int ADMITTED_AT_ONCE = 4;

    private static final String POD = "kueue-storm-replica";
    /**
     * Where a job's reported statuses rank: a job heard in order never goes back. Before Kueue has made its Workload
     * the job is what its own status says: Created, or Suspended once the Trainer has seen Kueue's webhook suspend it.
     */
    private static final Map<String, Integer> RANK =
            Map.of("Created", 0, "Suspended", 0, "Queued", 1, "Admitted", 2, "Running", 3, "Complete", 4);

    private final TestClusterTarget target;
    private final Path work;
    private final KafkaBroker kafka;
    private AppReplica replica;

    record Run(
            int requests,
            int trainJobs,
            int distinctKeys,
            int deadLetters,
            int complete,
            int jobsWithResult,
            int resultsTwice,
            int mostAdmittedAtOnce,
            int heardInOrder,
            int heardQueued,
            Duration allComplete,
            long peakRssMib) {}

    KueueStormBench(TestClusterTarget target, Path work) throws Exception {
        this.target = target;
        this.work = work;
        kafka = new KafkaBroker();
    }

    Run run(int requests, Path appJar) throws Exception {
        KubernetesClient admin = target.harness();
        target.createNamespace(NAMESPACE);
        // what a platform team sets up once: a flavor, a ClusterQueue with its quota, the namespace's LocalQueue
        apply(admin, """
                {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ResourceFlavor", "metadata": {"name": "kueue-storm"}}
                """);
        apply(admin, """
                {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ClusterQueue", "metadata": {"name": "kueue-storm"},
                 "spec": {"namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": "%s"}},
                          "resourceGroups": [{"coveredResources": ["cpu"], "flavors": [{"name": "kueue-storm",
                              "resources": [{"name": "cpu", "nominalQuota": %d}]}]}]}}
                """.formatted(NAMESPACE, ADMITTED_AT_ONCE));
        apply(admin, """
                {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "LocalQueue",
                 "metadata": {"name": "team", "namespace": "%s"}, "spec": {"clusterQueue": "kueue-storm"}}
                """.formatted(NAMESPACE));
        Path kubeconfig = Files.writeString(
                work.resolve("app.kubeconfig"),
                DeployedAccount.kubeconfig(
                        target.adminConfig(),
                        DeployedAccount.install(admin, target.root().resolve("deploy"), NAMESPACE, Duration.ofHours(3)),
                        NAMESPACE));
        KafkaBurst.createTopics(kafka);
        AppReplica.registerPod(admin, NAMESPACE, POD);
        Map<String, String> env =
                new HashMap<>(AppReplica.kafkaReplicaEnvironment(kubeconfig, NAMESPACE, POD, kafka.bootstrapServers()));
        env.put("TRAINER_RUNTIME", target.runtime());
        // the request policy forces every job into the namespace's LocalQueue, whatever the request says
        env.putAll(Map.of(
                "TRAINER_POLICY_QUEUES",
                "team",
                "TRAINER_POLICY_DEFAULT_QUEUE",
                "team",
                "TRAINER_POLICY_QUEUE_REQUIRED",
                "true"));
        replica = AppReplica.start(appJar, work.resolve(POD), env);
        await(Duration.ofMinutes(3), () -> kafka.groupHasAssignedMembers(GROUP, 1), "the replica never joined");

        // the most Workloads holding quota at once, looked at on every change Kueue makes
        Set<String> holding = ConcurrentHashMap.newKeySet();
        AtomicInteger most = new AtomicInteger();
        SharedIndexInformer<GenericKubernetesResource> workloads = admin.genericKubernetesResources(
                        KueueWorkloads.WORKLOADS)
                .inNamespace(NAMESPACE)
                .inform(
                        new ResourceEventHandler<>() {
                            @Override
                            public void onAdd(GenericKubernetesResource workload) {
                                look(workload);
                            }

                            @Override
                            public void onUpdate(
                                    GenericKubernetesResource previous, GenericKubernetesResource workload) {
                                look(workload);
                            }

                            @Override
                            public void onDelete(GenericKubernetesResource workload, boolean finalStateUnknown) {
                                holding.remove(workload.getMetadata().getName());
                            }

                            private void look(GenericKubernetesResource workload) {
                                if (isTrue(workload, "QuotaReserved") && !isTrue(workload, "Finished")) {
                                    holding.add(workload.getMetadata().getName());
                                    most.accumulateAndGet(holding.size(), Math::max);
                                } else {
                                    holding.remove(workload.getMetadata().getName());
                                }
                            }
                        },
                        0);
        // what the component's events consumer hears of each job, in order
        Map<String, List<String>> heard = new ConcurrentHashMap<>();
        WatchConnectionMonitor monitor = new WatchConnectionMonitor((watch, down) -> {});
        ClusterInformers informers = new ClusterInformers(admin, monitor);
        TrainJobEventStream events = new TrainJobEventStream(
                event -> heard.computeIfAbsent(
                                event.trainJob().getMetadata().getName(), name -> new CopyOnWriteArrayList<>())
                        .add(event.type()),
                informers);
        events.start(NAMESPACE, null, false, null);
        SharedIndexInformer<TrainJob> jobs =
                admin.resources(TrainJob.class).inNamespace(NAMESPACE).inform();
        TopicReader reading = new TopicReader(
                kafka.bootstrapServers(), "kueue-storm-bench", List.of(RESULTS_TOPIC, DEAD_LETTERS_TOPIC));
        try {
            long started = System.nanoTime();
            KafkaBurst.send(kafka, requests, "kueue-storm", "\"cpu\": \"1\", ", key -> {});
            Benchmarks.progress("kueue storm: " + requests + " requests sent");
            await(
                    Duration.ofMinutes(10),
                    () -> jobs.getStore().list().size()
                                    + reading.records(DEAD_LETTERS_TOPIC).size()
                            >= requests,
                    "not every request became a TrainJob or a dead letter");
            await(
                    Duration.ofMinutes(90),
                    () -> jobs.getStore().list().stream()
                            .allMatch(job -> TrainJobPhase.of(job).isTerminal()),
                    "not every TrainJob ended");
            Duration allComplete = Duration.ofNanos(System.nanoTime() - started);
            String handled = TrainJobMetadata.handledAnnotation("kafka-results");
            await(
                    Duration.ofMinutes(10),
                    () -> jobs.getStore().list().stream()
                            .allMatch(job -> job.getMetadata().getAnnotations().containsKey(handled)),
                    "not every TrainJob's result was published");
            List<TrainJob> ended = jobs.getStore().list();
            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (heard.values().stream()
                                    .filter(statuses -> statuses.contains("Complete"))
                                    .count()
                            < ended.size()
                    && System.nanoTime() < until) {
                Thread.sleep(100);
            }
            Map<String, Integer> perJob = new HashMap<>();
            reading.records(RESULTS_TOPIC).forEach(r -> perJob.merge(r.key(), 1, Integer::sum));
            int inOrder = 0;
            int queued = 0;
            for (TrainJob job : ended) {
                List<String> statuses = heard.getOrDefault(job.getMetadata().getName(), List.of());
                inOrder += inOrder(statuses) ? 1 : 0;
                queued += statuses.contains("Queued") ? 1 : 0;
            }
            return new Run(
                    requests,
                    ended.size(),
                    (int) ended.stream()
                            .map(job ->
                                    job.getMetadata().getAnnotations().get(TrainJobMetadata.IDEMPOTENCY_KEY_ANNOTATION))
                            .distinct()
                            .count(),
                    reading.records(DEAD_LETTERS_TOPIC).size(),
                    (int) ended.stream()
                            .filter(job -> TrainJobPhase.of(job) == TrainJobPhase.COMPLETE)
                            .count(),
                    perJob.size(),
                    (int) perJob.values().stream().filter(count -> count > 1).count(),
                    most.get(),
                    inOrder,
                    queued,
                    allComplete,
                    replica.peakRssMib());
        } finally {
            reading.close();
            jobs.close();
            events.close();
            informers.close();
            monitor.close();
            workloads.close();
        }
    }

    /** Heard in order: each status at or after the one before it, ending Complete, heard once. */
    static boolean inOrder(List<String> statuses) {
        int rank = -1;
        for (String status : statuses) {
            int next = RANK.getOrDefault(status, -1);
            if (next < rank || next < 0) {
                return false;
            }
            rank = next;
        }
        return !statuses.isEmpty() && statuses.indexOf("Complete") == statuses.size() - 1;
    }

    private static boolean isTrue(GenericKubernetesResource workload, String type) {
        return KueueWorkloads.trueCondition(workload, type).isPresent();
    }

    private static void apply(KubernetesClient admin, String json) {
        admin.resource(Serialization.unmarshal(json, GenericKubernetesResource.class))
                .serverSideApply();
    }

    private void await(Duration timeout, BooleanSupplier condition, String failure) throws InterruptedException {
        KafkaBurst.await(
                "kueue storm",
                timeout,
                condition,
                failure,
                () -> replica == null ? "" : "\n--- " + POD + " (last 40 lines)\n" + replica.tail(40));
    }

    @Override
    public void close() throws Exception {
        if (replica != null) {
            replica.stop();
        }
        KubernetesClient admin = target.harness();
        admin.rbac()
                .clusterRoleBindings()
                .withName(DeployedAccount.bindingName(NAMESPACE))
                .delete();
        target.deleteNamespaces(List.of(NAMESPACE));
        admin.genericKubernetesResources("kueue.x-k8s.io/v1beta2", "ClusterQueue")
                .withName("kueue-storm")
                .delete();
        admin.genericKubernetesResources("kueue.x-k8s.io/v1beta2", "ResourceFlavor")
                .withName("kueue-storm")
                .delete();
        kafka.close();
    }
}
