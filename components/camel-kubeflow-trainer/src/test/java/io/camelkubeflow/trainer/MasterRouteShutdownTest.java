package io.camelkubeflow.trainer;

import static io.camelkubeflow.trainer.KubeflowTrainerConstants.ANNOTATIONS;
import static io.camelkubeflow.trainer.KubeflowTrainerConstants.JOB_NAME;
import static io.camelkubeflow.trainer.sandbox.cluster.TrainJobControllerEmulation.LOG_LINES_ANNOTATION;
import static io.camelkubeflow.trainer.sandbox.cluster.TrainJobControllerEmulation.RUN_MILLIS_ANNOTATION;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.camelkubeflow.trainer.testing.Eventually;
import io.camelkubeflow.trainer.testing.TrainerApiServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.camel.CamelContext;
import org.apache.camel.Exchange;
import org.apache.camel.ProducerTemplate;
import org.apache.camel.builder.RouteBuilder;
import org.apache.camel.component.file.cluster.FileLockClusterService;
import org.apache.camel.component.master.MasterComponent;
import org.apache.camel.impl.DefaultCamelContext;
import org.apache.camel.support.service.ServiceSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Camel's master consumer stops its route's processors when it stops, without waiting for the exchanges in flight:
 * a log read's exchange going on from the log thread is interrupted at once (seen as a Kafka send's
 * InterruptException in the routes app), and its stopped error handler fails the exchange coming back. The remedy
 * the docs give holds: the work in a direct route, which a graceful shutdown waits for, behind a master route without
 * an error handler.
 */
class MasterRouteShutdownTest {
    @TempDir
    Path work;

    @Test
    void anExchangeInTheDirectRouteBehindAMasterRouteFinishesUninterruptedWhenCamelStops() throws Exception {
        Path inbox = Files.createDirectories(work.resolve("inbox"));
        CountDownLatch entered = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        AtomicBoolean interrupted = new AtomicBoolean();
        try (TrainerApiServer api = TrainerApiServer.start();
                CamelContext camel = new DefaultCamelContext()) {
            camel.getComponent("kubeflow-trainer", KubeflowTrainerComponent.class)
                    .setKubernetesClient(api.client());
            FileLockClusterService cluster = new FileLockClusterService();
            cluster.setRoot(work.resolve("cluster").toString());
            cluster.setAcquireLockDelay(100, TimeUnit.MILLISECONDS);
            camel.addService(cluster, true, true);
            MasterComponent master = new MasterComponent();
            master.setService(cluster);
            camel.addComponent("master", master);
            ProducerTemplate template = camel.createProducerTemplate();
            camel.start();
            Exchange trained = template.send(
                    "kubeflow-trainer:train?runtime=torch-distributed&namespace=logs&pythonFile=/a.py",
                    e -> e.getMessage()
                            .setHeader(ANNOTATIONS, Map.of(LOG_LINES_ANNOTATION, "3", RUN_MILLIS_ANNOTATION, "100")));
            assertNull(template.send("kubeflow-trainer:wait", trained).getException());
            String job = trained.getMessage().getHeader(JOB_NAME, String.class);
            camel.addRoutes(new RouteBuilder() {
                @Override
                public void configure() {
                    from("master:inbox:file:" + inbox + "?initialDelay=0&delay=100")
                            .routeId("inbox")
                            // its error handler is stopped with it, and would fail the exchange coming back
                            .errorHandler(noErrorHandler())
                            .setHeader(JOB_NAME, constant(job))
                            .to("direct:read");
                    from("direct:read")
                            .to("kubeflow-trainer:logs?namespace=logs&tailLines=5")
                            .process(e -> {
                                entered.countDown();
                                try {
                                    release.await();
                                } catch (InterruptedException stopped) {
                                    interrupted.set(true);
                                    throw stopped;
                                }
                            });
                }
            });
            Files.writeString(inbox.resolve("go"), "read the log");
            assertTrue(entered.await(60, TimeUnit.SECONDS), "the log was never read");

            CompletableFuture<Void> stopping = CompletableFuture.runAsync(camel::stop);
            // the master consumer's stop is where the exchange would be interrupted (it stops the route's processors)
            ServiceSupport inboxConsumer =
                    (ServiceSupport) camel.getRoute("inbox").getConsumer();
            Eventually.await(Duration.ofSeconds(60), inboxConsumer::isStopped, () -> "the master route never stopped");
            release.countDown();
            stopping.get(60, TimeUnit.SECONDS);

            assertFalse(interrupted.get(), "the exchange was interrupted");
            assertTrue(
                    Files.exists(inbox.resolve(".camel/go")), "the exchange did not end well: the file was not done");
        }
    }
}
