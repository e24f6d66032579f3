package io.camelkubeflow.trainer.routes;

import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

/**
 * One replica of the packaged app (target/quarkus-app) as deploy/ runs it: a JVM of its own with the heap deploy/'s
 * container gives it, in a home folder of its own, configured by its environment alone; its output collected line by
 * line. Stopped as Kubernetes stops a pod, or killed as a lost node or the OOM killer ends it. The routes app's
 * high-availability test's and the bench's storm's.
 */
public final class AppReplica {
    /** Every line the replica printed so far. */
    public final List<String> output = new CopyOnWriteArrayList<>();

    private final Process process;

    private AppReplica(Process process) {
        this.process = process;
        CompletableFuture.runAsync(() -> {
            try (BufferedReader lines =
                    new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                lines.lines().forEach(output::add);
            } catch (IOException ignored) {
                // stopped
            }
        });
    }

    /** Starts the app's {@code jar} (quarkus-run.jar) in {@code home} with {@code environment} added. */
    public static AppReplica start(Path jar, Path home, Map<String, String> environment) throws IOException {
        Files.createDirectories(home);
        // the heap the JVM gives itself in deploy/'s container (25 % of its 768Mi limit): outside a container it would
        // take a quarter of this machine's memory and grow lazily, and its peak would say nothing of the pod
        ProcessBuilder builder = new ProcessBuilder(
                        "java",
                        "-Xmx192m",
                        "-Duser.home=" + home,
                        "-jar",
                        jar.toAbsolutePath().toString())
                .directory(home.toFile())
                .redirectErrorStream(true);
        builder.environment().remove("KUBERNETES_SERVICE_HOST");
        builder.environment().putAll(environment);
        return new AppReplica(builder.start());
    }

    /**
     * The pod of a replica as far as the leader election looks: labelled as deploy/'s pods, Running and Ready. No
     * scheduler takes it ({@code schedulerName: none}), so no node of a real cluster runs it: the replica runs as a
     * process of this machine.
     */
    public static void registerPod(KubernetesClient client, String namespace, String pod) {
        client.pods()
                .inNamespace(namespace)
                .resource(new PodBuilder()
                        .withNewMetadata()
                        .withName(pod)
                        .addToLabels("app.kubernetes.io/name", "camel-kubeflow-trainer")
                        .endMetadata()
                        .withNewSpec()
                        .withSchedulerName("none")
                        .addNewContainer()
                        .withName("routes")
                        .withImage("app")
                        .endContainer()
                        .endSpec()
                        .build())
                .create();
        // status is a subresource: set apart from the create, as the kubelet would
        client.pods()
                .inNamespace(namespace)
                .withName(pod)
                .editStatus(p -> new PodBuilder(p)
                        .withNewStatus()
                        .withPhase("Running")
                        .addNewCondition()
                        .withType("Ready")
                        .withStatus("True")
                        .endCondition()
                        .endStatus()
                        .build());
    }

    /**
     * The environment of a replica in {@code namespace} as deploy/ sets it with Kafka on: the Kafka routes, the
     * Lease election among the pods (short times, so a follower takes over within seconds), completion events off.
     */
    public static Map<String, String> kafkaReplicaEnvironment(
            Path kubeconfig, String namespace, String pod, String brokers) {
        Map<String, String> env = new HashMap<>(Map.of(
                "KUBECONFIG",
                kubeconfig.toString(),
                "TRAINER_CLUSTER",
                "cluster",
                "TRAINER_NAMESPACE",
                namespace,
                "QUARKUS_HTTP_PORT",
                "0",
                "TRAINER_KAFKA_ENABLED",
                "true",
                "CAMEL_COMPONENT_KAFKA_BROKERS",
                brokers,
                "TRAINER_HA_CLUSTER_SERVICE",
                "kubernetes",
                "POD_NAME",
                pod,
                "TRAINER_COMPLETION_ENABLED",
                "false"));
        env.putAll(Map.of(
                "TRAINER_HA_LEASE_DURATION_MILLIS",
                "2000",
                "TRAINER_HA_RENEW_DEADLINE_MILLIS",
                "1500",
                "TRAINER_HA_RETRY_PERIOD_MILLIS",
                "200"));
        return env;
    }

    /** How many TrainJobs the replica said it created. */
    public long created() {
        return output.stream().filter(l -> l.contains("Created TrainJob")).count();
    }

    /** The last lines it printed, for a failure's message. */
    public String tail(int lines) {
        return String.join("\n", output.subList(Math.max(0, output.size() - lines), output.size()));
    }

    /** VmHWM: the most resident memory the replica's JVM has had (what deploy/'s memory request is sized on). */
    public long peakRssMib() throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc/" + process.pid() + "/status"))) {
            if (line.startsWith("VmHWM:")) {
                return Long.parseLong(line.replaceAll("\\D+", "")) / 1024;
            }
        }
        return -1;
    }

    /** SIGTERM, as Kubernetes stops a pod, then SIGKILL after its grace period. */
    public void stop() {
        process.destroy();
        awaitExit();
    }

    /** SIGKILL: no shutdown hook runs, nothing in flight is finished or handed over. */
    public void kill() {
        process.destroyForcibly();
        awaitExit();
    }

    private void awaitExit() {
        try {
            if (!process.waitFor(60, TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
