package io.camelkubeflow.trainer.watch;

import static io.camelkubeflow.trainer.watch.StoredTrainJobs.RUNNING;
import static io.camelkubeflow.trainer.watch.StoredTrainJobs.condition;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.camelkubeflow.trainer.api.TrainJob;
import io.camelkubeflow.trainer.api.TrainJobNotFoundException;
import io.camelkubeflow.trainer.api.TrainJobPhase;
import io.camelkubeflow.trainer.support.ApiRetry;
import io.camelkubeflow.trainer.testing.Eventually;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Waits against the sandbox's API server with no controller: each test writes the job's status itself, so a wait
 * ends exactly when the test says and nothing depends on timing but the one timeout test's own timeout.
 */
class TrainJobWatcherTest extends WatchTestSupport {
    private static final Duration NO_TIMEOUT = Duration.ZERO;
    private TrainJobWatcher watcher;

    @BeforeEach
    void start() {
        watcher = new TrainJobWatcher(sandbox.client(), informers);
    }

    @AfterEach
    void stop() {
        watcher.close();
    }

    private CompletableFuture<WaitResult> await(String name, TrainJobPhase target, boolean failOnOtherEnd) {
        return watcher.await(namespace, name, target, NO_TIMEOUT, NO_TIMEOUT, failOnOtherEnd, ApiRetry.DEFAULT);
    }

    private static WaitResult result(CompletableFuture<WaitResult> wait) throws Exception {
        return wait.get(10, TimeUnit.SECONDS);
    }

    private static Throwable failure(CompletableFuture<WaitResult> wait) {
        return assertThrows(ExecutionException.class, () -> wait.get(10, TimeUnit.SECONDS))
                .getCause();
    }

    private static String afterCreation(TrainJob job, Duration later) {
        return OffsetDateTime.parse(job.getMetadata().getCreationTimestamp())
                .plus(later)
                .toString();
    }

    private void failedPod(String job, int exitCode) {
        sandbox.client()
                .pods()
                .inNamespace(namespace)
                .resource(Serialization.unmarshal("""
                metadata: {name: %s-node-0-0, labels: {jobset.sigs.k8s.io/jobset-name: %s}}
                spec: {containers: [{name: node, image: i}]}
                status: {containerStatuses: [{name: node, state: {terminated: {exitCode: %d, reason: Error}}}]}
                """.formatted(job, job, exitCode), Pod.class))
                .create();
    }

    @Test
    void aJobThatEndedBeforeTheWaitIsSeenAtOnceWithItsReasonAndHowLongItTook() throws Exception {
        TrainJob created = jobs.create("done");
        jobs.status(
                "done",
                condition(
                        "Complete",
                        "AllJobsCompleted",
                        "all jobs done",
                        afterCreation(created, Duration.ofSeconds(90))));
        WaitResult result = result(await("done", TrainJobPhase.COMPLETE, true));
        assertEquals(TrainJobPhase.COMPLETE, result.phase());
        assertEquals("AllJobsCompleted", result.reason());
        assertEquals("all jobs done", result.message());
        assertNull(result.podDetail());
        assertEquals(Duration.ofSeconds(90), result.jobDuration());
        assertEquals("done", result.trainJob().getMetadata().getName());
    }

    /** An events consumer over all namespaces runs: a wait reads its cache, and lists and watches nothing more. */
    @Test
    void aWaitServedByTheAllNamespacesInformerListsAndWatchesNothingMore() throws Exception {
        var all = informers.trainJobs(null, null);
        informers.trainJobPods(null);
        jobs.create("shared");
        Eventually.await(
                Duration.ofSeconds(30),
                () -> all.getStore().getByKey(namespace + "/shared") != null,
                () -> "never cached");
        long since = sandbox.requestCount();
        CompletableFuture<WaitResult> wait = await("shared", TrainJobPhase.COMPLETE, true);
        jobs.status("shared", condition("Complete", "AllJobsCompleted", "m", "2026-01-01T00:00:00Z"));
        assertEquals(TrainJobPhase.COMPLETE, result(wait).phase());
        assertEquals(
                List.of("/apis/trainer.kubeflow.org/v1alpha1/namespaces/" + namespace + "/trainjobs/shared"),
                sandbox.requestsSince(since).stream()
                        .filter(r -> "GET".equals(r.getMethod()))
                        .map(r -> r.getPath())
                        .toList(),
                "read besides the test's own GET of its job");
    }

