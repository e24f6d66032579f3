package io.camelkubeflow.trainer.routes;

import java.time.Duration;
import java.time.Instant;
import java.util.Map;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.camelkubeflow.trainer.api.TrainJob;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** S3 upload -> TrainJob -> report next to the object, against a real in-process S3 server and the sandbox. */
@QuarkusTest
@QuarkusTestResource(S3ServerResource.class)
@QuarkusTestResource(KafkaBrokerResource.class)
class S3RoutesTest {
    static final ObjectMapper JSON = new ObjectMapper();

    @Inject
    KubernetesClient client;

    @Test
    void uploadedScriptsAndDatasetsRetrainAndAreReportedOn() throws Exception {
        S3Server s3 = S3ServerResource.s3;
        s3.put(S3ServerResource.BUCKET, "scripts/retrain.py", "print('retraining from s3')\nprint('METRIC auc=0.8')\n");
        s3.put(S3ServerResource.BUCKET, "datasets/alpaca-2026-12.parquet", "PAR1...");

        Map<?, ?> scriptReport = awaitReport("scripts/retrain.py");
        assertEquals("Complete", scriptReport.get("status"), scriptReport.toString());
        assertEquals("torchrun", scriptReport.get("launcher"));
        assertEquals("s3://training/scripts/retrain.py", scriptReport.get("object"));

        Map<?, ?> datasetReport = awaitReport("datasets/alpaca-2026-12.parquet");
        assertEquals("Complete", datasetReport.get("status"), datasetReport.toString());
        assertEquals("builtin", datasetReport.get("launcher"));
        TrainJob job = client.resources(TrainJob.class).inNamespace("default")
                .withName((String) datasetReport.get("name")).get();
        assertEquals("s3://training/datasets/alpaca-2026-12.parquet", job.getSpec().initializer().dataset().storageUri());
        assertTrue(job.getMetadata().getAnnotations().get("camelkubeflow.io/idempotency-key")
                .startsWith("s3:training/datasets/alpaca-2026-12.parquet@"));

        // with Kafka on (as in these tests), the S3-started jobs are reported on the result topic too
        Map<?, ?> onKafka = KafkaRoutesTest.awaitMatching("trainjob-results",
                r -> scriptReport.get("name").equals(r.get("name")));
        assertEquals(Map.of("auc", "0.8"), onKafka.get("metrics"));
    }

    private static Map<?, ?> awaitReport(String key) throws Exception {
        Instant deadline = Instant.now().plus(Duration.ofSeconds(60));
        String report = null;
        while (report == null && Instant.now().isBefore(deadline)) {
            report = S3ServerResource.s3.get(S3ServerResource.BUCKET, key + ".trainjob.json");
            Thread.sleep(200);
        }
        assertNotNull(report, "no report for " + key);
        return JSON.readValue(report, Map.class);
    }
}
