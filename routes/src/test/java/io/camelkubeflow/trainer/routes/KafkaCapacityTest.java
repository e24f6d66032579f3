package io.camelkubeflow.trainer.routes;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.camelkubeflow.trainer.api.TrainJob;
import io.camelkubeflow.trainer.api.TrainJobPhase;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import jakarta.inject.Inject;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.temporal.ChronoUnit;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;

/** With trainer.kafka.max-in-flight=1, a second request waits until the first TrainJob has ended. */
@QuarkusTest
@TestProfile(KafkaCapacityTest.OneInFlight.class)
@QuarkusTestResource(KafkaBrokerResource.class)
class KafkaCapacityTest {
    public static class OneInFlight implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of(
                    "trainer.kafka.max-in-flight",
                    "1",
                    "trainer.kafka.capacity-retry-millis",
                    "200",
                    "trainer.namespace",
                    "capacity");
        }
    }

    @Inject
    KubernetesClient client;

    @Test
    void aRequestBeyondTheCapWaitsForTheRunningJob() throws Exception {
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(
                Map.<String, Object>of("bootstrap.servers", KafkaBrokerResource.broker.bootstrapServers()),
                new StringSerializer(),
                new StringSerializer())) {
            producer.send(new ProducerRecord<>("trainjob-requests", "{\"script\": \"import time\\ntime.sleep(3)\\n\"}"))
                    .get();
            producer.send(new ProducerRecord<>("trainjob-requests", "{\"script\": \"print('second')\\n\"}"))
                    .get();
        }
        // no fixed pause: how soon the first record is handled depends on the machine; the waiting is proven by the
        // creation times below (the second job is created no earlier than the first one's end)
        long deadline = System.nanoTime() + Duration.ofSeconds(90).toNanos();
        while (jobs().size() < 2 && System.nanoTime() < deadline) {
            Thread.sleep(100);
        }
        assertEquals(2, jobs().size(), "the second request must start once the first job has ended");
        List<TrainJob> byCreation = jobs().stream()
                .sorted(Comparator.comparing(
                        job -> Instant.parse(job.getMetadata().getCreationTimestamp())))
                .toList();
        TrainJob first = client.resources(TrainJob.class)
                .inNamespace("capacity")
                .withName(byCreation.get(0).getMetadata().getName())
                .get();
        var ended = TrainJobPhase.decidingCondition(first);
        assertTrue(ended != null, "the second job started while the first had not ended: " + first.getStatus());
        assertTrue(
                !Instant.parse(byCreation.get(1).getMetadata().getCreationTimestamp())
                        .isBefore(OffsetDateTime.parse(ended.getLastTransitionTime())
                                .toInstant()
                                .truncatedTo(ChronoUnit.SECONDS)),
                "the second job was created before the first ended");
    }

    private List<TrainJob> jobs() {
        return client.resources(TrainJob.class).inNamespace("capacity").list().getItems();
    }
}
