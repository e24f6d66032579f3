package io.camelkubeflow.trainer.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import io.camelkubeflow.trainer.api.TrainJob;
import io.camelkubeflow.trainer.job.TrainJobMetadata;
import io.camelkubeflow.trainer.routes.AppReplica;
import io.camelkubeflow.trainer.routes.KafkaBroker;
import io.camelkubeflow.trainer.testing.DeployedAccount;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

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
    private static final String REQUESTS_TOPIC = "trainjob-requests";
    private static final String RESULTS_TOPIC = "trainjob-results";
    private static final String DEAD_LETTERS_TOPIC = "trainjob-dead-letters";
    private static final String GROUP = "camel-kubeflow-trainer";
    private static final String APP_LABEL = "app.kubernetes.io/name";
    private static final String RESULTS_LEASE = "leaders-kafka-results";

    private final TestClusterTarget target;
    private final Path work;
    private final KafkaBroker kafka;
    private final Map<String, AppReplica> replicas = new LinkedHashMap<>();

    record Run(int requests, int trainJobs, int distinctKeys, int deadLetters, int jobsWithResult, int resultsTwice,
            Percentiles createdLatency, Duration allCreated, Duration allResults, String killed, int killedAtJobs,
            long createdByKilled, long createdBySurvivor, long killedPeakRssMib, long survivorPeakRssMib) {
    }

    StormBench(TestClusterTarget target, Path work) throws Exception {
        this.target = target;
        this.work = work;
        kafka = new KafkaBroker();
    }

    Run run(int requests, Path appJar) throws Exception {
        KubernetesClient admin = target.harness();
        target.createNamespace(NAMESPACE);
        Path kubeconfig = Files.writeString(work.resolve("app.kubeconfig"), DeployedAccount.kubeconfig(
                target.adminConfig(), DeployedAccount.install(admin, target.root().resolve("deploy"), NAMESPACE),
                NAMESPACE));
        try (Admin topics = Admin.create(Map.of("bootstrap.servers", kafka.bootstrapServers()))) {
            topics.createTopics(List.of(new NewTopic(REQUESTS_TOPIC, 4, (short) 1),
                    new NewTopic(RESULTS_TOPIC, 1, (short) 1), new NewTopic(DEAD_LETTERS_TOPIC, 1, (short) 1)))
                    .all().get(30, TimeUnit.SECONDS);
        }
        for (String pod : List.of("storm-replica-a", "storm-replica-b")) {
            replicas.put(pod, AppReplica.start(appJar, work.resolve(pod), environment(kubeconfig, pod)));
        }
        await(Duration.ofMinutes(3), this::bothInTheGroup, "the consumer group never had both replicas");

        Map<String, Double> seen = new ConcurrentHashMap<>();
        SharedIndexInformer<TrainJob> informer = admin.resources(TrainJob.class).inNamespace(NAMESPACE)
                .inform(new ResourceEventHandler<>() {
                    @Override
                    public void onAdd(TrainJob job) {
                        String key = job.getMetadata().getAnnotations().get(TrainJobMetadata
                                .IDEMPOTENCY_KEY_ANNOTATION);
                        seen.putIfAbsent(key == null ? "no key: " + job.getMetadata().getName() : key,
                                CompletionReference.now());
                    }

                    @Override
                    public void onUpdate(TrainJob previous, TrainJob job) {
                    }

                    @Override
                    public void onDelete(TrainJob job, boolean finalStateUnknown) {
                    }
                }, 0);
        List<ConsumerRecord<String, String>> results = Collections.synchronizedList(new ArrayList<>());
        List<ConsumerRecord<String, String>> deadLetters = Collections.synchronizedList(new ArrayList<>());
        CompletableFuture<Void> reading = CompletableFuture.runAsync(() -> read(results, deadLetters));
        try {
            Map<String, Double> sent = new HashMap<>();
            long started = System.nanoTime();
            try (KafkaProducer<String, String> producer = new KafkaProducer<>(Map.of("bootstrap.servers",
                    kafka.bootstrapServers(), "key.serializer", StringSerializer.class, "value.serializer",
                    StringSerializer.class, "linger.ms", 5))) {
                for (int i = 0; i < requests; i++) {
                    String key = "storm-" + i;
                    sent.put(key, CompletionReference.now());
                    producer.send(new ProducerRecord<>(REQUESTS_TOPIC, key, "{\"pythonFile\": \"/app/train.py\","
                            + " \"idempotencyKey\": \"" + key + "\"}"));
                }
            }
            Benchmarks.progress("storm: " + requests + " requests sent");
            await(Duration.ofMinutes(10), () -> seen.size() + deadLetters.size() >= requests / 4,
                    "a quarter of the requests never became TrainJobs");
            // the replica leading the result route goes away at once, its pod with it, as when its node is lost
            String leader = admin.leases().inNamespace(NAMESPACE).withName(RESULTS_LEASE).get().getSpec()
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

            await(Duration.ofMinutes(15), () -> seen.size() + deadLetters.size() >= requests,
                    "not every request became a TrainJob or a dead letter");
            Duration allCreated = Duration.ofNanos(System.nanoTime() - started);
            Benchmarks.progress("storm: every request is a TrainJob or a dead letter; waiting for the results");
            // every ended job is marked handled once its result is out: then no result is still to come
            String handled = TrainJobMetadata.handledAnnotation("kafka-results");
            await(Duration.ofMinutes(45), () -> informer.getStore().list().stream().allMatch(job -> job
                    .getMetadata().getAnnotations().containsKey(handled)), "not every TrainJob's result was published");
            Duration allResults = Duration.ofNanos(System.nanoTime() - started);
            // the last results a moment after their marks
            Thread.sleep(2000);
            List<TrainJob> jobs = admin.resources(TrainJob.class).inNamespace(NAMESPACE).list().getItems();
            Map<String, Integer> perJob = new HashMap<>();
            synchronized (results) {
                results.forEach(r -> perJob.merge(r.key(), 1, Integer::sum));
            }
            List<Double> latencies = new ArrayList<>();
            seen.forEach((key, at) -> {
                Double sentAt = sent.get(key);
                if (sentAt != null) {
                    latencies.add(at - sentAt);
                }
            });
            return new Run(requests, jobs.size(), (int) jobs.stream().map(job -> job.getMetadata().getAnnotations()
                    .get(TrainJobMetadata.IDEMPOTENCY_KEY_ANNOTATION)).distinct().count(), deadLetters.size(),
                    perJob.size(), (int) perJob.values().stream().filter(count -> count > 1).count(),
                    Percentiles.of(latencies), allCreated, allResults, leader, killedAt, killed.created(),
                    replicas.get(survivor).created(), killedRss, replicas.get(survivor).peakRssMib());
        } finally {
            reading.cancel(true);
            informer.close();
        }
    }

    private Map<String, String> environment(Path kubeconfig, String pod) {
        // deploy/'s pod, as far as the election looks: labelled as the group's, Running and Ready; no scheduler of
        // this cluster takes it, so no node runs it (the app runs as a process of this machine)
        target.harness().pods().inNamespace(NAMESPACE).resource(new PodBuilder().withNewMetadata().withName(pod)
                .addToLabels(APP_LABEL, "camel-kubeflow-trainer").endMetadata().withNewSpec()
                .withSchedulerName("none").addNewContainer().withName("routes").withImage("app").endContainer()
                .endSpec().build()).create();
        target.harness().pods().inNamespace(NAMESPACE).withName(pod).editStatus(p -> new PodBuilder(p)
                .withNewStatus().withPhase("Running").addNewCondition().withType("Ready").withStatus("True")
                .endCondition().endStatus().build());
        Map<String, String> env = new HashMap<>(Map.of("KUBECONFIG", kubeconfig.toString(), "TRAINER_CLUSTER",
                "cluster", "TRAINER_NAMESPACE", NAMESPACE, "TRAINER_RUNTIME", target.runtime(), "QUARKUS_HTTP_PORT",
                "0", "TRAINER_KAFKA_ENABLED", "true", "CAMEL_COMPONENT_KAFKA_BROKERS", kafka.bootstrapServers(),
                "TRAINER_HA_CLUSTER_SERVICE", "kubernetes", "POD_NAME", pod, "TRAINER_COMPLETION_ENABLED", "false"));
        // a short Lease, so the survivor takes over within seconds
        env.putAll(Map.of("TRAINER_HA_LEASE_DURATION_MILLIS", "2000", "TRAINER_HA_RENEW_DEADLINE_MILLIS", "1500",
                "TRAINER_HA_RETRY_PERIOD_MILLIS", "200"));
        return env;
    }

    private boolean bothInTheGroup() {
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", kafka.bootstrapServers()))) {
            var group = admin.describeConsumerGroups(List.of(GROUP)).describedGroups().get(GROUP)
                    .get(30, TimeUnit.SECONDS);
            return group.members().size() == 2 && group.members().stream()
                    .allMatch(m -> !m.assignment().topicPartitions().isEmpty());
        } catch (Exception notYet) {
            // the group does not exist until a replica's consumer joins it
            return false;
        }
    }

    private void read(List<ConsumerRecord<String, String>> results, List<ConsumerRecord<String, String>> deadLetters) {
        Properties properties = new Properties();
        properties.putAll(Map.of("bootstrap.servers", kafka.bootstrapServers(), "group.id", "storm-bench",
                "auto.offset.reset", "earliest", "key.deserializer", StringDeserializer.class.getName(),
                "value.deserializer", StringDeserializer.class.getName()));
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(properties)) {
            consumer.subscribe(List.of(RESULTS_TOPIC, DEAD_LETTERS_TOPIC));
            while (!Thread.currentThread().isInterrupted()) {
                consumer.poll(Duration.ofMillis(200)).forEach(r -> (r.topic().equals(RESULTS_TOPIC) ? results
                        : deadLetters).add(r));
            }
        } catch (org.apache.kafka.common.errors.InterruptException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void await(Duration timeout, BooleanSupplier condition, String failure) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        long nextProgress = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                StringBuilder logs = new StringBuilder(failure);
                replicas.forEach((pod, replica) -> logs.append("\n--- ").append(pod).append(" (last 40 lines)\n")
                        .append(replica.tail(40)));
                throw new IllegalStateException(logs.toString());
            }
            if (System.nanoTime() > nextProgress) {
                Benchmarks.progress("storm: waiting (" + failure + " yet)");
                nextProgress += TimeUnit.SECONDS.toNanos(30);
            }
            Thread.sleep(500);
        }
    }

    @Override
    public void close() throws Exception {
        replicas.values().forEach(AppReplica::stop);
        target.harness().rbac().clusterRoleBindings().withName(DeployedAccount.bindingName(NAMESPACE)).delete();
        target.deleteNamespaces(List.of(NAMESPACE));
        kafka.close();
    }
}
