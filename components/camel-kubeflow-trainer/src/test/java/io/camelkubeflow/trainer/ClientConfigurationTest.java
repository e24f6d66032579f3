package io.camelkubeflow.trainer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.camelkubeflow.trainer.api.TrainJob;
import io.camelkubeflow.trainer.support.InvalidOptionException;
import io.camelkubeflow.trainer.testing.TrainerApiServer;
import java.io.InputStream;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.camel.CamelContext;
import org.apache.camel.Exchange;
import org.apache.camel.ProducerTemplate;
import org.apache.camel.impl.DefaultCamelContext;
import org.apache.camel.impl.engine.DefaultClassResolver;
import org.apache.camel.spi.PropertyConfigurer;
import org.apache.camel.support.PluginHelper;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Where an endpoint's KubernetesClient and options come from: the registry, the connection options, or the component,
 * whose options (camel.component.kubeflow-trainer.*) are the defaults of every endpoint.
 */
class ClientConfigurationTest {
    static TrainerApiServer api;

    @BeforeAll
    static void start() {
        api = TrainerApiServer.start();
    }

    @AfterAll
    static void stop() {
        api.close();
    }

    @Test
    void aClientInTheRegistryIsAutowired() throws Exception {
        try (CamelContext camel = new DefaultCamelContext()) {
            camel.getRegistry().bind("cluster", api.client());
            camel.start();
            Exchange exchange = camel.createProducerTemplate()
                    .send(
                            "kubeflow-trainer:train?runtime=torch-distributed&namespace=ml&pythonFile=/app/t.py",
                            e -> {});
            assertNull(exchange.getException());
            String uid =
                    exchange.getMessage().getBody(TrainJob.class).getMetadata().getUid();
            assertNotNull(uid);
            // the job was written through the registry's client: the server holds it
            assertTrue(api.client().resources(TrainJob.class).inNamespace("ml").list().getItems().stream()
                    .anyMatch(job -> uid.equals(job.getMetadata().getUid())));
        }
    }

    @Test
    void connectionOptionsBuildAClientThatSendsTheToken() throws Exception {
        String masterUrl = api.client().getMasterUrl().toString();
        String token = api.sandbox().issueToken("client-configuration", "system:masters");
        try (CamelContext camel = new DefaultCamelContext()) {
            camel.start();
            api.mark();
            Exchange exchange = camel.createProducerTemplate()
                    .send(
                            "kubeflow-trainer:train?runtime=torch-distributed"
                                    + "&namespace=ml&pythonFile=/app/t.py&trustCerts=true&oauthToken=RAW(" + token
                                    + ")&masterUrl="
                                    + masterUrl,
                            e -> {});
            assertNull(exchange.getException());
            assertTrue(api.requestsSinceMark().stream()
                    .allMatch(r -> ("Bearer " + token).equals(r.getHeader("Authorization"))));
            // a plain create is one request: no look first, a 409 would be adopted
            assertEquals(
                    1,
                    api.requestsSinceMark().stream()
                            .filter(r -> r.getPath().contains("trainjobs"))
                            .count());
        }
    }

    /** An endpoint's own options win, and what one endpoint adds to a map option never reaches another. */
    @Test
    void componentOptionsApplyToEveryEndpointAndEndpointsOverrideThem() throws Exception {
        try (CamelContext camel = new DefaultCamelContext()) {
            KubeflowTrainerComponent component = camel.getComponent("kubeflow-trainer", KubeflowTrainerComponent.class);
            component.setKubernetesClient(api.client());
            // what Camel Main does with camel.component.kubeflow-trainer.<option>=... : the generated configurer
            PropertyConfigurer configurer = PluginHelper.getConfigurerResolver(camel)
                    .resolvePropertyConfigurer("kubeflow-trainer-component", camel);
            configurer.configure(camel, component, "namespace", "from-component", true);
            configurer.configure(camel, component, "runtime", "torch-distributed", true);
            configurer.configure(camel, component, "numNodes", "2", true);
            configurer.configure(camel, component, "labels", Map.of("team", "vision"), true);
            camel.start();
            ProducerTemplate template = camel.createProducerTemplate();

            TrainJob defaults =
                    trained(template.send("kubeflow-trainer:train?pythonFile=/a.py&labels.extra=x", e -> {}));
            assertEquals("from-component", defaults.getMetadata().getNamespace());
            assertEquals("torch-distributed", defaults.getSpec().runtimeRef().name());
            assertEquals(2, defaults.getSpec().trainer().numNodes());
            assertEquals("vision", defaults.getMetadata().getLabels().get("team"));
            assertEquals("x", defaults.getMetadata().getLabels().get("extra"));

            TrainJob overridden =
                    trained(template.send("kubeflow-trainer:train?pythonFile=/b.py&namespace=own&numNodes=3", e -> {}));
            assertEquals("own", overridden.getMetadata().getNamespace());
            assertEquals(3, overridden.getSpec().trainer().numNodes());
            assertEquals("vision", overridden.getMetadata().getLabels().get("team"));
            assertNull(overridden.getMetadata().getLabels().get("extra"), "one endpoint's labels reached another");
            assertEquals(
                    Map.of("team", "vision"),
                    component.getConfiguration().getLabels(),
                    "an endpoint changed the component's defaults");
        }
    }