    @Test
    void aWaitEndsWhenTheWatchedJobReachesItsPhaseNotBefore() throws Exception {
        jobs.create("later");
        jobs.create("other");
        CompletableFuture<WaitResult> wait = await("later", TrainJobPhase.COMPLETE, true);
        CompletableFuture<WaitResult> other = await("other", TrainJobPhase.COMPLETE, true);
        jobs.status("later", RUNNING);
        jobs.status("other", condition("Complete", "AllJobsCompleted", "m", "2026-01-01T00:00:00Z"));
        // the namespace's handler is told of changes in order: once other's wait ended, later's Running was seen
        result(other);
        TrainJob created = jobs.get("later");
        assertFalse(wait.isDone(), "ended before its job did");
        assertEquals(1, watcher.pendingWaits());
        jobs.status(
                "later", condition("Complete", "AllJobsCompleted", "m", afterCreation(created, Duration.ofSeconds(5))));
        assertEquals(TrainJobPhase.COMPLETE, result(wait).phase());
        assertEquals(0, watcher.pendingWaits());
    }

    @Test
    void waitingForRunningEndsWhenItRunsOrHasAlreadyCompleted() throws Exception {
        jobs.create("runs");
        CompletableFuture<WaitResult> running = await("runs", TrainJobPhase.RUNNING, true);
        jobs.status("runs", RUNNING);
        WaitResult result = result(running);
        assertEquals(TrainJobPhase.RUNNING, result.phase());
        assertNull(result.reason());
        assertTrue(
                result.jobDuration().compareTo(Duration.ZERO) >= 0,
                result.jobDuration().toString());

        jobs.create("quick");
        jobs.status("quick", condition("Complete", "AllJobsCompleted", "m", "2026-01-01T00:00:00Z"));
        assertEquals(
                TrainJobPhase.COMPLETE,
                result(await("quick", TrainJobPhase.RUNNING, true)).phase());
    }

    @Test
    void aFailureWhileWaitingForCompleteFailsWithReasonMessageAndTheFailedPod() throws Exception {
        jobs.create("fails");
        failedPod("fails", 137);
        CompletableFuture<WaitResult> wait = await("fails", TrainJobPhase.COMPLETE, true);
        jobs.status("fails", condition("Failed", "FailedJobs", "jobset failed", "2026-01-01T00:00:00Z"));
        TrainJobFailedException failed = assertInstanceOf(TrainJobFailedException.class, failure(wait));
        assertEquals(
                "TrainJob " + namespace + "/fails is Failed, not Complete: FailedJobs: jobset failed;"
                        + " pod fails-node-0-0 container node exited with code 137 (Error)",
                failed.getMessage());
        assertEquals(TrainJobPhase.FAILED, failed.getResult().phase());
    }

    @Test
    void withoutFailingOnAnotherEndTheFailureIsTheResult() throws Exception {
        jobs.create("fails");
        failedPod("fails", 2);
        CompletableFuture<WaitResult> wait = await("fails", TrainJobPhase.COMPLETE, false);
        jobs.status("fails", condition("Failed", "FailedJobs", "jobset failed", "2026-01-01T00:00:00Z"));
        WaitResult result = result(wait);
        assertEquals(TrainJobPhase.FAILED, result.phase());
        assertEquals("FailedJobs", result.reason());
        assertEquals("pod fails-node-0-0 container node exited with code 2 (Error)", result.podDetail());
    }

    @Test
    void waitingForFailedEndsNormallyOnAFailureWithThePodDetail() throws Exception {
        jobs.create("fails");
        failedPod("fails", 1);
        CompletableFuture<WaitResult> wait = await("fails", TrainJobPhase.FAILED, true);
        jobs.status("fails", condition("Failed", "FailedJobs", "jobset failed", "2026-01-01T00:00:00Z"));
        WaitResult result = result(wait);
        assertEquals(TrainJobPhase.FAILED, result.phase());
        assertEquals("pod fails-node-0-0 container node exited with code 1 (Error)", result.podDetail());
    }

    @Test
    void aCompletionWhileWaitingForFailedFailsWithoutLookingForPods() throws Exception {
        jobs.create("succeeds");
        failedPod("succeeds", 1);
        CompletableFuture<WaitResult> wait = await("succeeds", TrainJobPhase.FAILED, true);
        jobs.status("succeeds", condition("Complete", "AllJobsCompleted", "done", "2026-01-01T00:00:00Z"));
        TrainJobFailedException otherEnd = assertInstanceOf(TrainJobFailedException.class, failure(wait));
        assertEquals(
                "TrainJob " + namespace + "/succeeds is Complete, not Failed: AllJobsCompleted: done",
                otherEnd.getMessage());
    }

