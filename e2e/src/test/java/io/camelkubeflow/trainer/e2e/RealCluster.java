package io.camelkubeflow.trainer.e2e;

import io.camelkubeflow.trainer.KubeflowTrainerComponent;
import io.camelkubeflow.trainer.testing.DeployedAccount;
import io.camelkubeflow.trainer.testing.Eventually;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.function.Consumer;
import org.apache.camel.CamelContext;
import org.apache.camel.Exchange;
import org.apache.camel.ProducerTemplate;
import org.apache.camel.impl.DefaultCamelContext;

/**
 * The control plane testcluster/up.sh started (its admin kubeconfig in the {@code testcluster.kubeconfig} system
 * property), a namespace of the test class's own, and a CamelContext whose {@code kubeflow-trainer} component talks
 * to it. Nothing here knows a detail of the Trainer: what the cluster does is what the real pieces do.
 */
final class RealCluster implements AutoCloseable {
    /** The ServiceAccount deploy/ runs the app as. */
    static final String DEPLOYED_ACCOUNT = DeployedAccount.NAME;

    final KubernetesClient admin;
    final String namespace;
    final CamelContext camel;
    final ProducerTemplate template;
    /** The admin kubeconfig of this control plane: its audit log is beside it. */
    private final Path kubeconfig;

    private RealCluster(Path kubeconfig, KubernetesClient admin, String namespace, CamelContext camel) {
        this.kubeconfig = kubeconfig;
        this.admin = admin;
        this.namespace = namespace;
        this.camel = camel;
        this.template = camel.createProducerTemplate();
    }

    /** A fresh namespace named after the test class, and Camel on the cluster's admin identity. */
    static RealCluster start(Class<?> testClass) throws Exception {
        return start(testClass, adminKubeconfig());
    }

    /** As {@link #start(Class)}, on the control plane of that admin kubeconfig (KueueIT's has Kueue). */
    static RealCluster start(Class<?> testClass, Path kubeconfig) throws Exception {
        KubernetesClient admin = client(kubeconfig);
        String namespace = testClass.getSimpleName().toLowerCase(Locale.ROOT).replace("it", "") + "-"
                + UUID.randomUUID().toString().substring(0, 6);
        admin.namespaces()
                .resource(new NamespaceBuilder()
                        .withNewMetadata()
                        .withName(namespace)
                        .endMetadata()
                        .build())
                .create();
        // the ServiceAccount admission refuses pods until the controller manager made the namespace's default account
        Eventually.await(
                Duration.ofSeconds(30),
                () -> admin.serviceAccounts()
                                .inNamespace(namespace)
                                .withName("default")
                                .get()
                        != null,
                () -> "no default service account in " + namespace);
        CamelContext camel = new DefaultCamelContext();
        camel.getComponent("kubeflow-trainer", KubeflowTrainerComponent.class).setKubernetesClient(admin);
        camel.start();
        return new RealCluster(kubeconfig, admin, namespace, camel);
    }

    /**
     * Installs deploy/'s ServiceAccount, Role, RoleBinding, ClusterRole and a ClusterRoleBinding of that account (named
     * {@code <account>-<namespace>}) into the namespace, as {@code kubectl apply -k deploy/} does with its namespace.
     *
     * @return a token the API server issued for that account
     */
    String installDeployedAccount() throws IOException {
        return DeployedAccount.install(
                admin,
                Path.of(System.getProperty("user.dir")).resolve("../deploy").normalize(),
                namespace);
    }

    /** A token the API server issues for a ServiceAccount of the namespace (TokenRequest), valid for an hour. */
    String token(String account) {
        return DeployedAccount.token(admin, namespace, account);
    }

    /** Where the API server's audit log is read from now on: a mark taken before a request. */
    long auditMark() throws IOException {
        return Files.size(auditLog());
    }

    /** The user the admin kubeconfig authenticates as (its client certificate's name): Camel's, in these suites. */
    static final String ADMIN_USER = "kubernetes-admin";

    /**
     * The writes (create, update, patch, delete) the API server audited in this namespace since the mark by one user
     * (the controllers write there too), each as "verb resource/name by user (code)": every write that reached it,
     * refused or not.
     */
    List<String> writesSince(long mark, String user) throws IOException {
        List<String> writes = new ArrayList<>();
        byte[] log = Files.readAllBytes(auditLog());
        String since = new String(log, (int) mark, log.length - (int) mark, StandardCharsets.UTF_8);
        for (String line : since.split("\n")) {
            if (line.isBlank()) {
                continue;
            }
            Map<?, ?> event = Serialization.unmarshal(line, Map.class);
            Map<?, ?> object = (Map<?, ?>) event.get("objectRef");
            // the log also holds the admin user's reads (the bench counts them): a write is one of these verbs
            if (object != null
                    && namespace.equals(object.get("namespace"))
                    && "ResponseComplete".equals(event.get("stage"))
                    && WRITE_VERBS.contains(event.get("verb"))
                    && user.equals(((Map<?, ?>) event.get("user")).get("username"))) {
                writes.add(event.get("verb") + " " + object.get("resource") + "/" + object.get("name") + " by "
                        + ((Map<?, ?>) event.get("user")).get("username") + " ("
                        + ((Map<?, ?>) event.get("responseStatus")).get("code") + ")");
            }
        }
        return writes;
    }

    private static final Set<String> WRITE_VERBS = Set.of("create", "update", "patch", "delete", "deletecollection");

    private Path auditLog() {
        return kubeconfig.resolveSibling("logs/audit.log");
    }

