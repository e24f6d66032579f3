package io.camelkubeflow.trainer.watch;

import io.camelkubeflow.trainer.sandbox.TrainerSandbox;
import io.camelkubeflow.trainer.testing.Eventually;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.TestInfo;

/**
 * One sandbox API server (no controller) per test class; per test, fresh informers and a namespace of its own, named
 * for the test, whose TrainJobs (and, for log reads, pods and their logs) the test writes itself.
 */
public abstract class WatchTestSupport {
    protected static TrainerSandbox sandbox;
    protected WatchConnectionMonitor monitor;
    protected ClusterInformers informers;
    StoredTrainJobs jobs;
    protected String namespace;

    @BeforeAll
    public static void startSandbox() {
        sandbox = TrainerSandbox.start();
    }

    @AfterAll
    public static void stopSandbox() {
        sandbox.close();
    }

    @BeforeEach
    public void startInformers(TestInfo test) {
        String method = test.getTestMethod().orElseThrow().getName().toLowerCase();
        namespace = method.substring(0, Math.min(method.length(), 63));
        sandbox.createNamespace(namespace);
        monitor = new WatchConnectionMonitor((watch, down) -> {});
        informers = new ClusterInformers(sandbox.client(), monitor);
        jobs = new StoredTrainJobs(sandbox.client(), namespace);
    }

    @AfterEach
    public void stopInformers() {
        informers.close();
        monitor.close();
    }

    /**
     * Stops a scope's informer as fabric8 does when it gives up on a watch error, and waits until the scope has a new
     * informer watching: the sandbox's API server, unlike a real one, does not send a watch what changed between its
     * list and its start, so a change made sooner could be missed by the test's informer, not by the code.
     *
     * @return the stopped informer
     */
    protected static <T> SharedIndexInformer<T> stopAsFabric8Does(Supplier<SharedIndexInformer<T>> scope)
            throws InterruptedException {
        SharedIndexInformer<T> stopped = scope.get();
        stopped.stop();
        Eventually.await(
                Duration.ofSeconds(30),
                () -> {
                    SharedIndexInformer<T> now = scope.get();
                    return now != stopped && now.isWatching();
                },
                () -> "no new informer watching");
        return stopped;
    }

    /**
     * Stops {@code stopped} as fabric8 does while the API server is away, and returns once the move to a new informer
     * has failed (its warning written), with the API server listening again: what listened to the stopped informer
     * moves only if the move is tried again.
     */
    static void stopWhileTheApiServerIsAway(TrainerSandbox sandbox, SharedIndexInformer<?> stopped)
            throws InterruptedException {
        PrintStream err = System.err;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
        try {
            sandbox.stopApiServer();
            stopped.stop();
            Eventually.await(
                    Duration.ofSeconds(60),
                    () -> captured.toString(StandardCharsets.UTF_8)
                            .contains("Could not start an informer in place of one fabric8 stopped"),
                    () -> "no move failed: " + captured.toString(StandardCharsets.UTF_8));
        } finally {
            System.setErr(err);
            sandbox.startApiServer();
        }
    }
}
