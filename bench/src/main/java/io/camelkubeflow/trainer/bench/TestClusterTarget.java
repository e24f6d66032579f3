package io.camelkubeflow.trainer.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.camelkubeflow.trainer.runtime.RuntimeKind;
import io.camelkubeflow.trainer.testing.DeployedAccount;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.ServiceAccountBuilder;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBindingBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Predicate;

/**
 * The real control plane: kube-apiserver with etcd, the Kubeflow Trainer v2.3.0 controller and webhooks and JobSet
 * as released, the controller manager, the scheduler and the node agent, started by {@code testcluster/up.sh} for
 * the run and stopped by {@code down.sh} after it. Beside its real nodes it has {@value #FAKE_NODES} fake ones (as
 * kwok's: their containers "run" 2 s and succeed), which the runtime {@value #FAKE_RUNTIME} (torch-distributed,
 * tolerating and selecting them) sends pods to, so that thousands of TrainJobs go through the Trainer, JobSet, the Job
 * controller and the scheduler without thousands of processes on this machine. The measured clients act as a plain
 * user ({@link #PLAIN_USER}), the harness as the admin; requests are counted in the API server's audit log (up.sh
 * audits every request of both).
 */
final class TestClusterTarget extends BenchTarget {
    static final int FAKE_NODES = 4;
    static final String FAKE_RUNTIME = "torch-fake";
    /** The ServiceAccount (in default) the measured clients act as: {@link #makePlainUser}. */
    static final String PLAIN_USER = "bench-user";
    /** The Trainer's identity, whose writes show its reconcile rate. */
    static final String TRAINER = "system:serviceaccount:kubeflow-system:kubeflow-trainer-controller-manager";

    private static final Set<String> WRITES = Set.of("create", "update", "patch", "delete", "deletecollection");

    private final Path root;
    private final Path state;
    private final Config config;
    private final Config userConfig;
    private final ObjectMapper json = new ObjectMapper();

    /**
     * Starts the test cluster (built on first use: several minutes) on the port base given.
     *
     * @param kueue with Kueue's manager and webhooks installed too (up.sh's TESTCLUSTER_KUEUE)
     */
    TestClusterTarget(Path root, int portBase, boolean kueue) throws Exception {
        this.root = root;
        this.state = root.resolve("testcluster/.state");
        Map<String, String> environment = new HashMap<>(Map.of(
                "TESTCLUSTER_PORT_BASE",
                Integer.toString(portBase),
                "TESTCLUSTER_FAKE_NODES",
                Integer.toString(FAKE_NODES)));
        if (kueue) {
            environment.put("TESTCLUSTER_KUEUE", "1");
        }
        script("up.sh", environment);
        try {
            config = Config.fromKubeconfig(Files.readString(state.resolve("kubeconfig")));
            userConfig = Config.fromKubeconfig(Files.readString(makePlainUser()));
            deriveFakeRuntime();
        } catch (Exception | Error failed) {
            script("down.sh", Map.of());
            throw failed;
        }
    }

    private void script(String name, Map<String, String> environment) throws Exception {
        ProcessBuilder script =
                new ProcessBuilder("bash", root.resolve("testcluster/" + name).toString()).inheritIO();
        script.environment().putAll(environment);
        int exit = script.start().waitFor();
        if (exit != 0) {
            throw new IllegalStateException("testcluster/" + name + " exited with " + exit);
        }
    }

    /**
     * The user the measured clients act as: a ServiceAccount with cluster-admin's rights through a binding, not the
     * admin's system:masters group, which the API server's priority and fairness exempts from every limit (a real
     * user's, or an in-cluster app's, requests are queued by it). Its token lasts a day; up.sh audits its requests.
     */
    private Path makePlainUser() throws IOException {
        KubernetesClient admin = harness();
        admin.serviceAccounts()
                .inNamespace("default")
                .resource(new ServiceAccountBuilder()
                        .withNewMetadata()
                        .withName(PLAIN_USER)
                        .endMetadata()
                        .build())
                .serverSideApply();
        admin.rbac()
                .clusterRoleBindings()
                .resource(new ClusterRoleBindingBuilder()
                        .withNewMetadata()
                        .withName(PLAIN_USER)
                        .endMetadata()
                        .withNewRoleRef("rbac.authorization.k8s.io", "ClusterRole", "cluster-admin")
                        .addNewSubject()
                        .withKind("ServiceAccount")
                        .withName(PLAIN_USER)
                        .withNamespace("default")
                        .endSubject()
                        .build())
                .serverSideApply();
        String token = DeployedAccount.token(admin, "default", PLAIN_USER, Duration.ofDays(1));
        return Files.writeString(
                state.resolve(PLAIN_USER + ".kubeconfig"), DeployedAccount.kubeconfig(config, token, "default"));
    }