    @Test
    void aTimeoutNamesTheWantedAndTheLastSeenPhaseAndProgress() {
        jobs.create("slow");
        jobs.status("slow", RUNNING + "\ntrainerStatus: {progressPercentage: 40}");
        CompletableFuture<WaitResult> wait = watcher.await(
                namespace, "slow", TrainJobPhase.COMPLETE, Duration.ofMillis(300), NO_TIMEOUT, true, ApiRetry.DEFAULT);
        TrainJobWaitTimeoutException timeout = assertInstanceOf(TrainJobWaitTimeoutException.class, failure(wait));
        assertEquals(
                "TrainJob " + namespace + "/slow did not become Complete within PT0.3S (last seen Running, 40%)",
                timeout.getMessage());
        assertEquals(0, watcher.pendingWaits());
        assertEquals(TrainJobPhase.RUNNING, TrainJobPhase.of(jobs.get("slow")), "a timeout leaves the job as it is");
    }

    @Test
    void aMissingJobIsNotFoundAtOnceAndADeletedOneWhileWaiting() throws Exception {
        TrainJobNotFoundException missing =
                assertInstanceOf(TrainJobNotFoundException.class, failure(await("nope", TrainJobPhase.COMPLETE, true)));
        assertEquals(
                "TrainJob " + namespace + "/nope does not exist; check its name and namespace", missing.getMessage());

        jobs.create("gone");
        CompletableFuture<WaitResult> wait = await("gone", TrainJobPhase.COMPLETE, true);
        jobs.delete("gone");
        TrainJobNotFoundException deleted = assertInstanceOf(TrainJobNotFoundException.class, failure(wait));
        assertEquals(
                "TrainJob " + namespace + "/gone was deleted while waiting for it to become Complete",
                deleted.getMessage());
    }

    @Test
    void pendingWaitsCountEveryWaitUntilItEnds() throws Exception {
        jobs.create("a");
        jobs.create("b");
        CompletableFuture<WaitResult> first = await("a", TrainJobPhase.COMPLETE, true);
        CompletableFuture<WaitResult> second = await("a", TrainJobPhase.RUNNING, true);
        CompletableFuture<WaitResult> third = await("b", TrainJobPhase.COMPLETE, true);
        assertEquals(3, watcher.pendingWaits());
        jobs.status("a", RUNNING);
        assertEquals(TrainJobPhase.RUNNING, result(second).phase());
        assertEquals(2, watcher.pendingWaits());
        jobs.status("a", condition("Complete", "AllJobsCompleted", "m", "2026-01-01T00:00:00Z"));
        result(first);
        assertEquals(1, watcher.pendingWaits());
        assertFalse(third.isDone());
    }

    /**
     * A job Kueue keeps suspended in its queue past the wait's queueTimeout: the wait fails with
     * TrainJobQueueTimeoutException (a wait timeout), long before its waitTimeout. (The sandbox has no Kueue: the
     * message says its Workload could not be read; KueueIT reads Kueue's reason.)
     */
    @Test
    void aJobThatStaysInItsKueueQueuePastQueueTimeoutEndsTheWait() {
        jobs.createQueued("waiting", "team-a");
        CompletableFuture<WaitResult> wait = watcher.await(
                namespace,
                "waiting",
                TrainJobPhase.COMPLETE,
                Duration.ofHours(1),
                Duration.ofMillis(300),
                true,
                ApiRetry.DEFAULT);
        TrainJobQueueTimeoutException queued = assertInstanceOf(TrainJobQueueTimeoutException.class, failure(wait));
        assertEquals(
                "TrainJob " + namespace + "/waiting was still waiting in Kueue's queue after queueTimeout PT0.3S"
                        + " (its Workload could not be read)",
                queued.getMessage());
        assertEquals(0, watcher.queuedTimeouts(), "the waitTimeout went with the wait");
    }

    /** Admitted before its queueTimeout: the bound no longer applies, and the wait ends as its job does. */
    @Test
    void anAdmittedJobIsNoLongerBoundByQueueTimeout() throws Exception {
        jobs.createQueued("admitted", "team-a");
        CompletableFuture<WaitResult> wait = watcher.await(
                namespace,
                "admitted",
                TrainJobPhase.COMPLETE,
                Duration.ofHours(1),
                Duration.ofHours(2),
                true,
                ApiRetry.DEFAULT);
        assertEquals(2, watcher.queuedTimeouts(), "the waitTimeout and the queueTimeout");
        jobs.admit("admitted");
        Eventually.await(
                Duration.ofSeconds(10),
                () -> watcher.queuedTimeouts() == 1,
                () -> watcher.queuedTimeouts() + " timeouts queued");
        jobs.status("admitted", condition("Complete", "JobsCompleted", "done", "2026-12-07T00:00:00Z"));
        assertEquals(TrainJobPhase.COMPLETE, result(wait).phase());
        assertEquals(0, watcher.queuedTimeouts());
    }

