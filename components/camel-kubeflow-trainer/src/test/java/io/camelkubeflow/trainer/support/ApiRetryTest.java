package io.camelkubeflow.trainer.support;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.camelkubeflow.trainer.api.TrainJob;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The retry policy on its own: bounded attempts against a dead API server, and jittered pauses within their cap. */
class ApiRetryTest {
    @Test
    void anApiServerThatDoesNotAnswerIsRetriedUpToTheBound() throws Exception {
        int closedPort;
        try (ServerSocket socket = new ServerSocket(0)) {
            closedPort = socket.getLocalPort();
        }
        AtomicInteger attempts = new AtomicInteger();
        try (KubernetesClient unreachable = new KubernetesClientBuilder()
                .withConfig(new ConfigBuilder()
                        .withMasterUrl("http://127.0.0.1:" + closedPort)
                        .withRequestRetryBackoffLimit(0)
                        .build())
                .build()) {
            KubernetesClientException error = assertThrows(
                    KubernetesClientException.class,
                    () -> new ApiRetry(3, Duration.ofMillis(10), Duration.ofMillis(40))
                            .forClient(unreachable)
                            .call("GET TrainJob", () -> {
                                attempts.incrementAndGet();
                                return unreachable
                                        .resources(TrainJob.class)
                                        .inNamespace("ml")
                                        .withName("x")
                                        .get();
                            }));
            assertTrue(error.getMessage().contains("failed 3 times"), error.getMessage());
        }
        assertEquals(3, attempts.get(), "a connection refused is retried like a 503");
    }

    @Test
    void pausesGrowWithJitterAndStayWithinTheirCap() {
        ApiRetry retry = new ApiRetry(6, Duration.ofMillis(100), Duration.ofMillis(1000));
        for (int attempt = 1; attempt <= 6; attempt++) {
            long cap = Math.min(1000, 100L << (attempt - 1));
            Set<Long> seen = new HashSet<>();
            for (int i = 0; i < 200; i++) {
                long pause = retry.pauseMillis(attempt, 0);
                assertTrue(pause >= cap / 2 && pause <= cap, "pause " + pause + " of attempt " + attempt);
                seen.add(pause);
            }
            assertTrue(seen.size() > 10, "no jitter in " + seen);
        }
        assertEquals(3000, retry.pauseMillis(1, 3000), "the server's retryAfterSeconds is a floor");
    }
}