    /**
     * The map options Camel binds key by key (torchtuneColumnMap.input=..., nodeSelector.KEY=...) go into the map the
     * endpoint's copy of the configuration holds: copy() must give each endpoint its own map of every one of them.
     */
    @Test
    void whatAnEndpointPutsIntoAMapOptionNeverReachesTheComponentOrAnotherEndpoint() throws Exception {
        try (CamelContext camel = new DefaultCamelContext()) {
            KubeflowTrainerComponent component = camel.getComponent("kubeflow-trainer", KubeflowTrainerComponent.class);
            component.setKubernetesClient(api.client());
            PropertyConfigurer configurer = PluginHelper.getConfigurerResolver(camel)
                    .resolvePropertyConfigurer("kubeflow-trainer-component", camel);
            configurer.configure(
                    camel, component, "torchtuneColumnMap", new LinkedHashMap<>(Map.of("input", "question")), true);
            configurer.configure(camel, component, "nodeSelector", new LinkedHashMap<>(Map.of("zone", "a")), true);

            KubeflowTrainerConfiguration own = camel.getEndpoint(
                            "kubeflow-trainer:train?torchtuneColumnMap.output=answer"
                                    + "&nodeSelector.accelerator=a100",
                            KubeflowTrainerEndpoint.class)
                    .getConfiguration();
            KubeflowTrainerConfiguration other = camel.getEndpoint(
                            "kubeflow-trainer:train?runtime=other", KubeflowTrainerEndpoint.class)
                    .getConfiguration();

            assertEquals(Map.of("input", "question", "output", "answer"), own.getTorchtuneColumnMap());
            assertEquals(Map.of("zone", "a", "accelerator", "a100"), own.getNodeSelector());
            for (KubeflowTrainerConfiguration untouched : List.of(component.getConfiguration(), other)) {
                assertEquals(Map.of("input", "question"), untouched.getTorchtuneColumnMap());
                assertEquals(Map.of("zone", "a"), untouched.getNodeSelector());
            }
        }
    }

    /** One option instead of a cluster: the sandbox starts in this JVM, with the endpoint's namespace made in it. */
    @Test
    void masterUrlSandboxRunsTheComponentOnALocalSandbox() throws Exception {
        try (CamelContext camel = new DefaultCamelContext()) {
            camel.start();
            ProducerTemplate template = camel.createProducerTemplate();
            Exchange trained = template.send(
                    "kubeflow-trainer:train?masterUrl=sandbox&runtime=torch-distributed"
                            + "&namespace=from-jbang&pythonFile=/a.py",
                    e -> {});
            assertEquals("from-jbang", trained(trained).getMetadata().getNamespace());
            Exchange waited = template.send(
                    "kubeflow-trainer:wait?masterUrl=sandbox&namespace=from-jbang&waitTimeout=30s", trained);
            assertNull(waited.getException());
            assertEquals("Complete", waited.getMessage().getHeader(KubeflowTrainerConstants.STATUS));
        }
    }

    /** Without the sandbox's jar the endpoint does not start, and says which option and what to add. */
    @Test
    void masterUrlSandboxWithoutTheSandboxJarNamesTheOptionAndTheFix() throws Exception {
        try (CamelContext camel = new DefaultCamelContext()) {
            camel.setClassResolver(new DefaultClassResolver(camel) {
                @Override
                public InputStream loadResourceAsStream(String uri) {
                    return uri.endsWith("io/camelkubeflow/trainer/local-sandbox")
                            ? null
                            : super.loadResourceAsStream(uri);
                }
            });
            camel.start();
            Exception failure = Assertions.assertThrows(
                    Exception.class,
                    () -> camel.getEndpoint("kubeflow-trainer:train?masterUrl=sandbox&runtime=torch-distributed")
                            .start());
            Throwable cause = failure;
            while (!(cause instanceof InvalidOptionException) && cause.getCause() != null) {
                cause = cause.getCause();
            }
            InvalidOptionException invalid = Assertions.assertInstanceOf(InvalidOptionException.class, cause);
            assertEquals("masterUrl", invalid.getField());
            assertTrue(
                    invalid.getMessage().contains("io.camelkubeflow:camel-kubeflow-trainer-sandbox"),
                    invalid.getMessage());
        }
    }

    private static TrainJob trained(Exchange exchange) {
        assertNull(exchange.getException());
        return exchange.getMessage().getBody(TrainJob.class);
    }
}