    @Test
    void aWaitThatEndsLeavesNoTimeoutQueued() throws Exception {
        jobs.create("quick");
        CompletableFuture<WaitResult> wait = watcher.await(
                namespace, "quick", TrainJobPhase.RUNNING, Duration.ofHours(1), NO_TIMEOUT, true, ApiRetry.DEFAULT);
        assertEquals(1, watcher.queuedTimeouts());
        jobs.status("quick", RUNNING);
        result(wait);
        // not an hour later: a busy app would hold every ended wait's timeout until then
        assertEquals(0, watcher.queuedTimeouts());
        assertEquals(0, watcher.pendingWaits());
    }

    @Test
    void waitsFailWhenTheirWatchStops() {
        jobs.create("orphan");
        CompletableFuture<WaitResult> wait = await("orphan", TrainJobPhase.COMPLETE, true);
        informers.close();
        IllegalStateException stopped = assertInstanceOf(IllegalStateException.class, failure(wait));
        assertEquals("the TrainJob watch of namespace " + namespace + " stopped", stopped.getMessage());
    }

    /**
     * fabric8 stops an informer for good on a watch error it does not retry (stopped here as it would); the pending
     * wait moves to the new informer of its namespace and ends when its job does, instead of at its timeout.
     */
    @Test
    void aPendingWaitEndsThoughFabric8StoppedItsInformer() throws Exception {
        jobs.create("kept");
        CompletableFuture<WaitResult> wait = await("kept", TrainJobPhase.RUNNING, true);
        var stopped = stopAsFabric8Does(() -> informers.trainJobs(namespace, null));
        jobs.status("kept", RUNNING);
        assertEquals(TrainJobPhase.RUNNING, result(wait).phase());
        assertNotSame(stopped, informers.trainJobs(namespace, null));
        assertEquals(0, watcher.pendingWaits());
    }

    /**
     * fabric8 stops the informer while the API server is away, so no new one can start: the move is tried again
     * until it works, and the wait ends when its job does, not at its timeout.
     */
    @Test
    void aWaitMovesToANewInformerOnceTheApiServerIsBack() throws Exception {
        jobs.create("outlasting");
        CompletableFuture<WaitResult> wait = await("outlasting", TrainJobPhase.RUNNING, true);
        SharedIndexInformer<TrainJob> stopped = informers.trainJobs(namespace, null);
        stopWhileTheApiServerIsAway(sandbox, stopped);
        Eventually.await(
                Duration.ofSeconds(30),
                () -> {
                    SharedIndexInformer<TrainJob> now = informers.trainJobs(namespace, null);
                    return now != stopped && now.isWatching();
                },
                () -> "no new informer watching");
        jobs.status("outlasting", RUNNING);
        assertEquals(TrainJobPhase.RUNNING, result(wait).phase());
    }

    /** A wait moved to a new informer still fails as not found when its job is deleted. */
    @Test
    void aMovedWaitWhoseJobIsDeletedFailsAsNotFound() throws Exception {
        jobs.create("dropped");
        CompletableFuture<WaitResult> wait = await("dropped", TrainJobPhase.COMPLETE, true);
        stopAsFabric8Does(() -> informers.trainJobs(namespace, null));
        sandbox.client()
                .resources(TrainJob.class)
                .inNamespace(namespace)
                .withName("dropped")
                .delete();
        assertInstanceOf(TrainJobNotFoundException.class, failure(wait));
    }

    @Test
    void aClosedWatcherNoLongerListensToItsInformer() throws Exception {
        jobs.create("left");
        CompletableFuture<WaitResult> wait = await("left", TrainJobPhase.RUNNING, true);
        var informer = informers.trainJobs(namespace, null);
        watcher.close();
        assertEquals(0, watcher.pendingWaits(), "a closed watcher holds no waits");
        jobs.status("left", RUNNING);
        // the informer has the change once its cache does; the closed watcher's wait must not have been told
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (TrainJobPhase.of(informer.getStore().getByKey(namespace + "/left")) != TrainJobPhase.RUNNING
                && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertSame(TrainJobPhase.RUNNING, TrainJobPhase.of(informer.getStore().getByKey(namespace + "/left")));
        assertFalse(wait.isDone());
    }
}
