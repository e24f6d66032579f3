package io.camelkubeflow.trainer.routes;

import static io.camelkubeflow.trainer.routes.HttpRoutesTest.HTTP;
import static io.camelkubeflow.trainer.routes.HttpRoutesTest.json;
import static io.camelkubeflow.trainer.routes.HttpRoutesTest.localToken;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.camelkubeflow.trainer.api.TrainJob;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.net.URI;
import java.net.URL;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The torchtune builtin trainer's typed fields and the image's own entrypoint, as fields of an HTTP train request. */
@QuarkusTest
@QuarkusTestResource(FreshFolders.class)
class HttpTrainerShapesTest {
    @TestHTTPResource("/trainjobs")
    URL trainjobs;

    @Inject
    KubernetesClient client;

    private HttpResponse<String> post(String body) throws Exception {
        return HTTP.send(
                HttpRequest.newBuilder(URI.create(trainjobs.toString()))
                        .timeout(Duration.ofSeconds(30))
                        .header("Authorization", "Bearer " + localToken())
                        .header("Content-Type", "application/json")
                        .POST(HttpRequest.BodyPublishers.ofString(body))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private int trainJobs() {
        return client.resources(TrainJob.class)
                .inNamespace("default")
                .list()
                .getItems()
                .size();
    }

    @Test
    void theTypedTorchtuneFieldsBecomeTheSdksArgs() throws Exception {
        HttpResponse<String> created = post("{\"runtime\": \"torchtune-llama3.2-1b\", \"torchtuneEpochs\": 1,"
                + " \"torchtuneLoraRank\": 8, \"torchtuneLoraDropout\": 0.05, \"torchtuneLoraApplyToMlp\": true,"
                + " \"torchtuneLoraAttnModules\": [\"q_proj\", \"v_proj\"], \"torchtuneDatasetSource\": \"json\","
                + " \"torchtuneColumnMap\": {\"input\": \"prompt\"}}");
        assertEquals(201, created.statusCode(), created.body());
        assertEquals("builtin", json(created).get("launcher"));
        TrainJob job = client.resources(TrainJob.class)
                .inNamespace("default")
                .withName((String) json(created).get("name"))
                .get();
        assertEquals(List.of("tune", "run"), job.getSpec().trainer().command());
        assertEquals(
                List.of(
                        "epochs=1",
                        "model.apply_lora_to_mlp=True",
                        "model.lora_rank=8",
                        "model.lora_dropout=0.05",
                        "model.lora_attn_modules=[q_proj,v_proj]",
                        "dataset=torchtune.datasets.instruct_dataset",
                        "dataset.source=json",
                        "dataset.column_map={'input': 'prompt'}"),
                job.getSpec().trainer().args());
    }

    @Test
    void badTypedValuesAre400NamingTheFieldAndWriteNothing() throws Exception {
        int before = trainJobs();
        for (Map.Entry<String, String> bad : Map.of(
                        "torchtuneLoraDropout",
                                "{\"runtime\": \"torchtune-llama3.2-1b\", \"torchtuneLoraDropout\": \"0.1\"}",
                        "torchtuneDtype", "{\"runtime\": \"torchtune-llama3.2-1b\", \"torchtuneDtype\": \"fp16\"}",
                        "torchtuneEpochs", "{\"runtime\": \"torchtune-llama3.2-1b\", \"torchtuneEpochs\": 1.5}",
                        "torchtuneColumnMap.instruction",
                                "{\"runtime\": \"torchtune-llama3.2-1b\","
                                        + " \"torchtuneColumnMap\": {\"instruction\": \"q\"}}",
                        "torchtuneBatchSize", "{\"torchtuneBatchSize\": 4}",
                        "torchtuneEpochs/script",
                                "{\"runtime\": \"torchtune-llama3.2-1b\", \"torchtuneEpochs\": 1,"
                                        + " \"script\": \"print(1)\"}",
                        "imageEntrypoint/script",
                                "{\"imageEntrypoint\": true, \"image\": \"team/img:1\"," + " \"script\": \"print(1)\"}",
                        "imageEntrypoint", "{\"imageEntrypoint\": 1}")
                .entrySet()) {
            HttpResponse<String> refused = post(bad.getValue());
            assertEquals(400, refused.statusCode(), bad.getValue() + " -> " + refused.body());
            assertEquals(bad.getKey(), json(refused).get("field"), refused.body());
        }
        assertEquals(before, trainJobs());
    }

    /** The image's entrypoint is the image's program: only where the policy lets a request name its image. */
    @Test
    void theImagesEntrypointIsAnImageOverrideThePolicyRules() throws Exception {
        int before = trainJobs();
        HttpResponse<String> refused = post("{\"imageEntrypoint\": true, \"image\": \"team/img:1\"}");
        assertEquals(403, refused.statusCode(), refused.body());
        assertTrue(String.valueOf(json(refused).get("detail")).contains("policy rule 'imageOverride'"), refused.body());
        assertEquals(before, trainJobs());
    }
}
