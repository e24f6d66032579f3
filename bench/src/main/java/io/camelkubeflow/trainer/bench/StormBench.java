package io.camelkubeflow.trainer.bench;

import static io.camelkubeflow.trainer.bench.KafkaBurst.DEAD_LETTERS_TOPIC;
import static io.camelkubeflow.trainer.bench.KafkaBurst.GROUP;
import static io.camelkubeflow.trainer.bench.KafkaBurst.RESULTS_TOPIC;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.camelkubeflow.trainer.api.TrainJob;
import io.camelkubeflow.trainer.job.TrainJobMetadata;
import io.camelkubeflow.trainer.routes.AppReplica;
import io.camelkubeflow.trainer.routes.KafkaBroker;
import io.camelkubeflow.trainer.routes.TopicReader;
import io.camelkubeflow.trainer.testing.DeployedAccount;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * The routes app under an event storm on the real control plane: two replicas of the packaged app as deploy/ runs
 * them (deploy/'s ServiceAccount and Roles, a token the API server issued, the heap of deploy/'s container, the result
 * route led by one replica through a Lease among their pods) share one burst of Kafka requests from an in-process
 * broker. Once a quarter of the TrainJobs exist, the replica leading the result route is killed (SIGKILL: nothing in
 * flight is finished or handed over) and its pod deleted. Every request must become exactly one TrainJob or one dead
 * letter, and every TrainJob's result be published exactly once; the real Trainer runs each job on the fake nodes.
 * Request-to-created latency is from just before the request is sent to when a plain informer on the API server first
 * sees its TrainJob.
 */
final class StormBench implements AutoCloseable {
    static final String NAMESPACE = "storm";
    private static final String RESULTS_LEASE = "leaders-kafka-results";

    private final TestClusterTarget target;
    private final Path work;
    private final KafkaBroker kafka;
    private final Map<String, AppReplica> replicas = new LinkedHashMap<>();
    private final ObjectMapper json = new ObjectMapper();

    record Run(
            int requests,
            int trainJobs,
            int distinctKeys,
            int deadLetters,
            int jobsWithResult,
            int resultsTwice,
            Percentiles createdLatency,
            Duration allCreated,
            Duration allResults,
            String killed,
            int killedAtJobs,
            long createdByKilled,
            long createdBySurvivor,
            long killedPeakRssMib,
            long survivorPeakRssMib) {}

    StormBench(TestClusterTarget target, Path work) throws Exception {
        this.target = target;
        this.work = work;
        kafka = new KafkaBroker();
    }

