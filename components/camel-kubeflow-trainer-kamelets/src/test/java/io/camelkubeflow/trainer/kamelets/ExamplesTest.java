package io.camelkubeflow.trainer.kamelets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.camelkubeflow.examples.RetrainRoute;
import io.camelkubeflow.trainer.sandbox.TrainerSandboxExtension;
import org.apache.camel.CamelContext;
import org.apache.camel.Exchange;
import org.apache.camel.support.PluginHelper;
import org.apache.camel.support.ResourceHelper;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The examples in examples/ (Java DSL, YAML DSL, a Pipe of a Kamelet), run as they are against the sandbox. */
class ExamplesTest {
    @RegisterExtension
    static final TrainerSandboxExtension TRAINER = SandboxCamel.extension();

    static CamelContext camel;

    @BeforeAll
    static void start() throws Exception {
        camel = SandboxCamel.camel(TRAINER);
        camel.addRoutes(new RetrainRoute());
        var loader = PluginHelper.getRoutesLoader(camel);
        loader.loadRoutes(
                ResourceHelper.resolveResource(camel, "file:../../examples/yaml/train-wait-report.camel.yaml"));
        loader.loadRoutes(
                ResourceHelper.resolveResource(camel, "file:../../examples/kamelet/trainjob-events-pipe.yaml"));
        camel.start();
    }

    @AfterAll
    static void stop() {
        camel.stop();
    }

    @Test
    void theJavaExampleTrainsAScriptWaitsAndReportsItsLog() {
        Exchange done = camel.createProducerTemplate()
                .send("direct:retrain", e -> e.getMessage().setBody("print('retraining')\n"));
        assertNull(done.getException());
        assertEquals("torchrun", done.getMessage().getHeader("CamelKubeflowTrainerLauncherChosen"));
        String body = done.getMessage().getBody(String.class);
        assertTrue(body.contains(" ended Complete:\n") && body.contains("sandbox: exited with code 0"), body);

        // the Pipe example reports the job's status changes (the Java example's jobs are labelled team=vision)
        Exchange event = camel.createConsumerTemplate().receive("seda:trainjob-events", 10_000);
        assertNotNull(event, "the Pipe sent nothing");
        assertEquals(
                done.getMessage().getHeader("CamelKubeflowTrainerJobName"),
                event.getMessage().getHeader("CamelKubeflowTrainerJobName"));
        // as a CloudEvent: what a broker sink gets is JSON, not the TrainJob object's toString()
        assertTrue(event.getMessage()
                .getHeader("CamelCloudEventType", String.class)
                .startsWith("io.camelkubeflow.trainer.trainjob."));
        assertEquals("application/json", event.getMessage().getHeader("Content-Type"));
        assertTrue(
                event.getMessage().getBody(String.class).startsWith("{\"apiVersion\":\"trainer.kubeflow.org/"),
                event.getMessage().getBody(String.class));
    }

    @Test
    void theYamlExampleRunsAnMpiJobOnTwoNodes() {
        Exchange done = camel.createProducerTemplate().send("direct:yaml-train", e -> {});
        assertNull(done.getException());
        assertEquals("mpirun", done.getMessage().getHeader("CamelKubeflowTrainerLauncherChosen"));
        assertTrue(
                done.getMessage().getBody(String.class).contains(": Complete (AllJobsCompleted) after "),
                done.getMessage().getBody(String.class));
    }
}
