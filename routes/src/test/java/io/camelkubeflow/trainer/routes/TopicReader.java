package io.camelkubeflow.trainer.routes;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * Reads topics from their start on a daemon thread of its own, as an outside consumer group, keeping every record;
 * {@link #close} wakes the consumer and waits for the thread (a cancelled future would not stop a poll loop, and a JVM
 * whose main ends would wait for it for ever).
 */
public final class TopicReader implements AutoCloseable {
    private final List<ConsumerRecord<String, String>> records = new ArrayList<>();
    private final KafkaConsumer<String, String> consumer;
    private final Thread thread;

    public TopicReader(String bootstrapServers, String group, Collection<String> topics) {
        Properties properties = new Properties();
        properties.putAll(Map.of(
                "bootstrap.servers",
                bootstrapServers,
                "group.id",
                group,
                "auto.offset.reset",
                "earliest",
                "key.deserializer",
                StringDeserializer.class.getName(),
                "value.deserializer",
                StringDeserializer.class.getName()));
        consumer = new KafkaConsumer<>(properties);
        consumer.subscribe(topics);
        thread = new Thread(this::read, "topic-reader-" + group);
        thread.setDaemon(true);
        thread.start();
    }

    private void read() {
        try {
            while (true) {
                var polled = consumer.poll(Duration.ofMillis(200));
                synchronized (records) {
                    polled.forEach(records::add);
                }
            }
        } catch (WakeupException closing) {
            // close() asked
        } finally {
            consumer.close();
        }
    }

    /** The records read so far, in the order read. */
    public List<ConsumerRecord<String, String>> records() {
        synchronized (records) {
            return List.copyOf(records);
        }
    }

    /** The records read so far from {@code topic}, in the order read. */
    public List<ConsumerRecord<String, String>> records(String topic) {
        synchronized (records) {
            return records.stream().filter(r -> r.topic().equals(topic)).toList();
        }
    }

    @Override
    public void close() throws InterruptedException {
        consumer.wakeup();
        thread.join(Duration.ofSeconds(30).toMillis());
    }
}
