package io.camelkubeflow.trainer.watch;

import static io.camelkubeflow.trainer.watch.StoredTrainJobs.RUNNING;
import static io.camelkubeflow.trainer.watch.StoredTrainJobs.condition;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import io.camelkubeflow.trainer.api.TrainJob;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The events of jobs in a Kueue queue, on the sandbox's API server serving Workloads, each step written by the test
 * as Kueue's controller writes it: what Kueue decides is told when its Workload changes, with no change of the job,
 * and an eviction as soon as Kueue decides it, before the job's own status says Suspended. (KueueIT holds the same
 * with the real Kueue.) That nothing was emitted in between is shown by the next event being the one the next write
 * causes (events come in order).
 */
class TrainJobEventStreamKueueTest extends WatchTestSupport {
    private final BlockingQueue<TrainJobEvent> events = new LinkedBlockingQueue<>();
    private TrainJobEventStream stream;
    private StoredWorkloads workloads;

    @BeforeAll
    static void serveWorkloads() {
        StoredWorkloads.serveWorkloads(sandbox.client());
    }

    @BeforeEach
    void start() {
        stream = new TrainJobEventStream(events::add, informers);
        workloads = new StoredWorkloads(sandbox.client(), namespace);
    }

    @AfterEach
    void stop() {
        stream.close();
    }

    private String next() throws InterruptedException {
        TrainJobEvent event = events.poll(10, TimeUnit.SECONDS);
        assertNotNull(event, "no event within 10 s");
        return event.type() + (event.reason() == null ? "" : " (" + event.reason() + ")");
    }

    @Test
    void whatKueueDecidesIsToldWhenItsWorkloadChangesWithNoChangeOfTheJob() throws Exception {
        stream.start(namespace, null, false, null);
        TrainJob job = jobs.createQueued("q", "team");
        assertEquals("Created", next(), "Kueue has made no Workload yet");
        GenericKubernetesResource workload = workloads.createFor(job, "team");
        assertEquals("Queued", next(), "Kueue has not looked at it yet");
        workloads.conditions(workload, "QuotaReserved,False,Pending,insufficient unused quota for cpu");
        assertEquals("Queued (Pending)", next(), "Kueue's reason is news");
        workloads.conditions(workload, "QuotaReserved,False,Pending,insufficient unused quota for cpu, 2 more needed");
        workloads.conditions(
                workload,
                "QuotaReserved,True,QuotaReserved,reserved",
                "Admitted,True,Admitted,The workload is admitted");
        assertEquals("Admitted (Admitted)", next(), "a new message alone is no news");
        jobs.admit("q");
        jobs.status("q", RUNNING);
        assertEquals("Running", next());
        workloads.conditions(
                workload,
                "QuotaReserved,True,QuotaReserved,reserved",
                "Admitted,True,Admitted,The workload is admitted",
                "Evicted,True,Preempted,Preempted to accommodate a workload due to prioritization");
        assertEquals("Preempted (Preempted)", next(), "said while the job still runs");
        jobs.status("q", condition("Suspended", "Suspended", "suspended", "2026-01-01T00:00:00Z"));
        workloads.conditions(
                workload,
                "QuotaReserved,True,QuotaReserved,reserved again",
                "Admitted,True,Admitted,The workload is admitted",
                "Evicted,False,QuotaReserved,");
        assertEquals("Admitted (Admitted)", next(), "the job's suspension was no news: Kueue had said why");
        jobs.admit("q");
        jobs.status("q", RUNNING);
        assertEquals("Running", next());
    }

    /**
     * Kueue evicts a running job: it writes the Workload's Evicted condition, then suspends the job; the stream's two
     * informers may hear the two writes the other way round. The job suspended while its Workload (as heard yet) still
     * says Admitted is no news; the eviction is.
     */
    @Test
    void aRunningJobSuspendedBeforeItsEvictionIsHeardIsNotToldAdmittedAgain() throws Exception {
        GenericKubernetesResource workload = admittedAndRunning("e");
        jobs.status("e", condition("Suspended", "Suspended", "suspended", "2026-01-01T00:00:00Z"));
        workloads.conditions(
                workload,
                "QuotaReserved,True,QuotaReserved,reserved",
                "Admitted,True,Admitted,The workload is admitted",
                "Evicted,True,Preempted,Preempted to accommodate a workload due to prioritization");
        assertEquals("Preempted (Preempted)", next(), "not Admitted in between");
    }

    /**
     * Kueue suspends an evicted job, then admits its Workload again; the stream may hear the Workload's admission
     * first, while the job it has still runs as it did when evicted. That job is not told Running again: the next
     * news is its suspension under an admitted Workload. (Broken, the stream said Running here.)
     */
    @Test
    void anEvictedJobAdmittedAgainBeforeItsSuspensionIsHeardIsNotToldRunning() throws Exception {
        GenericKubernetesResource workload = admittedAndRunning("r");
        workloads.conditions(
                workload,
                "QuotaReserved,True,QuotaReserved,reserved",
                "Admitted,True,Admitted,The workload is admitted",
                "Evicted,True,Preempted,Preempted to accommodate a workload due to prioritization");
        assertEquals("Preempted (Preempted)", next());
        workloads.conditions(
                workload,
                "QuotaReserved,True,QuotaReserved,reserved again",
                "Admitted,True,Admitted,The workload is admitted",
                "Evicted,False,QuotaReserved,");
        jobs.status("r", condition("Suspended", "Suspended", "suspended", "2026-01-01T00:00:00Z"));
        assertEquals("Admitted (Admitted)", next(), "not Running in between");
    }

    /** Starts the stream on a job in queue {@code team} that Kueue admits and that then runs; its Workload. */
    private GenericKubernetesResource admittedAndRunning(String name) throws InterruptedException {
        stream.start(namespace, null, false, null);
        TrainJob job = jobs.createQueued(name, "team");
        assertEquals("Created", next());
        GenericKubernetesResource workload = workloads.createFor(job, "team");
        assertEquals("Queued", next());
        workloads.conditions(
                workload,
                "QuotaReserved,True,QuotaReserved,reserved",
                "Admitted,True,Admitted,The workload is admitted");
        assertEquals("Admitted (Admitted)", next());
        jobs.admit(name);
        jobs.status(name, RUNNING);
        assertEquals("Running", next());
        return workload;
    }

    @Test
    void aWorkloadDeactivatedAsKueueDocumentsLeavesTheJobToItsOwnStatus() throws Exception {
        stream.start(namespace, null, false, null);
        TrainJob job = jobs.createQueued("d", "team");
        assertEquals("Created", next());
        GenericKubernetesResource workload = workloads.createFor(job, "team");
        assertEquals("Queued", next());
        workloads.patch(workload, "{\"spec\": {\"active\": false}}");
        assertEquals("Created", next(), "deactivated: Kueue says nothing, the job is what it says");
        // written once the deactivation was heard: the stream hears the job and its Workload on two informers, and
        // the job's suspension heard first would leave no Created between (Queued, then Suspended)
        jobs.status("d", condition("Suspended", "Suspended", "suspended", "2026-01-01T00:00:00Z"));
        assertEquals("Suspended (Suspended)", next());
    }
}
