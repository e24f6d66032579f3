package io.camelkubeflow.trainer.sandbox;

import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * A JUnit 5 extension that gives a test class a sandbox: a local Kubernetes API server with Kubeflow Trainer
 * installed and its controller emulated, started before the class's first test and closed after its last. Test your
 * own retraining routes against it without a cluster:
 *
 * <pre>
 * &#64;RegisterExtension
 * static TrainerSandboxExtension trainer = TrainerSandboxExtension.withController(Duration.ofMillis(50),
 *         Duration.ofMillis(500)).withNamespaces("ml");
 *
 * &#64;Test
 * void retrains() {
 *     camel.getComponent("kubeflow-trainer", KubeflowTrainerComponent.class)
 *             .setKubernetesClient(trainer.client());
 *     ...
 * }
 * </pre>
 *
 * {@code @ExtendWith(TrainerSandboxExtension.class)} works too (a controller running jobs in 1 s); test and lifecycle
 * methods may then take a {@link TrainerSandbox} or {@link KubernetesClient} parameter.
 */
public final class TrainerSandboxExtension implements BeforeAllCallback, AfterAllCallback, ParameterResolver {
    private final TrainerSandbox.Options options;
    private final String[] namespaces;
    private TrainerSandbox sandbox;

    /** A sandbox whose controller starts TrainJobs after 100 ms and completes them 1 s later. */
    public TrainerSandboxExtension() {
        this(TrainerSandbox.Options.defaults().withController(Duration.ofMillis(100), Duration.ofSeconds(1)));
    }

    public TrainerSandboxExtension(TrainerSandbox.Options options) {
        this(options, new String[0]);
    }

    private TrainerSandboxExtension(TrainerSandbox.Options options, String[] namespaces) {
        this.options = options;
        this.namespaces = namespaces;
    }

    /**
     * The same sandbox with these namespaces made at start (as on a cluster, objects can be created only in namespaces
     * that exist; {@code default} always does).
     */
    public TrainerSandboxExtension withNamespaces(String... names) {
        return new TrainerSandboxExtension(options, names);
    }

    /** A sandbox whose controller starts TrainJobs after {@code startDelay} and completes them {@code runTime} later. */
    public static TrainerSandboxExtension withController(Duration startDelay, Duration runTime) {
        return new TrainerSandboxExtension(TrainerSandbox.Options.defaults().withController(startDelay, runTime));
    }

    /** The running sandbox (between the class's first and last test). */
    public TrainerSandbox sandbox() {
        if (sandbox == null) {
            throw new IllegalStateException("the sandbox runs only while the test class runs");
        }
        return sandbox;
    }

    /** A client of the running sandbox (namespace "test"). */
    public KubernetesClient client() {
        return sandbox().client();
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        sandbox = TrainerSandbox.start(options);
        sandbox.createNamespace(namespaces);
    }

    @Override
    public void afterAll(ExtensionContext context) {
        if (sandbox != null) {
            sandbox.close();
            sandbox = null;
        }
    }

    @Override
    public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
        Class<?> type = parameter.getParameter().getType();
        return type == TrainerSandbox.class || type == KubernetesClient.class;
    }

    @Override
    public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
        return parameter.getParameter().getType() == TrainerSandbox.class ? sandbox() : client();
    }
}
