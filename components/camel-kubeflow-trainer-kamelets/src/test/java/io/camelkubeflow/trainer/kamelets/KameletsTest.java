package io.camelkubeflow.trainer.kamelets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.camelkubeflow.trainer.api.TrainJob;
import io.camelkubeflow.trainer.sandbox.TrainerSandboxExtension;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.camel.CamelContext;
import org.apache.camel.Exchange;
import org.apache.camel.builder.RouteBuilder;
import org.apache.camel.cloudevents.CloudEvent;
import org.apache.camel.spi.DataType;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Both Kamelets, loaded by camel-kamelet from the classpath as Camel K would, running against the sandbox. */
class KameletsTest {
    @RegisterExtension
    static final TrainerSandboxExtension TRAINER = SandboxCamel.extension();

    static CamelContext camel;
    static final List<String> EVENTS = new CopyOnWriteArrayList<>();
    static final List<Object> PROGRESS = new CopyOnWriteArrayList<>();
    static final List<String> CLOUD_EVENTS = new CopyOnWriteArrayList<>();

    @BeforeAll
    static void start() throws Exception {
        camel = SandboxCamel.camel(TRAINER);
        camel.addRoutes(new RouteBuilder() {
            @Override
            public void configure() {
                from("direct:train-and-wait")
                        .to("kamelet:kubeflow-trainer-action?runtime=deepspeed-distributed&namespace=kamelets"
                                + "&pythonFile=/app/ds.py&args=--epochs 2&numNodes=2&wait=true&waitTimeout=30s");
                from("direct:train")
                        .to("kamelet:kubeflow-trainer-action?runtime=torch-distributed&namespace=kamelets"
                                + "&bodyType=script");
                from("kamelet:kubeflow-trainjob-source?namespace=kamelets-progress&progressInterval=100ms")
                        .filter(header("CamelKubeflowTrainerEvent").isEqualTo("Progress"))
                        .process(e -> PROGRESS.add(e.getMessage().getHeader("CamelKubeflowTrainerProgressPercent")));
                from("kamelet:kubeflow-trainjob-source?namespace=kamelets")
                        .process(e -> EVENTS.add(e.getMessage().getHeader("CamelKubeflowTrainerJobName") + ":"
                                + e.getMessage().getHeader("CamelKubeflowTrainerEvent")))
                        // what a Pipe to Kafka or Knative sends: structured CloudEvents
                        .transformDataType(new DataType("application-cloudevents+json"))
                        .process(e -> CLOUD_EVENTS.add(e.getMessage().getBody(String.class)));
            }
        });
        camel.start();
    }

    @AfterAll
    static void stop() {
        camel.stop();
    }

    @Test
    void theActionStartsALauncherAwareTrainJobAndCanWaitForIt() {
        Exchange waited = camel.createProducerTemplate().send("direct:train-and-wait", e -> {});
        assertNull(waited.getException());
        assertEquals("Complete", waited.getMessage().getHeader("CamelKubeflowTrainerStatus"));
        // a CloudEvent: the TrainJob's JSON, its attributes in Camel's CloudEvent headers
        assertEquals("application/json", waited.getMessage().getHeader(Exchange.CONTENT_TYPE));
        assertEquals(
                "io.camelkubeflow.trainer.trainjob.complete",
                waited.getMessage().getHeader(CloudEvent.CAMEL_CLOUD_EVENT_TYPE));
        TrainJob job = Serialization.unmarshal(waited.getMessage().getBody(String.class), TrainJob.class);
        assertEquals(job.getMetadata().getName(), waited.getMessage().getHeader(CloudEvent.CAMEL_CLOUD_EVENT_SUBJECT));
        assertEquals(
                List.of("mpirun", "--hostfile", "/etc/mpi/hostfile", "python", "/app/ds.py"),
                job.getSpec().trainer().command());
        assertEquals(List.of("--epochs", "2"), job.getSpec().trainer().args());
        assertEquals(2, job.getSpec().trainer().numNodes());

        Exchange started = camel.createProducerTemplate()
                .send("direct:train", e -> e.getMessage().setBody("print('from a kamelet')"));
        assertNull(started.getException());
        assertEquals("torchrun", started.getMessage().getHeader("CamelKubeflowTrainerLauncherChosen"));
        assertNull(started.getMessage().getHeader("CamelKubeflowTrainerStatus"), "no wait unless asked");
    }

    @Test
    void theSourceEmitsStatusChanges() throws Exception {
        Exchange started = camel.createProducerTemplate()
                .send("direct:train", e -> e.getMessage().setBody("print('watched')"));
        String name = started.getMessage().getHeader("CamelKubeflowTrainerJobName", String.class);
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (!EVENTS.contains(name + ":Complete") && System.nanoTime() < deadline) {
            Thread.sleep(50);
        }
        assertEquals(
                List.of(name + ":Created", name + ":Running", name + ":Complete"),
                EVENTS.stream().filter(e -> e.startsWith(name + ":")).toList());
        List<Map<?, ?>> events = new ArrayList<>();
        for (String json : CLOUD_EVENTS) {
            Map<?, ?> event = Serialization.unmarshal(json, Map.class);
            if (name.equals(event.get("subject"))) {
                events.add(event);
            }
        }
        assertEquals(
                List.of(
                        "io.camelkubeflow.trainer.trainjob.created",
                        "io.camelkubeflow.trainer.trainjob.running",
                        "io.camelkubeflow.trainer.trainjob.complete"),
                events.stream().map(event -> event.get("type")).toList());
        for (Map<?, ?> event : events) {
            assertEquals("1.0", event.get("specversion"));
            assertEquals("/apis/trainer.kubeflow.org/v1alpha1/namespaces/kamelets/trainjobs", event.get("source"));
            assertEquals("application/json", event.get("datacontenttype"));
            Map<?, ?> data = (Map<?, ?>) event.get("data");
            assertEquals(name, ((Map<?, ?>) data.get("metadata")).get("name"), "the data is the TrainJob");
        }
        assertEquals(3, events.stream().map(event -> event.get("id")).distinct().count(), "one id per change");
    }

    @Test
    void theSourceEmitsProgressWhenAsked() throws Exception {
        Exchange started = camel.createProducerTemplate()
                .send(
                        "kubeflow-trainer:train?runtime=torch-distributed"
                                + "&namespace=kamelets-progress&pythonFile=/app/t.py",
                        e -> e.getMessage()
                                .setHeader(
                                        "CamelKubeflowTrainerAnnotations",
                                        Map.of(
                                                "sandbox.camelkubeflow.io/report-progress",
                                                "true",
                                                "sandbox.camelkubeflow.io/run-millis",
                                                "1500",
                                                "sandbox.camelkubeflow.io/log-lines",
                                                "2")));
        assertNull(started.getException());
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (!PROGRESS.contains(66) && System.nanoTime() < deadline) {
            Thread.sleep(50);
        }
        assertTrue(PROGRESS.containsAll(List.of(33, 66)), "progress reported through the Kamelet: " + PROGRESS);
    }
}
