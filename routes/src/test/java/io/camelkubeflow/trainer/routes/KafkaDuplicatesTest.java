package io.camelkubeflow.trainer.routes;

import static io.camelkubeflow.trainer.KubeflowTrainerConstants.ADOPTED;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.camelkubeflow.trainer.api.TrainJob;
import io.camelkubeflow.trainer.job.TrainJobMetadata;
import io.camelkubeflow.trainer.testing.ReliabilityFigures;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import org.apache.camel.CamelContext;
import org.apache.camel.spi.CamelEvent;
import org.apache.camel.support.EventNotifierSupport;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;

/**
 * 1,000 train requests on the real broker, 300 of them repeats of an earlier request (a producer's redelivery), and
 * the consumer stopped mid-batch and handed 200 already-handled records again (a crash before the commits): every
 * distinct key has exactly one TrainJob.
 */
@QuarkusTest
@QuarkusTestResource(KafkaBrokerResource.class)
class KafkaDuplicatesTest {
    static final int RECORDS = 1000;
    static final int DISTINCT = 700;
    static final int HANDED_AGAIN = 200;

    @Inject
    KubernetesClient client;

    @Inject
    CamelContext camel;

    @Test
    void aThousandEventsWithRedeliveriesAndARestartMakeOneTrainJobPerKey() throws Exception {
        String batch = "dups-" + UUID.randomUUID().toString().substring(0, 8);
        Map<Boolean, AtomicInteger> outcomes = Map.of(true, new AtomicInteger(), false, new AtomicInteger());
        EventNotifierSupport counter = new EventNotifierSupport() {
            @Override
            public void notify(CamelEvent event) {
                if (event instanceof CamelEvent.ExchangeCompletedEvent completed
                        && "kafka-train".equals(completed.getExchange().getFromRouteId())
                        // the record's value, as bytes (TrainRequestMessage reads them), as text here
                        && String.valueOf(completed.getExchange().getProperty("request", String.class))
                                .contains(batch)) {
                    outcomes.get(Boolean.TRUE.equals(
                                    completed.getExchange().getMessage().getHeader(ADOPTED, Boolean.class)))
                            .incrementAndGet();
                }
            }
        };
        camel.getManagementStrategy().addEventNotifier(counter);
        counter.start();
        Set<String> keys = ConcurrentHashMap.newKeySet();
        List<String> requests = new ArrayList<>();
        for (int i = 0; i < RECORDS; i++) {
            int key = i < DISTINCT ? i : (i * 7919) % DISTINCT;
            keys.add(batch + "-" + key);
            // suspended: the jobs need not run, only exist once
            requests.add("{\"pythonFile\": \"/app/train.py\", \"suspend\": true, \"idempotencyKey\": \"" + batch + "-"
                    + key + "\", \"labels\": {\"batch\": \"" + batch + "\"}}");
        }
        // the repeats are spread through the batch, as redeliveries would be
        Collections.shuffle(requests, new Random(42));

        TopicPartition partition = new TopicPartition("trainjob-requests", 0);
        long first;
        long last;
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(
                Map.<String, Object>of(
                        "bootstrap.servers", KafkaBrokerResource.broker.bootstrapServers(), "linger.ms", 5),
                new StringSerializer(),
                new StringSerializer())) {
            first = producer.send(new ProducerRecord<>("trainjob-requests", requests.get(0)))
                    .get()
                    .offset();
            for (String request : requests.subList(1, RECORDS - 1)) {
                producer.send(new ProducerRecord<>("trainjob-requests", request));
            }
            last = producer.send(new ProducerRecord<>("trainjob-requests", requests.get(RECORDS - 1)))
                    .get()
                    .offset();
        }

        long stoppedAt;
        try (Admin admin = Admin.create(
                Map.<String, Object>of("bootstrap.servers", KafkaBrokerResource.broker.bootstrapServers()))) {
            // the consumer stops mid-batch; as after a crash before its commits, it is handed 200 records again
            stoppedAt = awaitCommitted(admin, partition, first + RECORDS / 2);
            camel.getRouteController().stopRoute("kafka-train");
            long committed = committed(admin, partition);
            admin.alterConsumerGroupOffsets(
                            "camel-kubeflow-trainer",
                            Map.of(partition, new OffsetAndMetadata(Math.max(first, committed - HANDED_AGAIN))))
                    .all()
                    .get();
            camel.getRouteController().startRoute("kafka-train");
            awaitCommitted(admin, partition, last + 1);
        } finally {
            camel.getManagementStrategy().removeEventNotifier(counter);
        }

        List<TrainJob> jobs = client.resources(TrainJob.class)
                .inNamespace("default")
                .withLabel("batch", batch)
                .list()
                .getItems();
        Map<String, Long> jobsPerKey = jobs.stream()
                .collect(Collectors.groupingBy(
                        j -> j.getMetadata().getAnnotations().get(TrainJobMetadata.IDEMPOTENCY_KEY_ANNOTATION),
                        Collectors.counting()));
        long duplicates = jobsPerKey.values().stream().mapToLong(n -> n - 1).sum();
        int created = outcomes.get(false).get();
        int adopted = outcomes.get(true).get();
        ReliabilityFigures.record(
                "duplicates",
                RECORDS + " Kafka records for " + keys.size() + " keys, consumer"
                        + " stopped at offset " + (stoppedAt - first) + " and handed " + HANDED_AGAIN
                        + " records again: "
                        + (created + adopted) + " handled, " + created + " created, " + adopted + " adopted, "
                        + duplicates
                        + " duplicate TrainJobs",
                duplicates == 0 && jobsPerKey.keySet().equals(keys));
        assertEquals(0, duplicates, "keys with more than one TrainJob");
        assertEquals(keys, jobsPerKey.keySet(), "every key has its TrainJob");
        assertEquals(keys.size(), created, "one create per key");
        assertTrue(adopted >= RECORDS - DISTINCT, "every repeat adopted: " + adopted);
    }

    private static long committed(Admin admin, TopicPartition partition) throws Exception {
        OffsetAndMetadata offset = admin.listConsumerGroupOffsets("camel-kubeflow-trainer")
                .partitionsToOffsetAndMetadata()
                .get()
                .get(partition);
        return offset == null ? -1 : offset.offset();
    }

    private static long awaitCommitted(Admin admin, TopicPartition partition, long atLeast) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
        long committed = committed(admin, partition);
        while (committed < atLeast && System.nanoTime() < deadline) {
            Thread.sleep(20);
            committed = committed(admin, partition);
        }
        assertTrue(committed >= atLeast, "committed offset " + committed + " never reached " + atLeast);
        return committed;
    }
}
