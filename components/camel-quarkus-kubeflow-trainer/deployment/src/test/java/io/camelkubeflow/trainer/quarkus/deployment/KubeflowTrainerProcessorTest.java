package io.camelkubeflow.trainer.quarkus.deployment;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.Set;

import io.camelkubeflow.trainer.KubeflowTrainerEndpoint;
import io.camelkubeflow.trainer.api.RuntimePatch;
import io.camelkubeflow.trainer.api.RuntimeRef;
import io.camelkubeflow.trainer.api.SharedStrings;
import io.camelkubeflow.trainer.api.TrainJob;
import io.camelkubeflow.trainer.api.TrainJobSpec;
import io.camelkubeflow.trainer.api.TrainJobStatus;
import io.camelkubeflow.trainer.api.Trainer;
import io.camelkubeflow.trainer.sandbox.TrainerSandbox;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.quarkus.deployment.builditem.FeatureBuildItem;
import io.quarkus.deployment.builditem.GeneratedResourceBuildItem;
import io.quarkus.deployment.builditem.nativeimage.ReflectiveClassBuildItem;
import io.quarkus.test.QuarkusUnitTest;
import jakarta.inject.Inject;
import org.apache.camel.CamelContext;
import org.apache.camel.Exchange;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The extension's build steps in a Quarkus build (QuarkusUnitTest): the feature, the model registered for reflection
 * (what a native image needs for Jackson to bind TrainJobs), and the component on Quarkus's KubernetesClient bean,
 * configured by quarkus.kubernetes-client.* (here: pointed at a sandbox).
 */
class KubeflowTrainerProcessorTest {
    /** The build items the build produced, written by a build step of the test into the application as a resource. */
    static final String SEEN = "build-items-seen.properties";
    /**
     * The sandbox, started once: QuarkusUnitTest loads this class twice (to build, to run the tests), and the JVM's
     * properties are what both loads share.
     */
    static final String SANDBOX_KEY = KubeflowTrainerProcessorTest.class.getName() + ".sandbox";

    @RegisterExtension
    static final QuarkusUnitTest QUARKUS = new QuarkusUnitTest()
            .withApplicationRoot(app -> app.addClass(DevServicesSeen.class))
            .overrideConfigKey("quarkus.kubernetes-client.api-server-url", sandbox("url"))
            // the sandbox answers its own token over TLS with its own certificate, as a cluster its admin's
            .overrideConfigKey("quarkus.kubernetes-client.token", sandbox("token"))
            .overrideConfigKey("quarkus.kubernetes-client.ca-cert-data", sandbox("ca-cert-data"))
            .overrideConfigKey("quarkus.kubernetes-client.devservices.enabled", "false")
            .addBuildChainCustomizer(chain -> chain.addBuildStep(context -> {
                List<String> reflective = new ArrayList<>();
                context.consumeMulti(ReflectiveClassBuildItem.class).forEach(item -> reflective.addAll(
                        item.getClassNames()));
                List<String> features = context.consumeMulti(FeatureBuildItem.class).stream()
                        .map(FeatureBuildItem::getName).toList();
                String seen = "features=" + String.join(",", features) + "\nreflective=" + String.join(",", reflective)
                        + "\n";
                context.produce(new GeneratedResourceBuildItem(SEEN, seen.getBytes(StandardCharsets.UTF_8)));
            }).consumes(ReflectiveClassBuildItem.class).consumes(FeatureBuildItem.class)
                    .produces(GeneratedResourceBuildItem.class).build())
            .addBuildChainCustomizer(DevServicesSeen.CUSTOMIZER);

    @Inject
    CamelContext camel;

    @Inject
    KubernetesClient quarkusClient;

    /** The sandbox's "url", "token" or "ca-cert-data", for the client's configuration. */
    private static synchronized String sandbox(String setting) {
        if (System.getProperty(SANDBOX_KEY + ".url") == null) {
            TrainerSandbox sandbox = TrainerSandbox.start(TrainerSandbox.Options.standalone());
            sandbox.createNamespace("extension");
            System.getProperties().put(SANDBOX_KEY, sandbox);
            System.setProperty(SANDBOX_KEY + ".url", sandbox.masterUrl());
            System.setProperty(SANDBOX_KEY + ".token", sandbox.client().getConfiguration().getOauthToken());
            System.setProperty(SANDBOX_KEY + ".ca-cert-data", sandbox.client().getConfiguration().getCaCertData());
        }
        return System.getProperty(SANDBOX_KEY + "." + setting);
    }

    @AfterAll
    static void stopSandbox() throws Exception {
        // of whichever load started it
        for (String setting : List.of("url", "token", "ca-cert-data")) {
            System.clearProperty(SANDBOX_KEY + "." + setting);
        }
        if (System.getProperties().remove(SANDBOX_KEY) instanceof AutoCloseable sandbox) {
            sandbox.close();
        }
    }

    private static List<String> seen(String what) throws Exception {
        Properties seen = new Properties();
        try (var in = Thread.currentThread().getContextClassLoader().getResourceAsStream(SEEN)) {
            seen.load(in);
        }
        return List.of(seen.getProperty(what).split(","));
    }

    @Test
    void theFeatureIsInstalled() throws Exception {
        assertTrue(seen("features").contains(KubeflowTrainerProcessor.FEATURE), seen("features").toString());
    }

    @Test
    void noDevServiceStartsWhenAClusterIsConfigured() throws Exception {
        assertEquals(List.of(), DevServicesSeen.features(),
                "Dev Services the build asked for");
    }

    @Test
    void theModelJacksonBindsIsRegisteredForReflection() throws Exception {
        List<String> reflective = seen("reflective");
        for (Class<?> model : List.of(TrainJob.class, TrainJobSpec.class, TrainJobStatus.class, Trainer.class,
                RuntimeRef.class, RuntimePatch.class, SharedStrings.Deserializer.class)) {
            assertTrue(reflective.contains(model.getName()), model.getName() + " in " + reflective.stream()
                    .filter(name -> name.startsWith("io.camelkubeflow")).toList());
        }
    }

    @Test
    void theComponentTrainsOnQuarkusKubernetesClient() {
        KubeflowTrainerEndpoint endpoint = camel.getEndpoint("kubeflow-trainer:train?runtime=torch-distributed"
                + "&namespace=extension&pythonFile=/app/train.py", KubeflowTrainerEndpoint.class);
        Exchange trained = camel.createProducerTemplate().send(endpoint, e -> { });
        assertNull(trained.getException());
        assertSame(quarkusClient, endpoint.getClient(), "the endpoint uses the KubernetesClient bean");
        TrainJob job = trained.getMessage().getBody(TrainJob.class);
        assertEquals(Set.of(job.getMetadata().getName()), Set.copyOf(quarkusClient.resources(TrainJob.class)
                .inNamespace("extension").list().getItems().stream().map(j -> j.getMetadata().getName()).toList()),
                "the job is in the sandbox quarkus.kubernetes-client.api-server-url names");
    }
}
