package io.camelkubeflow.trainer.job;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.camelkubeflow.trainer.api.TrainJob;
import io.camelkubeflow.trainer.testing.ReliabilityFigures;
import io.fabric8.kubernetes.api.model.Status;
import io.fabric8.kubernetes.api.model.StatusBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.mockwebserver.http.RecordedRequest;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.camel.CamelContext;
import org.apache.camel.Exchange;
import org.apache.camel.impl.DefaultCamelContext;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * How train answers API server errors, on a mock server in expectation mode that scripts each answer: 429 and 5xx
 * are retried with jittered backoff up to a bound, 409 adopts the job of the same key, and 400/403/404/422 fail at
 * once with the server's message. Every request is counted, so a retry storm would show.
 */
class ApiErrorTest {
    static final String JOBS = ScriptedApiServer.JOBS;
    static final AtomicInteger FAULTS = new AtomicInteger();
    static final AtomicInteger RETRIED_AND_RECOVERED = new AtomicInteger();
    static final AtomicInteger FAILED_FAST = new AtomicInteger();
    static final AtomicInteger GAVE_UP_AT_BOUND = new AtomicInteger();
    static final AtomicInteger OVER_BOUND = new AtomicInteger();

    ScriptedApiServer api;
    TrainRequest request;
    String name;

    @BeforeEach
    void scriptedServer() throws Exception {
        api = new ScriptedApiServer();
        // as the component does for the clients it builds: retrying is its job, not fabric8's
        api.client.getConfiguration().setRequestRetryBackoffLimit(0);
        request = new TrainRequest()
                .runtime("torch-distributed")
                .namespace("ml")
                .pythonFile("/app/t.py")
                .idempotencyKey("kafka:t/0/7");
        name = TrainJobMetadata.nameFor(null, "kafka:t/0/7");
    }

    @AfterEach
    void stop() {
        api.close();
    }

    @AfterAll
    static void recordFigures() {
        ReliabilityFigures.record(
                "API errors",
                FAULTS + " scripted error answers; " + RETRIED_AND_RECOVERED
                        + " calls recovered by retrying 429/5xx, " + GAVE_UP_AT_BOUND
                        + " gave up at their bound (5, or 3 as configured), "
                        + FAILED_FAST + " failed fast on 400/403/404/422 with 1 request, 409 adopted; " + OVER_BOUND
                        + " calls sent more requests than their bound",
                OVER_BOUND.get() == 0);
    }

    @Test
    void throttlingAndServerErrorsOnCreateAreRetriedUntilTheCreateSucceeds() throws Exception {
        TrainJob created =
                new TrainJobSubmitter(api.client).prepare(request, null).trainJob();
        created.getMetadata().setUid("created-uid");
        api.server
                .expect()
                .post()
                .withPath(JOBS)
                .andReturn(503, status(503, "etcd leader changed"))
                .once();
        api.server.expect().post().withPath(JOBS).andReturn(429, throttled(0)).once();
        api.server
                .expect()
                .post()
                .withPath(JOBS)
                .andReturn(500, status(500, "internal error"))
                .once();
        api.server.expect().post().withPath(JOBS).andReturn(201, created).once();
        FAULTS.addAndGet(3);

        SubmitResult result = new TrainJobSubmitter(api.client).submit(request, null);

        assertEquals("created-uid", result.trainJob().getMetadata().getUid());
        assertPosts(4);
        RETRIED_AND_RECOVERED.incrementAndGet();
    }