    /** torch-distributed as released, its pods tolerating and selecting the fake nodes. */
    @SuppressWarnings("unchecked")
    private void deriveFakeRuntime() {
        var runtimes = harness().genericKubernetesResources(RuntimeKind.ClusterTrainingRuntime.context());
        GenericKubernetesResource runtime =
                runtimes.withName("torch-distributed").get();
        runtime.getMetadata().setName(FAKE_RUNTIME);
        runtime.getMetadata().setResourceVersion(null);
        runtime.getMetadata().setUid(null);
        runtime.getMetadata().setManagedFields(null);
        runtime.getMetadata().setCreationTimestamp(null);
        Map<String, Object> spec =
                (Map<String, Object>) runtime.getAdditionalProperties().get("spec");
        List<Map<String, Object>> jobs =
                (List<Map<String, Object>>) dig(spec, "template", "spec").get("replicatedJobs");
        for (Map<String, Object> job : jobs) {
            Map<String, Object> pod = dig(job, "template", "spec", "template", "spec");
            pod.put("nodeSelector", Map.of("type", "kwok"));
            pod.put(
                    "tolerations",
                    List.of(Map.of("key", "kwok.x-k8s.io/node", "operator", "Exists", "effect", "NoSchedule")));
        }
        runtimes.resource(runtime).serverSideApply();
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> dig(Map<String, Object> map, String... keys) {
        Map<String, Object> current = map;
        for (String key : keys) {
            current = (Map<String, Object>) current.get(key);
        }
        return current;
    }

    @Override
    String name() {
        return "real control plane";
    }

    /** The project's root (deploy/, testcluster/, routes/ are under it). */
    Path root() {
        return root;
    }

    @Override
    Config adminConfig() {
        return config;
    }

    @Override
    Config clientConfig() {
        return userConfig;
    }

    @Override
    Path kubeconfig() {
        return state.resolve(PLAIN_USER + ".kubeconfig");
    }

    @Override
    String runtime() {
        return FAKE_RUNTIME;
    }

    /** The audit log's size: events after it are new. */
    @Override
    long requestMark() throws IOException {
        return Files.size(auditLog());
    }

    /**
     * Requests audited since the mark, one per audit ID (a watch or a followed log has two events: its response
     * started and completed).
     */
    @Override
    long requestsSince(long mark, Predicate<String> userAgent) throws IOException {
        Set<String> requests = new HashSet<>();
        forEachEventSince(mark, "", event -> {
            if (userAgent.test(event.path("userAgent").asText(null))) {
                requests.add(event.path("auditID").asText());
            }
        });
        return requests.size();
    }

    /** The writes (create, update, patch, delete) the user made since the mark. */
    long writesSince(long mark, String user) throws IOException {
        Set<String> writes = new HashSet<>();
        forEachEventSince(mark, "\"" + user + "\"", event -> {
            if (user.equals(event.path("user").path("username").asText())
                    && WRITES.contains(event.path("verb").asText())) {
                writes.add(event.path("auditID").asText());
            }
        });
        return writes.size();
    }

    /**
     * Each audit event after the mark whose line holds {@code needle}, read as a stream (the log grows large), once
     * the log has stopped growing for a moment (the API server writes a request's last event after its response), or
     * after 10 s at most: the controllers' own writes may never let it rest.
     */
    private void forEachEventSince(long mark, String needle, Consumer<JsonNode> each) throws IOException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        try {
            for (long size = -1; size != Files.size(auditLog()) && System.nanoTime() < deadline; Thread.sleep(300)) {
                size = Files.size(auditLog());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        try (var in = Files.newInputStream(auditLog())) {
            in.skipNBytes(mark);
            var lines = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
            for (String line = lines.readLine(); line != null; line = lines.readLine()) {
                if (!line.isBlank() && line.contains(needle)) {
                    each.accept(json.readTree(line));
                }
            }
        }
    }

    private Path auditLog() {
        return state.resolve("logs/audit.log");
    }

    @Override
    public void close() throws Exception {
        super.close();
        script("down.sh", Map.of());
    }
}
