package io.camelkubeflow.trainer.bench;

import io.camelkubeflow.trainer.routes.KafkaBroker;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * What the storm sections share: the routes app's Kafka topics on the in-process broker, one burst of requests to it,
 * and waiting on the run (with progress, and the app's last lines when it fails).
 */
final class KafkaBurst {
    static final String REQUESTS_TOPIC = "trainjob-requests";
    static final String RESULTS_TOPIC = "trainjob-results";
    static final String DEAD_LETTERS_TOPIC = "trainjob-dead-letters";
    /** The routes app's consumer group. */
    static final String GROUP = "camel-kubeflow-trainer";

    private KafkaBurst() {}

    /** The requests topic on 4 partitions, the results and dead letters on one each. */
    static void createTopics(KafkaBroker kafka) throws Exception {
        try (Admin topics = Admin.create(Map.of("bootstrap.servers", kafka.bootstrapServers()))) {
            topics.createTopics(List.of(
                            new NewTopic(REQUESTS_TOPIC, 4, (short) 1),
                            new NewTopic(RESULTS_TOPIC, 1, (short) 1),
                            new NewTopic(DEAD_LETTERS_TOPIC, 1, (short) 1)))
                    .all()
                    .get(30, TimeUnit.SECONDS);
        }
    }

    /**
     * Sends {@code requests} train requests in one burst, each keyed {@code prefix-i} (its idempotency key too),
     * {@code fields} added to its JSON body; {@code sending} is told each key just before it is sent.
     */
    static void send(KafkaBroker kafka, int requests, String prefix, String fields, Consumer<String> sending) {
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(Map.of(
                "bootstrap.servers",
                kafka.bootstrapServers(),
                "key.serializer",
                StringSerializer.class,
                "value.serializer",
                StringSerializer.class,
                "linger.ms",
                5))) {
            for (int i = 0; i < requests; i++) {
                String key = prefix + "-" + i;
                sending.accept(key);
                producer.send(new ProducerRecord<>(
                        REQUESTS_TOPIC,
                        key,
                        "{\"pythonFile\": \"/app/train.py\", " + fields + "\"idempotencyKey\": \"" + key + "\"}"));
            }
        }
    }

    /**
     * Waits until the condition holds, saying every 30 s that it waits; past the timeout fails with {@code failure}
     * and what {@code logs} gives (the replicas' last lines).
     */
    static void await(
            String section, Duration timeout, BooleanSupplier condition, String failure, Supplier<String> logs)
            throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        long nextProgress = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException(failure + logs.get());
            }
            if (System.nanoTime() > nextProgress) {
                Benchmarks.progress(section + ": waiting (" + failure + " yet)");
                nextProgress += TimeUnit.SECONDS.toNanos(30);
            }
            Thread.sleep(500);
        }
    }
}