    @Test
    void aServerThatKeepsFailingIsGivenUpOnAfterTheBoundWithItsMessage() throws Exception {
        api.server
                .expect()
                .post()
                .withPath(JOBS)
                .andReturn(503, status(503, "apiserver overloaded"))
                .always();
        FAULTS.addAndGet(5);
        long started = System.nanoTime();

        KubernetesClientException error = assertThrows(
                KubernetesClientException.class, () -> new TrainJobSubmitter(api.client).submit(request, null));

        long millis = (System.nanoTime() - started) / 1_000_000;
        assertEquals(503, error.getCode());
        assertTrue(
                error.getMessage().contains("failed 5 times")
                        && error.getMessage().contains("apiserver overloaded"),
                error.getMessage());
        assertPosts(5);
        // four pauses of 200, 400, 800 and 1600 ms, each at least half of that (no upper bound: a slow machine
        // takes longer, and the count of posts above says no pause was skipped)
        assertTrue(millis >= 1500, "gave up after " + millis + " ms");
        GAVE_UP_AT_BOUND.incrementAndGet();
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(ints = {400, 403, 404, 422})
    void finalAnswersFailAtOnceWithTheServersMessage(int code) throws Exception {
        api.server
                .expect()
                .post()
                .withPath(JOBS)
                .andReturn(code, status(code, "denied by policy check-" + code))
                .always();
        FAULTS.incrementAndGet();

        KubernetesClientException error = assertThrows(
                KubernetesClientException.class, () -> new TrainJobSubmitter(api.client).submit(request, null));

        assertEquals(code, error.getCode());
        assertTrue(error.getMessage().contains("denied by policy check-" + code), error.getMessage());
        assertPosts(1);
        FAILED_FAST.incrementAndGet();
    }

    @Test
    void aConflictAdoptsTheJobOfTheSameKeyEvenWhenItsReadIsThrottled() throws Exception {
        TrainJob winner =
                new TrainJobSubmitter(api.client).prepare(request, null).trainJob();
        winner.getMetadata().setUid("winner-uid");
        api.server
                .expect()
                .post()
                .withPath(JOBS)
                .andReturn(409, status(409, "already exists"))
                .once();
        api.server
                .expect()
                .get()
                .withPath(JOBS + "/" + name)
                .andReturn(429, throttled(1))
                .once();
        api.server
                .expect()
                .get()
                .withPath(JOBS + "/" + name)
                .andReturn(200, winner)
                .once();
        FAULTS.addAndGet(2);
        long started = System.nanoTime();

        SubmitResult result = new TrainJobSubmitter(api.client).submit(request, null);

        assertTrue(result.adopted());
        assertEquals("winner-uid", result.trainJob().getMetadata().getUid());
        assertTrue((System.nanoTime() - started) / 1_000_000 >= 1000, "retryAfterSeconds=1 was not honoured");
        assertPosts(1);
        RETRIED_AND_RECOVERED.incrementAndGet();
    }

    @Test
    void theClientTheComponentBuildsDoesNotStackFabric8RetriesOnItsOwn() throws Exception {
        api.server
                .expect()
                .post()
                .withPath(JOBS)
                .andReturn(500, status(500, "internal error"))
                .always();
        FAULTS.addAndGet(3);
        try (CamelContext camel = new DefaultCamelContext()) {
            camel.start();
            Exchange exchange = camel.createProducerTemplate()
                    .send(
                            "kubeflow-trainer:train?runtime=torch-distributed"
                                    + "&namespace=ml&pythonFile=/app/t.py&apiRetryAttempts=3&apiRetryBackoff=10ms&masterUrl="
                                    + api.client.getMasterUrl() + "&idempotencyKey=kafka:t/0/7",
                            e -> {});
            KubernetesClientException error =
                    assertInstanceOf(KubernetesClientException.class, exchange.getException());
            assertTrue(error.getMessage().contains("failed 3 times"), error.getMessage());
        }
        assertPosts(3);
        GAVE_UP_AT_BOUND.incrementAndGet();
    }

    private void assertPosts(int expected) throws InterruptedException {
        List<String> posts = new ArrayList<>();
        RecordedRequest recorded;
        while ((recorded = api.server.takeRequest(10, TimeUnit.MILLISECONDS)) != null) {
            if ("POST".equals(recorded.getMethod())) {
                posts.add(recorded.getPath());
            }
        }
        if (posts.size() > expected) {
            OVER_BOUND.incrementAndGet();
        }
        assertEquals(expected, posts.size(), "TrainJob creates sent: " + posts);
    }

    private static Status status(int code, String message) {
        return new StatusBuilder()
                .withStatus("Failure")
                .withCode(code)
                .withMessage(message)
                .build();
    }

    private static Status throttled(int retryAfterSeconds) {
        return new StatusBuilder()
                .withStatus("Failure")
                .withCode(429)
                .withReason("TooManyRequests")
                .withMessage("too many requests")
                .withNewDetails()
                .withRetryAfterSeconds(retryAfterSeconds)
                .endDetails()
                .build();
    }
}
