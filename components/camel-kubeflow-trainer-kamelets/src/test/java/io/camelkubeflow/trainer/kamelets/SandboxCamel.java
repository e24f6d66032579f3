package io.camelkubeflow.trainer.kamelets;

import io.camelkubeflow.trainer.KubeflowTrainerComponent;
import io.camelkubeflow.trainer.sandbox.TrainerSandboxExtension;
import java.time.Duration;
import org.apache.camel.CamelContext;
import org.apache.camel.impl.DefaultCamelContext;

/** What these tests run on: the sandbox's JUnit 5 extension (jobs run in 250 ms, in the namespaces the tests and examples use) and a CamelContext that uses it. */
final class SandboxCamel {
    private SandboxCamel() {}

    /** The extension a test class registers: a sandbox whose emulated controller runs jobs in 250 ms. */
    static TrainerSandboxExtension extension() {
        return TrainerSandboxExtension.withController(Duration.ofMillis(50), Duration.ofMillis(200))
                .withNamespaces("examples", "kamelets", "kamelets-progress");
    }

    /** A CamelContext whose kubeflow-trainer component talks to the sandbox; not started: add the routes first. */
    static CamelContext camel(TrainerSandboxExtension trainer) {
        CamelContext camel = new DefaultCamelContext();
        camel.getComponent("kubeflow-trainer", KubeflowTrainerComponent.class).setKubernetesClient(trainer.client());
        return camel;
    }
}
