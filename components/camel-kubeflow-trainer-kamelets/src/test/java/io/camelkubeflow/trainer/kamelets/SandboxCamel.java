package io.camelkubeflow.trainer.kamelets;

import java.time.Duration;

import io.camelkubeflow.trainer.KubeflowTrainerComponent;
import io.camelkubeflow.trainer.sandbox.TrainerSandbox;
import org.apache.camel.CamelContext;
import org.apache.camel.impl.DefaultCamelContext;

/** A sandbox whose emulated controller runs jobs in 250 ms, and a CamelContext whose component talks to it. */
record SandboxCamel(TrainerSandbox sandbox, CamelContext camel) implements AutoCloseable {
    /** The context is not started: add the routes first. */
    static SandboxCamel create() {
        TrainerSandbox sandbox = TrainerSandbox.start(TrainerSandbox.Options.defaults()
                .withController(Duration.ofMillis(50), Duration.ofMillis(200)));
        CamelContext camel = new DefaultCamelContext();
        camel.getComponent("kubeflow-trainer", KubeflowTrainerComponent.class).setKubernetesClient(sandbox.client());
        return new SandboxCamel(sandbox, camel);
    }

    @Override
    public void close() {
        camel.stop();
        sandbox.close();
    }
}
