package io.camelkubeflow.trainer.e2e;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import java.util.UUID;

import io.camelkubeflow.trainer.KubeflowTrainerComponent;
import io.camelkubeflow.trainer.testing.Eventually;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
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
    final KubernetesClient admin;
    final String namespace;
    final CamelContext camel;
    final ProducerTemplate template;

    private RealCluster(KubernetesClient admin, String namespace, CamelContext camel) {
        this.admin = admin;
        this.namespace = namespace;
        this.camel = camel;
        this.template = camel.createProducerTemplate();
    }

    /** A fresh namespace named after the test class, and Camel on the cluster's admin identity. */
    static RealCluster start(Class<?> testClass) throws Exception {
        KubernetesClient admin = client(adminKubeconfig());
        String namespace = testClass.getSimpleName().toLowerCase(Locale.ROOT).replace("it", "")
                + "-" + UUID.randomUUID().toString().substring(0, 6);
        admin.namespaces().resource(new NamespaceBuilder().withNewMetadata().withName(namespace).endMetadata()
                .build()).create();
        // the ServiceAccount admission refuses pods until the controller manager made the namespace's default account
        Eventually.await(Duration.ofSeconds(30),
                () -> admin.serviceAccounts().inNamespace(namespace).withName("default").get() != null,
                () -> "no default service account in " + namespace);
        CamelContext camel = new DefaultCamelContext();
        camel.getComponent("kubeflow-trainer", KubeflowTrainerComponent.class).setKubernetesClient(admin);
        camel.start();
        return new RealCluster(admin, namespace, camel);
    }

    static Path adminKubeconfig() {
        String path = System.getProperty("testcluster.kubeconfig");
        if (path == null || !Files.isReadable(Path.of(path))) {
            throw new IllegalStateException("no control plane: run testcluster/up.sh (mvn verify does) and pass "
                    + "-Dtestcluster.kubeconfig=testcluster/.state/kubeconfig");
        }
        return Path.of(path);
    }

    static KubernetesClient client(Path kubeconfig) {
        try {
            Config config = Config.fromKubeconfig(Files.readString(kubeconfig));
            return new KubernetesClientBuilder().withConfig(config).build();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Sends to a {@code kubeflow-trainer:} URI with the namespace set, and fails on an exception. */
    Exchange request(String uri, Object body) {
        Exchange exchange = template.request(uri + (uri.contains("?") ? "&" : "?") + "namespace=" + namespace,
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
        admin.namespaces().withName(namespace).delete();
        admin.close();
    }
}
