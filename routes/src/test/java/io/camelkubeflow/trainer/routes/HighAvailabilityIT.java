package io.camelkubeflow.trainer.routes;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.camelkubeflow.trainer.api.TrainJob;
import io.camelkubeflow.trainer.api.TrainJobPhase;
import io.camelkubeflow.trainer.sandbox.TrainerSandbox;
import io.camelkubeflow.trainer.testing.ReliabilityFigures;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two replicas of the packaged app, as deploy/ runs them, on one API server and one Kafka broker: the requests are
 * shared by the consumer group, the result route runs on the replica holding the Lease. The leader is stopped
 * mid-batch: every request still makes exactly one TrainJob and every job's result is published exactly once.
 */
class HighAvailabilityIT {
    static final int REQUESTS = 1000;
    static final String NAMESPACE = "ha";

    @TempDir
    Path work;

    @Test
    void twoReplicasShareTheRequestsAndOneLeaderPublishesEachResultOnceThroughAFailover() throws Exception {
        try (KafkaBroker kafka = new KafkaBroker();
                TrainerSandbox cluster = TrainerSandbox.start(TrainerSandbox.Options.defaults()
                        .withController(Duration.ofMillis(50), Duration.ofMillis(300)))) {
            cluster.createNamespace(NAMESPACE);
            try (Admin admin = Admin.create(Map.of("bootstrap.servers", kafka.bootstrapServers()))) {
                admin.createTopics(List.of(
                                new NewTopic("trainjob-requests", 4, (short) 1),
                                new NewTopic("trainjob-results", 1, (short) 1),
                                new NewTopic("trainjob-dead-letters", 1, (short) 1)))
                        .all()
                        .get(30, TimeUnit.SECONDS);
            }
            Path kubeconfig = cluster.writeKubeconfig(work.resolve("kubeconfig"), NAMESPACE);
            Map<String, AppReplica> replicas = new HashMap<>();
            for (String pod : List.of("replica-a", "replica-b")) {
                replicas.put(pod, replica(work, pod, cluster.client(), kubeconfig, kafka.bootstrapServers()));
            }
            try {
                // both replicas in the consumer group, each with its partitions, before the batch
                await(
                        Duration.ofMinutes(2),
                        () -> kafka.groupHasAssignedMembers("camel-kubeflow-trainer", 2),
                        () -> "the consumer group never had both replicas",
                        replicas);
                TopicReader reading = new TopicReader(
                        kafka.bootstrapServers(), "ha-test", List.of("trainjob-results", "trainjob-dead-letters"));
                Supplier<List<ConsumerRecord<String, String>>> results = reading::records;
                try (KafkaProducer<String, String> producer = new KafkaProducer<>(Map.of(
                        "bootstrap.servers",
                        kafka.bootstrapServers(),
                        "key.serializer",
                        StringSerializer.class,
                        "value.serializer",
                        StringSerializer.class))) {
                    for (int i = 0; i < REQUESTS; i++) {
                        producer.send(new ProducerRecord<>(
                                "trainjob-requests",
                                "key-" + i,
                                "{\"pythonFile\": \"/app/train.py\", \"idempotencyKey\": \"ha-" + i + "\"}"));
                    }
                }
                await(
                        Duration.ofMinutes(4),
                        () -> results.get().size() >= REQUESTS / 4,
                        () -> results.get().size() + " results",
                        replicas);
                // the leader goes away, pod and all, with a quarter of the results out
                String leader = cluster.client()
                        .leases()
                        .inNamespace(NAMESPACE)
                        .withName("leaders-kafka-results")
                        .get()
                        .getSpec()
                        .getHolderIdentity();
                AppReplica stopped = replicas.remove(leader);
                assertTrue(stopped != null, "the Lease is held by " + leader + ", not a replica");
                stopped.stop();
                cluster.client().pods().inNamespace(NAMESPACE).withName(leader).delete();
                int resultsAtFailover = results.get().size();
                String survivor = replicas.keySet().iterator().next();

                await(
                        Duration.ofMinutes(6),
                        () -> jobs(cluster.client()).size() == REQUESTS
                                && jobs(cluster.client()).stream()
                                        .allMatch(job -> TrainJobPhase.of(job).isTerminal()
                                                && job.getMetadata()
                                                        .getAnnotations()
                                                        .containsKey("camelkubeflow.io/handled-kafka-results")),
                        () -> jobs(cluster.client()).size() + " jobs, "
                                + results.get().size() + " results",
                        replicas);
                List<TrainJob> jobs = jobs(cluster.client());
                assertEquals(
                        REQUESTS,
                        jobs.stream()
                                .map(j -> j.getMetadata().getAnnotations().get("camelkubeflow.io/idempotency-key"))
                                .distinct()
                                .count(),
                        "one TrainJob per key");
                // every end is marked handled: no result is still to come, so the count is final
                Map<String, Integer> perJob = new ConcurrentHashMap<>();
                results.get().forEach(r -> perJob.merge(r.key(), 1, Integer::sum));
                assertEquals(REQUESTS, perJob.size(), "jobs with a result");
                assertEquals(
                        List.of(),
                        perJob.entrySet().stream().filter(e -> e.getValue() > 1).toList(),
                        "results published more than once");
                assertTrue(resultsAtFailover < REQUESTS, "the leader had published everything before it stopped");
                assertEquals(
                        survivor,
                        cluster.client()
                                .leases()
                                .inNamespace(NAMESPACE)
                                .withName("leaders-kafka-results")
                                .get()
                                .getSpec()
                                .getHolderIdentity(),
                        "the survivor did not take the Lease");
                long createdByStopped = stopped.created();
                long createdBySurvivor = replicas.get(survivor).created();
                assertTrue(
                        createdByStopped > 0 && createdBySurvivor > 0,
                        "the consumer group did not share the requests:" + " " + leader + " created " + createdByStopped
                                + ", " + survivor + " " + createdBySurvivor);
                ReliabilityFigures.record(
                        "high availability",
                        "2 replicas of the packaged app on one API server and"
                                + " one Kafka broker, " + REQUESTS + " requests on 4 partitions (" + leader
                                + " created "
                                + createdByStopped + " TrainJobs, " + survivor + " " + createdBySurvivor
                                + "); the leader of"
                                + " the result route stopped with " + resultsAtFailover + " results out, " + survivor
                                + " took the Lease: " + jobs.size() + " TrainJobs for " + REQUESTS + " keys, "
                                + results.get().size()
                                + " results, 0 published twice; the survivor's peak resident memory "
                                + replicas.get(survivor).peakRssMib() + " MiB",
                        true);
                reading.close();
            } finally {
                replicas.values().forEach(AppReplica::stop);
            }
        }
    }

    private static List<TrainJob> jobs(KubernetesClient client) {
        return client.resources(TrainJob.class).inNamespace(NAMESPACE).list().getItems();
    }

    private interface Check {
        boolean met() throws Exception;
    }

    private static void await(
            Duration timeout, Check condition, Supplier<String> seen, Map<String, AppReplica> replicas)
            throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.met()) {
            if (System.nanoTime() > deadline) {
                StringBuilder logs = new StringBuilder();
                replicas.forEach((pod, replica) -> logs.append("\n--- ")
                        .append(pod)
                        .append(" (last 40 lines)\n")
                        .append(replica.tail(40)));
                throw new AssertionError("timed out: " + seen.get() + logs);
            }
            Thread.sleep(200);
        }
    }

    /** One replica: its pod in the API server (which the election looks for), and the packaged app as a process. */
    private static AppReplica replica(Path work, String pod, KubernetesClient client, Path kubeconfig, String brokers)
            throws Exception {
        AppReplica.registerPod(client, NAMESPACE, pod);
        return AppReplica.start(
                Path.of("target/quarkus-app/quarkus-run.jar"),
                work.resolve(pod),
                AppReplica.kafkaReplicaEnvironment(kubeconfig, NAMESPACE, pod, brokers));
    }
}
