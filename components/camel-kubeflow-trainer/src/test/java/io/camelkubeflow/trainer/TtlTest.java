package io.camelkubeflow.trainer;

import static io.camelkubeflow.trainer.KubeflowTrainerConstants.*;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.camelkubeflow.trainer.api.TrainJob;
import io.camelkubeflow.trainer.job.TrainJobSubmitter;
import io.camelkubeflow.trainer.job.TrainRequest;
import io.camelkubeflow.trainer.sandbox.cluster.TrainJobControllerEmulation;
import io.camelkubeflow.trainer.support.InvalidOptionException;
import io.camelkubeflow.trainer.testing.Eventually;
import io.camelkubeflow.trainer.testing.TrainerApiServer;
import java.time.Duration;
import java.util.Map;
import org.apache.camel.CamelContext;
import org.apache.camel.Exchange;
import org.apache.camel.ProducerTemplate;
import org.apache.camel.impl.DefaultCamelContext;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Test;

/** ttlAfterFinished: finished jobs go once their TTL has passed since their end or their log's capture. */
class TtlTest {
    static final String TRAIN = "kubeflow-trainer:train?runtime=torch-distributed&namespace=ttl&pythonFile=/app/t.py";

    @Test
    void finishedJobsAreDeletedAfterTheirTtlAndOthersAreLeftAlone() throws Exception {
        try (TrainerApiServer api = TrainerApiServer.start();
                CamelContext camel = new DefaultCamelContext()) {
            KubeflowTrainerComponent component = camel.getComponent("kubeflow-trainer", KubeflowTrainerComponent.class);
            component.setKubernetesClient(api.client());
            component.setTtlCheckInterval(100);
            camel.start();
            ProducerTemplate template = camel.createProducerTemplate();

            Exchange expiring = template.send(
                    TRAIN + "&ttlAfterFinished=3s", e -> e.getMessage().setHeader(IDEMPOTENCY_KEY, "ttl-1"));
            Exchange running = template.send(TRAIN + "&ttlAfterFinished=3s", e -> {
                e.getMessage().setHeader(IDEMPOTENCY_KEY, "ttl-2");
                e.getMessage()
                        .setHeader(ANNOTATIONS, Map.of(TrainJobControllerEmulation.RUN_MILLIS_ANNOTATION, "60000"));
            });
            Exchange kept = template.send(TRAIN, e -> e.getMessage().setHeader(IDEMPOTENCY_KEY, "ttl-3"));
            assertNull(template.send("kubeflow-trainer:wait", expiring).getException());
            assertNull(template.send("kubeflow-trainer:wait", kept).getException());
            // reading the finished job's log restarts its clock: it is not deleted under the reader
            assertNull(template.send("kubeflow-trainer:logs", expiring).getException());
            assertNotNull(job(api, expiring).getMetadata().getAnnotations().get("camelkubeflow.io/logs-captured"));

            Eventually.await(
                    Duration.ofSeconds(20), () -> job(api, expiring) == null, () -> "the expired job was not deleted");
            // one more sweep, now: the expired job was the only one due
            assertEquals(0, component.existingReaper(api.client()).sweep(), "a sweep after the expiry deleted more");
            assertNotNull(job(api, running), "a running job is never deleted");
            assertNotNull(job(api, kept), "a job without a TTL is kept");

            InvalidOptionException bad = Assertions.assertThrows(
                    InvalidOptionException.class,
                    () -> new TrainJobSubmitter(api.client())
                            .prepare(
                                    new TrainRequest()
                                            .runtime("torch-distributed")
                                            .pythonFile("/a.py")
                                            .ttlAfterFinishedSeconds(0L),
                                    "ttl"));
            assertEquals("ttlAfterFinished", bad.getField());
        }
    }

    private static TrainJob job(TrainerApiServer api, Exchange trained) {
        return api.client()
                .resources(TrainJob.class)
                .inNamespace("ttl")
                .withName(trained.getMessage().getHeader(JOB_NAME, String.class))
                .get();
    }
}