    Run run(int requests, Path appJar) throws Exception {
        KubernetesClient admin = target.harness();
        target.createNamespace(NAMESPACE);
        Path kubeconfig = Files.writeString(
                work.resolve("app.kubeconfig"),
                DeployedAccount.kubeconfig(
                        target.adminConfig(),
                        DeployedAccount.install(admin, target.root().resolve("deploy"), NAMESPACE, Duration.ofHours(3)),
                        NAMESPACE));
        KafkaBurst.createTopics(kafka);
        for (String pod : List.of("storm-replica-a", "storm-replica-b")) {
            AppReplica.registerPod(admin, NAMESPACE, pod);
            Map<String, String> env = new HashMap<>(
                    AppReplica.kafkaReplicaEnvironment(kubeconfig, NAMESPACE, pod, kafka.bootstrapServers()));
            env.put("TRAINER_RUNTIME", target.runtime());
            replicas.put(pod, AppReplica.start(appJar, work.resolve(pod), env));
        }
        await(
                Duration.ofMinutes(3),
                () -> kafka.groupHasAssignedMembers(GROUP, 2),
                "the consumer group never had both replicas");

        Map<String, Double> seen = new ConcurrentHashMap<>();
        SharedIndexInformer<TrainJob> informer = admin.resources(TrainJob.class)
                .inNamespace(NAMESPACE)
                .inform(
                        new ResourceEventHandler<>() {
                            @Override
                            public void onAdd(TrainJob job) {
                                String key = job.getMetadata()
                                        .getAnnotations()
                                        .get(TrainJobMetadata.IDEMPOTENCY_KEY_ANNOTATION);
                                seen.putIfAbsent(
                                        key == null
                                                ? "no key: " + job.getMetadata().getName()
                                                : key,
                                        CompletionReference.now());
                            }

                            @Override
                            public void onUpdate(TrainJob previous, TrainJob job) {}

                            @Override
                            public void onDelete(TrainJob job, boolean finalStateUnknown) {}
                        },
                        0);
        TopicReader reading =
                new TopicReader(kafka.bootstrapServers(), "storm-bench", List.of(RESULTS_TOPIC, DEAD_LETTERS_TOPIC));
        // a dead letter names the request's record: one written twice is still one request
        Supplier<Set<String>> deadLetters = () ->
                reading.records(DEAD_LETTERS_TOPIC).stream().map(this::source).collect(Collectors.toSet());
        try {
            Map<String, Double> sent = new HashMap<>();
            long started = System.nanoTime();
            KafkaBurst.send(kafka, requests, "storm", "", key -> sent.put(key, CompletionReference.now()));
            Benchmarks.progress("storm: " + requests + " requests sent");
            await(
                    Duration.ofMinutes(10),
                    () -> seen.size() + deadLetters.get().size() >= requests / 4,
                    "a quarter of the requests never became TrainJobs");
            // the replica leading the result route goes away at once, its pod with it, as when its node is lost
            String leader = admin.leases()
                    .inNamespace(NAMESPACE)
                    .withName(RESULTS_LEASE)
                    .get()
                    .getSpec()
                    .getHolderIdentity();
            AppReplica killed = replicas.remove(leader);
            if (killed == null) {
                throw new IllegalStateException("the Lease is held by " + leader + ", not a replica");
            }
            int killedAt = seen.size();
            long killedRss = killed.peakRssMib();
            killed.kill();
            admin.pods().inNamespace(NAMESPACE).withName(leader).delete();
            Benchmarks.progress("storm: " + leader + " killed with " + killedAt + " TrainJobs created");
            String survivor = replicas.keySet().iterator().next();

            await(
                    Duration.ofMinutes(15),
                    () -> seen.size() + deadLetters.get().size() >= requests,
                    "not every request became a TrainJob or a dead letter");
            Duration allCreated = Duration.ofNanos(System.nanoTime() - started);
            Benchmarks.progress("storm: every request is a TrainJob or a dead letter; waiting for the results");
            // every ended job is marked handled once its result is out: then no result is still to come
            String handled = TrainJobMetadata.handledAnnotation("kafka-results");
            await(
                    Duration.ofMinutes(45),
                    () -> informer.getStore().list().stream()
                            .allMatch(job -> job.getMetadata().getAnnotations().containsKey(handled)),
                    "not every TrainJob's result was published");
            Duration allResults = Duration.ofNanos(System.nanoTime() - started);
            // a result is on the topic before its mark, but this reader may see it a moment later
            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (reading.records(RESULTS_TOPIC).stream()
                                    .map(ConsumerRecord::key)
                                    .distinct()
                                    .count()
                            < informer.getStore().list().size()
                    && System.nanoTime() < until) {
                Thread.sleep(100);
            }
            List<TrainJob> jobs = admin.resources(TrainJob.class)
                    .inNamespace(NAMESPACE)
                    .list()
                    .getItems();
            Map<String, Integer> perJob = new HashMap<>();
            reading.records(RESULTS_TOPIC).forEach(r -> perJob.merge(r.key(), 1, Integer::sum));
            List<Double> latencies = new ArrayList<>();
            seen.forEach((key, at) -> {
                Double sentAt = sent.get(key);
                if (sentAt != null) {
                    latencies.add(at - sentAt);
                }
            });
            return new Run(
                    requests,
                    jobs.size(),
                    (int) jobs.stream()
                            .map(job ->
                                    job.getMetadata().getAnnotations().get(TrainJobMetadata.IDEMPOTENCY_KEY_ANNOTATION))
                            .distinct()
                            .count(),
                    deadLetters.get().size(),
                    perJob.size(),
                    (int) perJob.values().stream().filter(count -> count > 1).count(),
                    Percentiles.of(latencies),
                    allCreated,
                    allResults,
                    leader,
                    killedAt,
                    killed.created(),
                    replicas.get(survivor).created(),
                    killedRss,
                    replicas.get(survivor).peakRssMib());
        } finally {
            reading.close();
            informer.close();
        }
    }

    /** The request record a dead letter names: its partition and offset. */
    private String source(ConsumerRecord<String, String> deadLetter) {
        try {
            JsonNode letter = json.readTree(deadLetter.value());
            return letter.path("partition").asText() + "@"
                    + letter.path("offset").asText();
        } catch (IOException unreadable) {
            return "unreadable " + deadLetter.partition() + "@" + deadLetter.offset();
        }
    }

    private void await(Duration timeout, BooleanSupplier condition, String failure) throws InterruptedException {
        KafkaBurst.await("storm", timeout, condition, failure, () -> {
            StringBuilder logs = new StringBuilder();
            replicas.forEach((pod, replica) -> logs.append("\n--- ")
                    .append(pod)
                    .append(" (last 40 lines)\n")
                    .append(replica.tail(40)));
            return logs.toString();
        });
    }

    @Override
    public void close() throws Exception {
        replicas.values().forEach(AppReplica::stop);
        target.harness()
                .rbac()
                .clusterRoleBindings()
                .withName(DeployedAccount.bindingName(NAMESPACE))
                .delete();
        target.deleteNamespaces(List.of(NAMESPACE));
        kafka.close();
    }
}
