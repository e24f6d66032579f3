package io.camelkubeflow.trainer.watch;

import static io.camelkubeflow.trainer.watch.StoredTrainJobs.NO_PODS;
import static io.camelkubeflow.trainer.watch.StoredTrainJobs.RUNNING;
import static io.camelkubeflow.trainer.watch.StoredTrainJobs.condition;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Events from the sandbox's API server with no controller: each test writes the phases itself. That nothing was
 * emitted in between is shown by the next event being the one the next write causes (events come in order).
 */
class TrainJobEventStreamTest extends WatchTestSupport {
    private final BlockingQueue<TrainJobEvent> events = new LinkedBlockingQueue<>();
    private TrainJobEventStream stream;

    @BeforeEach
    void start() {
        stream = new TrainJobEventStream(events::add, informers);
    }

    @AfterEach
    void stop() {
        stream.close();
    }

    private TrainJobEvent next() throws InterruptedException {
        TrainJobEvent event = events.poll(10, TimeUnit.SECONDS);
        assertNotNull(event, "no event within 10 s");
        return event;
    }

    private String nextOf() throws InterruptedException {
        TrainJobEvent event = next();
        return event.trainJob().getMetadata().getName() + ":" + event.type();
    }

    private static final String COMPLETE =
            condition("Complete", "AllJobsCompleted", "all done", "2026-01-01T00:00:00Z");

    @Test
    void eachPhaseIsEmittedOnceWithTheDecidingConditionAndReportedProgress() throws Exception {
        stream.start(namespace, null, false, null);
        jobs.create("j");
        assertEquals("j:Created", nextOf());
        jobs.status("j", RUNNING);
        assertEquals("j:Running", nextOf());
        // the same phase again (a status write that changes nothing the phase depends on) is no news
        jobs.status("j", "jobsStatus: [{name: node, active: 2, ready: 2}]");
        jobs.status(
                "j", COMPLETE + "\ntrainerStatus: {progressPercentage: 100, metrics: [{name: loss, value: \"0.1\"}]}");
        TrainJobEvent complete = next();
        assertEquals("Complete", complete.type());
        assertEquals("AllJobsCompleted", complete.reason());
        assertEquals("all done", complete.message());
        assertEquals("100%, loss=0.1", complete.progress().describe());
        jobs.delete("j");
        TrainJobEvent deleted = next();
        assertEquals(TrainJobEvent.DELETED, deleted.type());
        assertNull(deleted.reason());
    }

    /**
     * fabric8 stops an informer for good on a watch error it does not retry (stopped here as it would): the stream
     * moves to the new informer, whose replay of the jobs is no news; a deletion, a change and a new job are told.
     */
    @Test
    void theStreamGoesOnWhenFabric8StopsItsInformer() throws Exception {
        stream.start(namespace, null, false, null);
        jobs.create("stays");
        assertEquals("stays:Created", nextOf());
        jobs.create("goes");
        assertEquals("goes:Created", nextOf());
        stopAsFabric8Does(() -> informers.trainJobs(namespace, null));
        jobs.delete("goes");
        assertEquals("goes:" + TrainJobEvent.DELETED, nextOf());
        jobs.status("stays", RUNNING);
        assertEquals("stays:Running", nextOf());
        jobs.create("new");
        assertEquals("new:Created", nextOf());
    }

    @Test
    void aRunningJobWhosePodsAreBetweenTwoWritesDoesNotGoBackToCreated() throws Exception {
        stream.start(namespace, null, false, null);
        jobs.create("j");
        assertEquals("j:Created", nextOf());
        jobs.status("j", RUNNING);
        assertEquals("j:Running", nextOf());
        jobs.status("j", NO_PODS);
        jobs.status("j", COMPLETE);
        assertEquals("j:Complete", nextOf());
    }

    @Test
    void existingJobsAreReportedOnlyWhenAskedAndTheirLaterChangesAlways() throws Exception {
        jobs.create("before");
        jobs.status("before", RUNNING);
        stream.start(namespace, null, false, null);
        jobs.status("before", COMPLETE);
        assertEquals("before:Complete", nextOf());
    }

