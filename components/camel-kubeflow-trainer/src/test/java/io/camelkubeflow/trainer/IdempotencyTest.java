package io.camelkubeflow.trainer;

import static io.camelkubeflow.trainer.KubeflowTrainerConstants.*;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.camelkubeflow.trainer.api.TrainJob;
import io.camelkubeflow.trainer.job.TrainJobConflictException;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.camel.Exchange;
import org.apache.camel.builder.RouteBuilder;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Idempotency as the Idempotency-Key draft defines it: the same key and the same request adopt the job it made; the
 * same key with a different request is a conflict naming what differs; train steps never share a derived key; and
 * concurrent retries of one key all end as created or adopted.
 */
class IdempotencyTest extends TrainerRouteTestSupport {
    private static final String TORCH_SCRIPT =
            "kubeflow-trainer:train?runtime=torch-distributed&namespace=idem" + "&bodyType=ignore";
    private static final String TORCH = TORCH_SCRIPT + "&pythonFile=/app/train.py";

    @BeforeAll
    static void routes() throws Exception {
        camel.addRoutes(new RouteBuilder() {
            @Override
            public void configure() {
                from("direct:two-trainings")
                        .to(TORCH)
                        .setProperty("first", header(JOB_NAME))
                        .to("kubeflow-trainer:train?runtime=deepspeed-distributed&namespace=idem&bodyType=ignore"
                                + "&pythonFile=/app/train.py");
                // the chain docs/component.md describes, with the default bodyType: each step's output (the TrainJob it
                // made or waited
                // for) is in the body when the next train step reads it
                from("direct:chain-train-train")
                        .to("kubeflow-trainer:train?runtime=torch-distributed&namespace=idem&pythonFile=/app/a.py")
                        .setProperty("first", header(JOB_NAME))
                        .to("kubeflow-trainer:train?runtime=deepspeed-distributed&namespace=idem"
                                + "&pythonFile=/app/b.py");
                from("direct:chain-train-wait-train")
                        .to("kubeflow-trainer:train?runtime=torch-distributed&namespace=idem&pythonFile=/app/a.py")
                        .setProperty("first", header(JOB_NAME))
                        .to("kubeflow-trainer:wait?waitFor=Running&waitTimeout=60s")
                        .to("kubeflow-trainer:train?runtime=deepspeed-distributed&namespace=idem"
                                + "&pythonFile=/app/b.py");
                from("direct:chain-train-as-json-train")
                        .to("kubeflow-trainer:train?runtime=torch-distributed&namespace=idem&pythonFile=/app/a.py")
                        .setProperty("first", header(JOB_NAME))
                        .process(e -> e.getMessage()
                                .setBody(Serialization.asJson(e.getMessage().getBody())))
                        .to("kubeflow-trainer:train?runtime=deepspeed-distributed&namespace=idem"
                                + "&pythonFile=/app/b.py");
            }
        });
    }

    @Test
    void twoTrainStepsOfOneExchangeMakeTwoJobsEachWithItsOwnLauncher() {
        for (Map<String, Object> event : List.<Map<String, Object>>of(
                Map.of(), Map.of("kafka.TOPIC", "retrain", "kafka.PARTITION", 0, "kafka.OFFSET", 7L))) {
            Exchange exchange = send("direct:two-trainings", null, event);
            assertEquals(null, exchange.getException());
            String first = exchange.getProperty("first", String.class);
            String second = exchange.getMessage().getHeader(JOB_NAME, String.class);
            assertNotEquals(first, second, "the second train step adopted the first one's job");
            assertEquals(false, exchange.getMessage().getHeader(ADOPTED));
            assertEquals("mpirun", exchange.getMessage().getHeader(LAUNCHER_CHOSEN));
            assertEquals(
                    "deepspeed-distributed",
                    stored("idem", second).getSpec().runtimeRef().name());
            assertEquals(
                    "torch-distributed",
                    stored("idem", first).getSpec().runtimeRef().name());
        }
        // a redelivered Kafka record (a new exchange, same record) adopts both jobs again, step by step
        int jobs = api.client()
                .resources(TrainJob.class)
                .inNamespace("idem")
                .list()
                .getItems()
                .size();
        Exchange again = send(
                "direct:two-trainings",
                null,
                Map.of("kafka.TOPIC", "retrain", "kafka.PARTITION", 0, "kafka.OFFSET", 7L));
        assertEquals(true, again.getMessage().getHeader(ADOPTED));
        assertEquals(
                jobs,
                api.client()
                        .resources(TrainJob.class)
                        .inNamespace("idem")
                        .list()
                        .getItems()
                        .size());
    }

