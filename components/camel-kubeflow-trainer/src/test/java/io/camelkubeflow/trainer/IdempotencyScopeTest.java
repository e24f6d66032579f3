package io.camelkubeflow.trainer;

import static io.camelkubeflow.trainer.KubeflowTrainerConstants.*;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import io.camelkubeflow.trainer.api.TrainJob;
import java.util.Map;
import org.apache.camel.Exchange;
import org.junit.jupiter.api.Test;

/** One key in two scopes names two jobs: no scope's requests can adopt, or pre-empt, another scope's job. */
class IdempotencyScopeTest extends TrainerRouteTestSupport {
    private static final String TRAIN =
            "kubeflow-trainer:train?runtime=torch-distributed&namespace=scopes" + "&pythonFile=/a.py";

    private static Exchange train(String scope) {
        return send(TRAIN, null, Map.of(IDEMPOTENCY_KEY, "kafka:requests/0/42", IDEMPOTENCY_SCOPE, scope));
    }

    @Test
    void theSameKeyInAnotherScopeIsAnotherJob() {
        Exchange kafka = train("kafka");
        Exchange http = train("http:mallory");
        TrainJob kafkaJob = trainJob(kafka);
        TrainJob httpJob = trainJob(http);
        assertNotEquals(kafkaJob.getMetadata().getName(), httpJob.getMetadata().getName());
        assertEquals(false, kafka.getMessage().getHeader(ADOPTED));
        assertEquals(false, http.getMessage().getHeader(ADOPTED), "a key of another scope was adopted");

        Exchange again = train("kafka");
        assertEquals(true, again.getMessage().getHeader(ADOPTED));
        assertEquals(
                kafkaJob.getMetadata().getName(), trainJob(again).getMetadata().getName());
        // the key is recorded as given, with its scope beside it
        Map<String, String> annotations =
                stored("scopes", kafkaJob.getMetadata().getName()).getMetadata().getAnnotations();
        assertEquals("kafka:requests/0/42", annotations.get("camelkubeflow.io/idempotency-key"));
        assertEquals("kafka", annotations.get("camelkubeflow.io/idempotency-scope"));
        assertEquals("kafka:requests/0/42", again.getMessage().getHeader(IDEMPOTENCY_KEY));
    }

    @Test
    void theScopeCanBeTheEndpointsOwn() {
        TrainJob scoped = trainJob(send(TRAIN + "&idempotencyScope=inbox", null, Map.of(IDEMPOTENCY_KEY, "file-1")));
        TrainJob unscoped = trainJob(send(TRAIN, null, Map.of(IDEMPOTENCY_KEY, "file-1")));
        assertNotEquals(scoped.getMetadata().getName(), unscoped.getMetadata().getName());
    }
}
