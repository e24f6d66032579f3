package io.camelkubeflow.trainer;

import static io.camelkubeflow.trainer.KubeflowTrainerConstants.CALLER_PROPERTY;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.camelkubeflow.trainer.access.AccessDeniedException;
import io.camelkubeflow.trainer.access.Caller;
import io.camelkubeflow.trainer.api.TrainJob;
import io.camelkubeflow.trainer.runtime.RuntimeNotFoundException;
import io.camelkubeflow.trainer.runtime.RuntimePackages;
import io.camelkubeflow.trainer.sandbox.TrainerSandbox;
import io.camelkubeflow.trainer.sandbox.cluster.TrainJobControllerEmulation;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import org.apache.camel.CamelContext;
import org.apache.camel.Exchange;
import org.apache.camel.ProducerTemplate;
import org.apache.camel.impl.DefaultCamelContext;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * runtimePackages runs its script on the runtime as a one-node TrainJob (here with the sandbox's local python3, as a
 * pod's would), answers the packages it printed, and deletes the job; it is a create, reviewed as one.
 */
class RuntimePackagesTest {
    private static final String NAMESPACE = "pkgs";
    private static TrainerSandbox sandbox;
    private static CamelContext camel;
    private static ProducerTemplate template;

    @BeforeAll
    static void start() throws Exception {
        sandbox = TrainerSandbox.start(TrainerSandbox.Options.defaults()
                .withController(Duration.ofMillis(50), Duration.ofMillis(200))
                .withScriptsRun());
        sandbox.createNamespace(NAMESPACE);
        camel = new DefaultCamelContext();
        camel.getComponent("kubeflow-trainer", KubeflowTrainerComponent.class).setKubernetesClient(sandbox.client());
        camel.start();
        template = camel.createProducerTemplate();
    }

    @AfterAll
    static void stop() {
        camel.stop();
        sandbox.close();
    }

    /** "METHOD path" of every write since {@code since}, other than the emulated controller's and the reviews. */
    private static List<String> writesSince(long since) {
        return sandbox.requestsSince(since).stream()
                .filter(r -> !"GET".equals(r.getMethod()))
                .filter(r -> !TrainJobControllerEmulation.USER_AGENT.equals(r.getHeader("User-Agent")))
                .filter(r -> !r.getPath().startsWith("/apis/authorization.k8s.io/"))
                .map(r -> r.getMethod() + " " + r.getPath().replaceAll("\\?.*", ""))
                .toList();
    }

    private static List<RuntimePackages.Package> installedHere() throws IOException, InterruptedException {
        Process pip = new ProcessBuilder("python3", "-m", "pip", "list", "--format=freeze").start();
        String out = new String(pip.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, pip.waitFor());
        return out.lines()
                .filter(line -> line.contains("=="))
                .map(line -> line.split("==", 2))
                .map(parts -> new RuntimePackages.Package(parts[0], parts[1]))
                .toList();
    }

    @Test
    @Timeout(90)
    void thePackagesOfTheRuntimesImageAreWhatItsPythonHasAndTheJobIsGoneAfterwards() throws Exception {
        long since = sandbox.requestCount();
        Exchange read = template.request(
                "kubeflow-trainer:runtimePackages?runtime=torch-distributed&namespace=" + NAMESPACE, e -> {});
        assertNull(read.getException());
        RuntimePackages packages = read.getMessage().getBody(RuntimePackages.class);
        assertEquals("torch-distributed", packages.runtime());
        assertEquals(installedHere(), packages.packages());
        assertTrue(packages.python().startsWith("3."), packages.python());
        assertEquals(
                List.of(),
                sandbox.client()
                        .resources(TrainJob.class)
                        .inNamespace(NAMESPACE)
                        .list()
                        .getItems(),
                "the job that read them is deleted");
        List<String> writes = writesSince(since);
        assertEquals(2, writes.size(), writes.toString());
        assertTrue(
                writes.get(0).startsWith("POST /apis/trainer.kubeflow.org/v1alpha1/namespaces/pkgs/trainjobs"),
                writes.toString());
        assertTrue(
                writes.get(1).startsWith("DELETE /apis/trainer.kubeflow.org/v1alpha1/namespaces/pkgs/trainjobs/"),
                writes.toString());
    }

    @Test
    void itIsReviewedAsACreateAndAMissingRuntimeIsNotFound() {
        long since = sandbox.requestCount();
        Exchange refused = template.request(
                "kubeflow-trainer:runtimePackages?authorizeCaller=true" + "&runtime=torch-distributed&namespace="
                        + NAMESPACE,
                e -> e.setProperty(CALLER_PROPERTY, new Caller("dave", List.of())));
        assertEquals(
                "caller 'dave' may not create trainjobs.trainer.kubeflow.org in namespace pkgs",
                assertInstanceOf(AccessDeniedException.class, refused.getException())
                        .getMessage());
        Exchange missing = template.request(
                "kubeflow-trainer:runtimePackages?runtime=no-such-runtime&namespace=" + NAMESPACE, e -> {});
        assertInstanceOf(RuntimeNotFoundException.class, missing.getException());
        assertEquals(List.of(), writesSince(since), "nothing written");
    }
}
