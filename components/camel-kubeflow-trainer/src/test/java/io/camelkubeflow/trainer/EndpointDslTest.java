package io.camelkubeflow.trainer;

import static io.camelkubeflow.trainer.KubeflowTrainerConstants.*;
import static io.camelkubeflow.trainer.dsl.KubeflowTrainerEndpointBuilderFactory.kubeflowTrainer;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.camelkubeflow.trainer.api.TrainJob;
import io.camelkubeflow.trainer.sandbox.cluster.TrainJobControllerEmulation;
import io.camelkubeflow.trainer.testing.Eventually;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.camel.Exchange;
import org.apache.camel.builder.endpoint.EndpointRouteBuilder;
import org.junit.jupiter.api.Test;

/** The endpoint-DSL builders: one method per option of the catalog, and routes written with them work. */
class EndpointDslTest extends TrainerRouteTestSupport {
    static final Path BUILDERS =
            Path.of("src/generated/java/io/camelkubeflow/trainer/dsl/KubeflowTrainerEndpointBuilderFactory.java");

    @Test
    void everyOptionOfTheCatalogHasABuilderMethod() throws Exception {
        Map<?, ?> catalog = new ObjectMapper()
                .readValue(
                        Path.of("src/generated/resources/META-INF/io/camelkubeflow/trainer/kubeflow-trainer.json")
                                .toFile(),
                        Map.class);
        String builders = Files.readString(BUILDERS);
        List<String> missing = new ArrayList<>();
        ((Map<?, ?>) catalog.get("properties")).forEach((name, option) -> {
            if ("parameter".equals(((Map<?, ?>) option).get("kind")) && !builders.contains(" " + name + "(")) {
                missing.add((String) name);
            }
        });
        assertEquals(List.of(), missing, "run python3 components/camel-kubeflow-trainer/update-endpoint-dsl.py");
    }

    @Test
    void theBuildersMakeTheUrisRoutesUse() {
        assertEquals(
                "kubeflow-trainer://train?env.EPOCHS=3&namespace=dsl&numNodes=2&runtime=torch-distributed"
                        + "&waitTimeout=30m",
                kubeflowTrainer("train")
                        .runtime("torch-distributed")
                        .numNodes(2)
                        .env("EPOCHS", 3)
                        .namespace("dsl")
                        .waitTimeout("30m")
                        .getRawUri());
        assertEquals(
                "kubeflow-trainer://events?emitExisting=true&labelSelector=team=vision&progressInterval=30000",
                kubeflowTrainer("events")
                        .labelSelector("team=vision")
                        .emitExisting(true)
                        .progressInterval(30_000L)
                        .getRawUri());
    }

    @Test
    void aRouteWrittenWithTheBuildersTrainsWaitsAndHearsTheEnd() throws Exception {
        List<String> ends = new CopyOnWriteArrayList<>();
        camel.addRoutes(new EndpointRouteBuilder() {
            @Override
            public void configure() {
                from(direct("retrain"))
                        .to(kubeflowTrainer("train")
                                .runtime("torch-distributed")
                                .namespace("dsl")
                                .pythonFile("/app/train.py")
                                .env("EPOCHS", "3")
                                .labels("team", "vision"))
                        .to(kubeflowTrainer("wait").namespace("dsl").waitTimeout("30s"));
                from(kubeflowTrainer("events").namespace("dsl").labelSelector("team=vision"))
                        .filter(header(STATUS).isEqualTo("Complete"))
                        .process(e -> ends.add(e.getMessage().getHeader(JOB_NAME, String.class)));
            }
        });
        Exchange done = template.send(
                "direct:retrain",
                e -> e.getMessage()
                        .setHeader(ANNOTATIONS, Map.of(TrainJobControllerEmulation.RUN_MILLIS_ANNOTATION, "300")));
        assertNull(done.getException());
        assertEquals("Complete", done.getMessage().getHeader(STATUS));
        String job = done.getMessage().getHeader(JOB_NAME, String.class);
        TrainJob written = stored("dsl", job);
        assertEquals("3", written.getSpec().trainer().env().get(0).getValue());
        Eventually.await(Duration.ofSeconds(10), () -> ends.contains(job), () -> "the events route heard " + ends);
    }
}
