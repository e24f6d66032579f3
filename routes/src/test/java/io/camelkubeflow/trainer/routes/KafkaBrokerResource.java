package io.camelkubeflow.trainer.routes;

import java.util.Map;

import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;

/** Starts a real in-process Kafka broker for the app under test and turns its Kafka routes on. */
public class KafkaBrokerResource implements QuarkusTestResourceLifecycleManager {
    static KafkaBroker broker;

    @Override
    public Map<String, String> start() {
        try {
            broker = new KafkaBroker();
        } catch (Exception e) {
            throw new IllegalStateException("the in-process Kafka broker did not start", e);
        }
        return Map.of("trainer.kafka.enabled", "true", "camel.component.kafka.brokers", broker.bootstrapServers());
    }

    @Override
    public void stop() {
        if (broker != null) {
            broker.close();
        }
    }
}