    @Test
    void aTrainStepDoesNotReadTheJobAnEarlierStepOfTheExchangeAnsweredAsItsRequest() {
        for (String route : List.of(
                "direct:chain-train-train", "direct:chain-train-wait-train", "direct:chain-train-as-json-train")) {
            Exchange exchange = send(route, null, Map.of());
            assertEquals(null, exchange.getException(), route);
            String first = exchange.getProperty("first", String.class);
            String second = exchange.getMessage().getHeader(JOB_NAME, String.class);
            assertNotEquals(first, second, route);
            assertEquals(false, exchange.getMessage().getHeader(ADOPTED), route);
            TrainJob made = stored("idem", second);
            assertEquals("deepspeed-distributed", made.getSpec().runtimeRef().name(), route);
            assertTrue(String.join(" ", made.getSpec().trainer().command()).contains("/app/b.py"), route);
            assertEquals(
                    "torch-distributed",
                    stored("idem", first).getSpec().runtimeRef().name(),
                    route);
        }
    }

    @Test
    void aTrainJobTheCallerPutInTheBodyIsStillReadAsTheRequest() {
        // the rule is about this exchange's own outputs: a TrainJob the caller sends is a request, as documented
        Exchange exchange = send(
                "kubeflow-trainer:train?namespace=idem",
                Map.of(
                        "apiVersion",
                        "trainer.kubeflow.org/v1alpha1",
                        "kind",
                        "TrainJob",
                        "spec",
                        Map.of(
                                "runtimeRef",
                                Map.of("name", "torch-distributed"),
                                "trainer",
                                Map.of("command", List.of("python", "/app/c.py")))),
                Map.of());
        assertEquals(null, exchange.getException());
        TrainJob made = stored("idem", exchange.getMessage().getHeader(JOB_NAME, String.class));
        assertEquals(List.of("python", "/app/c.py"), made.getSpec().trainer().command());
    }

    @Test
    void theSameKeyAndTheSameRequestAdopt() {
        Map<String, Object> request = Map.of(IDEMPOTENCY_KEY, "same-1", NUM_NODES, 2, ENV, Map.of("LR", "0.1"));
        TrainJob first = trainJob(send(TORCH, null, request));
        Exchange retry = send(TORCH, null, request);
        assertEquals(true, retry.getMessage().getHeader(ADOPTED));
        assertEquals(first.getMetadata().getUid(), trainJob(retry).getMetadata().getUid());
    }

    @Test
    void theSameKeyWithADifferentRequestIsAConflictNamingTheKeyAndWhatDiffers() {
        trainJob(send(TORCH_SCRIPT + "&script=print(1)", null, Map.of(IDEMPOTENCY_KEY, "order-9", NUM_NODES, 1)));
        Exchange other =
                send(TORCH_SCRIPT + "&script=print(2)", null, Map.of(IDEMPOTENCY_KEY, "order-9", NUM_NODES, 2));
        TrainJobConflictException conflict = assertInstanceOf(other.getException());
        assertEquals(List.of("script", "spec.trainer.numNodes"), conflict.getDiffering());
        assertTrue(
                conflict.getMessage().contains("'order-9'")
                        && conflict.getMessage().contains("differs in script, spec.trainer.numNodes"),
                conflict.getMessage());
        assertEquals(Map.of("train.py", "print(1)"), stagedScript(stored("idem", conflict.getJobName())));
    }

    private static TrainJobConflictException assertInstanceOf(Exception exception) {
        assertTrue(exception instanceof TrainJobConflictException, String.valueOf(exception));
        return (TrainJobConflictException) exception;
    }

    @Test
    void concurrentRetriesOfOneKeyWithAStagedScriptAllEndCreatedOrAdopted() throws Exception {
        int threads = 10;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        CountDownLatch start = new CountDownLatch(1);
        List<Future<Exchange>> attempts = new ArrayList<>();
        for (int i = 0; i < threads; i++) {
            Callable<Exchange> attempt = () -> {
                start.await();
                return template.send(
                        TORCH_SCRIPT + "&script=print('race')",
                        e -> e.getMessage().setHeader(IDEMPOTENCY_KEY, "race-1"));
            };
            attempts.add(pool.submit(attempt));
        }
        start.countDown();
        int created = 0;
        for (Future<Exchange> attempt : attempts) {
            Exchange exchange = attempt.get();
            assertEquals(null, exchange.getException(), "a retry of a matching request failed");
            created += Boolean.FALSE.equals(exchange.getMessage().getHeader(ADOPTED)) ? 1 : 0;
        }
        pool.shutdown();
        assertEquals(1, created);
        String name = attempts.get(0).get().getMessage().getHeader(JOB_NAME, String.class);
        assertEquals(Map.of("train.py", "print('race')"), stagedScript(stored("idem", name)));
        assertEquals(
                1,
                api.client().resources(TrainJob.class).inNamespace("idem").list().getItems().stream()
                        .filter(job -> job.getMetadata().getName().equals(name))
                        .count());
    }
}