    @Test
    void existingJobsAreReportedWithTheirCurrentPhaseWhenAsked() throws Exception {
        jobs.create("running");
        jobs.status("running", RUNNING);
        stream.start(namespace, null, true, null);
        // reported by start itself, before it returns
        TrainJobEvent existing = events.poll();
        assertNotNull(existing, "the existing job was not reported by start");
        assertEquals("running:Running", existing.trainJob().getMetadata().getName() + ":" + existing.type());
        jobs.create("after");
        assertEquals("after:Created", nextOf());
    }

    @Test
    void unhandledEndsOfExistingJobsAreReportedAndNothingElseThatExists() throws Exception {
        for (String name : List.of("handled", "unhandled", "running")) {
            jobs.create(name);
        }
        jobs.status("handled", COMPLETE);
        jobs.status("unhandled", COMPLETE);
        jobs.status("running", RUNNING);
        List<String> asked = new ArrayList<>();
        stream.start(namespace, null, false, job -> {
            asked.add(job.getMetadata().getName());
            return !"handled".equals(job.getMetadata().getName());
        });
        assertEquals("unhandled:Complete", nextOf());
        jobs.create("marker");
        assertEquals("marker:Created", nextOf());
        assertTrue(!asked.contains("running"), "only ended jobs are offered as unhandled: " + asked);
    }

    @Test
    void progressFollowsRunningAndIsEmittedOnlyWhenItChanges() throws Exception {
        stream.start(namespace, null, false, null);
        stream.emitProgressEvery(Duration.ofMillis(20));
        jobs.create("j");
        assertEquals("j:Created", nextOf());
        sandbox.client()
                .pods()
                .inNamespace(namespace)
                .resource(Serialization.unmarshal("""
                metadata: {name: j-node-0-0, labels: {jobset.sigs.k8s.io/jobset-name: j,
                  jobset.sigs.k8s.io/replicatedjob-name: node}}
                spec: {containers: [{name: node, image: i}]}
                status: {conditions: [{type: Ready, status: "True"}]}
                """, Pod.class))
                .create();
        jobs.status("j", RUNNING);
        assertEquals("j:Running", nextOf());
        // without trainerStatus, the trainer pods tell (the pod informer may see the pod a tick after the job)
        assertEquals(TrainJobProgress.PODS, progressUntil("1/1 pods ready").source());
        jobs.status("j", RUNNING + "\ntrainerStatus: {progressPercentage: 10}");
        assertEquals(TrainJobProgress.TRAINER_STATUS, progressUntil("10%").source());
        jobs.status("j", RUNNING + "\ntrainerStatus: {progressPercentage: 20}");
        assertEquals("20%", next().progress().describe(), "10% was emitted twice");
        jobs.status("j", COMPLETE);
        assertEquals("j:Complete", nextOf());
        jobs.create("marker");
        assertEquals("marker:Created", nextOf());
    }

    /** Progress events until one describes {@code expected}: that one's progress; no other kind of event between. */
    private TrainJobProgress progressUntil(String expected) throws InterruptedException {
        while (true) {
            TrainJobEvent event = next();
            assertEquals(TrainJobEvent.PROGRESS, event.type());
            if (event.progress().describe().equals(expected)) {
                return event.progress();
            }
        }
    }

    @Test
    void aStreamClosedBeforeItStartedClosesQuietly() {
        new TrainJobEventStream(events::add, informers).close();
        assertTrue(events.isEmpty());
    }

    @Test
    void closeWaitsForTheEventInHandAndNothingComesAfter() throws Exception {
        CountDownLatch inListener = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        List<String> delivered = new CopyOnWriteArrayList<>();
        TrainJobEventStream slow = new TrainJobEventStream(
                event -> {
                    inListener.countDown();
                    try {
                        release.await();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                    delivered.add(event.trainJob().getMetadata().getName() + ":" + event.type());
                },
                informers);
        slow.start(namespace, null, false, null);
        stream.start(namespace, null, false, null);
        jobs.create("j");
        assertEquals("j:Created", nextOf());
        assertTrue(inListener.await(10, TimeUnit.SECONDS));
        Thread closer = new Thread(slow::close);
        closer.start();
        closer.join(200);
        assertTrue(closer.isAlive(), "close returned while the listener still had its event");
        release.countDown();
        closer.join(10_000);
        assertEquals(List.of("j:Created"), delivered);
        jobs.status("j", COMPLETE);
        // both streams share the informer: the open one is told of the change, the closed one must not be
        assertEquals("j:Complete", nextOf());
        assertEquals(List.of("j:Created"), delivered);
    }
}
