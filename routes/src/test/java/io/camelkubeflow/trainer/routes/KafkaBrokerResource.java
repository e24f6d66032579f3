package io.camelkubeflow.trainer.routes;

import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;
import java.nio.file.Path;
import java.util.Map;

/**
 * Starts a real in-process Kafka broker for the app under test and turns its Kafka routes on, acting as a configured
 * identity that may train in default (and capacity) only.
 */
public class KafkaBrokerResource implements QuarkusTestResourceLifecycleManager {
    static KafkaBroker broker;

    @Override
    public Map<String, String> start() {
        try {
            broker = new KafkaBroker();
        } catch (Exception e) {
            throw new IllegalStateException("the in-process Kafka broker did not start", e);
        }
        // the Kafka routes act as this identity, whose rights the sandbox is given at start
        return Map.of(
                "trainer.kafka.enabled",
                "true",
                "camel.component.kafka.brokers",
                broker.bootstrapServers(),
                "trainer.kafka.caller-user",
                "system:serviceaccount:default:kafka-producer",
                "trainer.kafka.caller-groups",
                "kafka-producers",
                "trainer.sandbox.manifests",
                Path.of("target/test-classes/kafka-producers-rbac.yaml")
                        .toAbsolutePath()
                        .toString());
    }

    @Override
    public void stop() {
        if (broker != null) {
            broker.close();
        }
    }
}