    static Path adminKubeconfig() {
        return kubeconfig("testcluster.kubeconfig", "testcluster/up.sh", "testcluster/.state/kubeconfig");
    }

    /** The admin kubeconfig of the control plane with Kueue, which the build starts for KueueIT. */
    static Path kueueKubeconfig() {
        return kubeconfig(
                "testcluster.kueue.kubeconfig",
                "TESTCLUSTER_KUEUE=1 TESTCLUSTER_PORT_BASE=28400"
                        + " TESTCLUSTER_STATE=$PWD/testcluster/.state-kueue testcluster/up.sh",
                "testcluster/.state-kueue/kubeconfig");
    }

    /** The admin kubeconfig of MultiKueueIT's worker, a control plane with Kueue that the build starts too. */
    static Path kueueWorkerKubeconfig() {
        return kubeconfig(
                "testcluster.kueue.worker.kubeconfig",
                "TESTCLUSTER_KUEUE=1 TESTCLUSTER_PORT_BASE=28800"
                        + " TESTCLUSTER_STATE=$PWD/testcluster/.state-kueue-worker testcluster/up.sh",
                "testcluster/.state-kueue-worker/kubeconfig");
    }

    private static Path kubeconfig(String property, String up, String path) {
        String given = System.getProperty(property);
        if (given == null || !Files.isReadable(Path.of(given))) {
            throw new IllegalStateException(
                    "no control plane: run " + up + " (mvn verify does) and pass -D" + property + "=" + path);
        }
        return Path.of(given);
    }

    static KubernetesClient client(Path kubeconfig) {
        try {
            Config config = Config.fromKubeconfig(Files.readString(kubeconfig));
            return new KubernetesClientBuilder().withConfig(config).build();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static final ResourceDefinitionContext CLUSTER_TRAINING_RUNTIMES = new ResourceDefinitionContext.Builder()
            .withGroup("trainer.kubeflow.org")
            .withVersion("v1alpha1")
            .withPlural("clustertrainingruntimes")
            .withKind("ClusterTrainingRuntime")
            .withNamespaced(false)
            .build();
    private static final ResourceDefinitionContext TRAINING_RUNTIMES = new ResourceDefinitionContext.Builder()
            .withGroup("trainer.kubeflow.org")
            .withVersion("v1alpha1")
            .withPlural("trainingruntimes")
            .withKind("TrainingRuntime")
            .withNamespaced(true)
            .build();

    /**
     * Makes a TrainingRuntime in the namespace from a released ClusterTrainingRuntime, as a team copies one: its spec
     * changed by {@code edit}, its labels kept or dropped (without the framework label only mlPolicy tells the
     * launcher).
     */
    void deriveRuntime(String released, String name, boolean keepLabels, Consumer<Map<String, Object>> edit) {
        GenericKubernetesResource source = admin.genericKubernetesResources(CLUSTER_TRAINING_RUNTIMES)
                .withName(released)
                .get();
        @SuppressWarnings("unchecked")
        Map<String, Object> spec =
                (Map<String, Object>) source.getAdditionalProperties().get("spec");
        edit.accept(spec);
        GenericKubernetesResource runtime = new GenericKubernetesResource();
        runtime.setApiVersion("trainer.kubeflow.org/v1alpha1");
        runtime.setKind("TrainingRuntime");
        runtime.setMetadata(new ObjectMetaBuilder()
                .withName(name)
                .withNamespace(namespace)
                .withLabels(keepLabels ? source.getMetadata().getLabels() : Map.of())
                .build());
        runtime.setAdditionalProperty("spec", spec);
        admin.genericKubernetesResources(TRAINING_RUNTIMES)
                .inNamespace(namespace)
                .resource(runtime)
                .create();
    }

    /**
     * Sets the Jobs' backoffLimit, as a user does who wants a failing container to fail the job after that many
     * restarts: the kubelet restarts it with its crash-loop back-off (at once, then 10 s doubling) up to the Job's
     * default of 6 otherwise.
     */
    @SuppressWarnings("unchecked")
    static Consumer<Map<String, Object>> backoffLimit(int limit) {
        return spec -> {
            Map<String, Object> template =
                    (Map<String, Object>) ((Map<String, Object>) spec.get("template")).get("spec");
            for (Object job : (List<Object>) template.get("replicatedJobs")) {
                ((Map<String, Object>) ((Map<String, Object>) ((Map<String, Object>) job).get("template")).get("spec"))
                        .put("backoffLimit", limit);
            }
        };
    }

    /** Sends to a {@code kubeflow-trainer:} URI with the namespace set, and fails on an exception. */
    Exchange request(String uri, Object body) {
        Exchange exchange = template.request(
                uri + (uri.contains("?") ? "&" : "?") + "namespace=" + namespace,
                e -> e.getMessage().setBody(body));
        if (exchange.getException() != null) {
            throw new AssertionError(uri + " failed", exchange.getException());
        }
        return exchange;
    }

    /** Sends an exchange on (wait, logs, ...) keeping its headers, and fails on an exception. */
    Exchange then(String uri, Exchange previous) {
        Exchange exchange = template.send(uri, previous.copy());
        if (exchange.getException() != null) {
            throw new AssertionError(uri + " failed", exchange.getException());
        }
        return exchange;
    }

    @Override
    public void close() {
        camel.stop();
        admin.rbac()
                .clusterRoleBindings()
                .withName(DeployedAccount.bindingName(namespace))
                .delete();
        admin.namespaces().withName(namespace).delete();
        admin.close();
    }
}
