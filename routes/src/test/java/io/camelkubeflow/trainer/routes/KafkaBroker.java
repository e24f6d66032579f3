package io.camelkubeflow.trainer.routes;

import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import kafka.server.KafkaConfig;
import kafka.server.KafkaRaftServer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.metadata.storage.Formatter;
import org.apache.kafka.server.common.Feature;
import org.apache.kafka.server.common.MetadataVersion;

/**
 * A real single-node Kafka (KRaft, broker and controller in one) started in this JVM from the Kafka jars: the routes
 * app's tests' and the bench's storm's.
 */
public final class KafkaBroker implements AutoCloseable {
    private final KafkaRaftServer server;
    private final String bootstrapServers;
    private final Path logDir;

    public KafkaBroker() throws Exception {
        logDir = Files.createTempDirectory("kraft");
        int[] ports = freePorts(2);
        int brokerPort = ports[0];
        int controllerPort = ports[1];
        bootstrapServers = "localhost:" + brokerPort;
        Map<String, Object> config = new HashMap<>();
        config.put("process.roles", "broker,controller");
        config.put("node.id", "1");
        config.put("controller.quorum.voters", "1@localhost:" + controllerPort);
        config.put("listeners", "PLAINTEXT://localhost:" + brokerPort + ",CONTROLLER://localhost:" + controllerPort);
        config.put("advertised.listeners", "PLAINTEXT://localhost:" + brokerPort);
        config.put("controller.listener.names", "CONTROLLER");
        config.put("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT");
        config.put("inter.broker.listener.name", "PLAINTEXT");
        config.put("log.dirs", logDir.toString());
        config.put("offsets.topic.replication.factor", "1");
        config.put("offsets.topic.num.partitions", "1");
        config.put("transaction.state.log.replication.factor", "1");
        config.put("transaction.state.log.min.isr", "1");
        config.put("group.initial.rebalance.delay.ms", "0");
        config.put("num.partitions", "1");
        config.put("auto.create.topics.enable", "true");
        KafkaConfig kafkaConfig = new KafkaConfig(config);
        new Formatter()
                .setPrintStream(new PrintStream(PrintStream.nullOutputStream()))
                .setClusterId(Uuid.randomUuid().toString())
                .setNodeId(1)
                .setDirectories(List.of(logDir.toString()))
                .setMetadataLogDirectory(logDir.toString())
                .setControllerListenerName("CONTROLLER")
                .setReleaseVersion(MetadataVersion.LATEST_PRODUCTION)
                .setSupportedFeatures(Feature.PRODUCTION_FEATURES)
                .run();
        server = new KafkaRaftServer(kafkaConfig, Time.SYSTEM);
        server.startup();
    }

    public String bootstrapServers() {
        return bootstrapServers;
    }

    /**
     * Whether the consumer group has {@code members} members, each with partitions assigned: the group's members
     * share the topic's records from then on. False while the group does not exist yet.
     */
    public boolean groupHasAssignedMembers(String group, int members) {
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrapServers))) {
            var described = admin.describeConsumerGroups(List.of(group))
                    .describedGroups()
                    .get(group)
                    .get(30, TimeUnit.SECONDS);
            return described.members().size() == members
                    && described.members().stream()
                            .allMatch(m -> !m.assignment().topicPartitions().isEmpty());
        } catch (ExecutionException | TimeoutException notYet) {
            // the group does not exist until a member's consumer joins it
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** Distinct free ports: all sockets stay open until every port is picked, or the OS may hand one out twice. */
    private static int[] freePorts(int count) {
        ServerSocket[] sockets = new ServerSocket[count];
        try {
            int[] ports = new int[count];
            for (int i = 0; i < count; i++) {
                sockets[i] = new ServerSocket(0);
                ports[i] = sockets[i].getLocalPort();
            }
            return ports;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } finally {
            for (ServerSocket socket : sockets) {
                if (socket != null) {
                    try {
                        socket.close();
                    } catch (IOException ignored) {
                        // the port is free either way
                    }
                }
            }
        }
    }

    @Override
    public void close() {
        server.shutdown();
        server.awaitShutdown();
    }
}
