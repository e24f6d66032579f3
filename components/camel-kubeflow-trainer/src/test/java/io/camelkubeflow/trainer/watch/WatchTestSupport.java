package io.camelkubeflow.trainer.watch;

import io.camelkubeflow.trainer.sandbox.TrainerSandbox;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.TestInfo;

/**
 * One sandbox API server (no controller) per test class; per test, fresh informers and a namespace of its own, named
 * for the test, whose TrainJobs the test writes itself.
 */
abstract class WatchTestSupport {
    static TrainerSandbox sandbox;
    WatchConnectionMonitor monitor;
    ClusterInformers informers;
    StoredTrainJobs jobs;
    String namespace;

    @BeforeAll
    static void startSandbox() {
        sandbox = TrainerSandbox.start();
    }

    @AfterAll
    static void stopSandbox() {
        sandbox.close();
    }

    @BeforeEach
    void startInformers(TestInfo test) {
        String method = test.getTestMethod().orElseThrow().getName().toLowerCase();
        namespace = method.substring(0, Math.min(method.length(), 63));
        sandbox.createNamespace(namespace);
        monitor = new WatchConnectionMonitor((watch, down) -> { });
        informers = new ClusterInformers(sandbox.client(), monitor);
        jobs = new StoredTrainJobs(sandbox.client(), namespace);
    }

    @AfterEach
    void stopInformers() {
        informers.close();
        monitor.close();
    }
}
