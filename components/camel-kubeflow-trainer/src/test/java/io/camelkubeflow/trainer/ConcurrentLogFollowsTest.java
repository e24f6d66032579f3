package io.camelkubeflow.trainer;

import static io.camelkubeflow.trainer.KubeflowTrainerConstants.JOB_NAME;
import static io.camelkubeflow.trainer.sandbox.cluster.TrainJobControllerEmulation.JOBSET_NAME_LABEL;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.camelkubeflow.trainer.api.TrainJob;
import io.camelkubeflow.trainer.logs.LogSink;
import io.camelkubeflow.trainer.logs.LogStep;
import io.camelkubeflow.trainer.logs.TrainJobLogs;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.apache.camel.Exchange;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Following logs holds no thread per follower: readers of running jobs share a pool of two threads, and each gets its
 * lines while the job runs. A reader that blocked on its stream would hold one of the two threads until its job ended,
 * and the third follower would see nothing before then.
 */
class ConcurrentLogFollowsTest extends TrainerRouteTestSupport {
    private static final int FOLLOWERS = 100;
    /** Only a deadlock detector: every wait below ends as soon as its condition holds. */
    private static final Duration PATIENCE = Duration.ofSeconds(90);

    private ExecutorService twoThreads;
    private String job;
    private String pod;

    @BeforeEach
    void runningJob() {
        twoThreads = Executors.newFixedThreadPool(2);
        // a job that runs far longer than the test and logs only what the test appends
        Exchange trained = LogsOperationTest.train("torch-distributed", "&pythonFile=/a.py", 0, 3_600_000);
        assertNull(
                template.send("kubeflow-trainer:wait?waitFor=Running", trained).getException());
        job = trained.getMessage().getHeader(JOB_NAME, String.class);
        pod = api.client().pods().inNamespace("logs").withLabel(JOBSET_NAME_LABEL, job).list().getItems().stream()
                .filter(p -> p.getMetadata().getName().contains("-node-0-0-"))
                .findFirst()
                .orElseThrow()
                .getMetadata()
                .getName();
    }

    @AfterEach
    void stop() {
        twoThreads.shutdownNow();
        api.client().resources(TrainJob.class).inNamespace("logs").withName(job).delete();
    }

    private TrainJobLogs logs() {
        return new TrainJobLogs(
                api.client(),
                camel.getComponent("kubeflow-trainer", KubeflowTrainerComponent.class)
                        .informersFor(api.client()),
                twoThreads);
    }

    private TrainJobLogs.Request follow() {
        return new TrainJobLogs.Request(
                "logs", job, LogStep.parse("step", "node-0"), true, null, null, Duration.ofSeconds(60));
    }

    @Test
    void aHundredFollowersOnTwoThreadsEachGetEveryLineWhileTheJobRuns() {
        TrainJobLogs logs = logs();
        int threadsBefore = ManagementFactory.getThreadMXBean().getThreadCount();
        List<List<String>> received = new ArrayList<>();
        List<CompletableFuture<List<String>>> reads = new ArrayList<>();
        for (int i = 0; i < FOLLOWERS; i++) {
            List<String> lines = new CopyOnWriteArrayList<>();
            received.add(lines);
            reads.add(logs.read(follow(), (step, text) -> lines.add(text)));
        }
        List<String> appended = new ArrayList<>();
        for (int round = 1; round <= 3; round++) {
            String line = "round " + round;
            api.sandbox().podLogs().append("logs", pod, line);
            appended.add(line);
            awaitTrue(
                    () -> received.stream().allMatch(lines -> lines.contains(line)),
                    () -> "followers without '" + line + "': "
                            + received.stream().filter(l -> !l.contains(line)).count());
        }
        int threadsAdded = ManagementFactory.getThreadMXBean().getThreadCount() - threadsBefore;
        for (List<String> lines : received) {
            assertEquals(
                    appended,
                    lines.stream().filter(l -> l.startsWith("round ")).toList(),
                    "each follower gets each line once, in order");
        }
        assertTrue(threadsAdded < 20, FOLLOWERS + " follows added " + threadsAdded + " threads");
        reads.forEach(read -> read.cancel(false));
        assertTrue(
                reads.stream().noneMatch(read -> read.isDone() && !read.isCancelled()),
                "a follow of a running job ends only when cancelled");
    }

    @Test
    void aSinkThatIsNotReadyHoldsTheReaderBackUntilItResumesIt() {
        AtomicReference<Runnable> resume = new AtomicReference<>();
        AtomicBoolean held = new AtomicBoolean();
        List<String> lines = new CopyOnWriteArrayList<>();
        List<String> violations = new CopyOnWriteArrayList<>();
        LogSink slow = new LogSink() {
            @Override
            public void line(String step, String text) {
                if (held.get()) {
                    violations.add(text);
                }
                lines.add(text);
            }

            @Override
            public boolean ready(Runnable whenReady) {
                held.set(true);
                resume.set(whenReady);
                return false;
            }
        };
        List<String> burst = new ArrayList<>();
        for (int i = 1; i <= 50; i++) {
            burst.add("held " + i);
        }
        api.sandbox().podLogs().appendBurst("logs", pod, burst);
        CompletableFuture<List<String>> read = logs().read(follow(), slow);
        try {
            while (lines.stream().filter(l -> l.startsWith("held ")).count() < burst.size()) {
                awaitTrue(() -> resume.get() != null, () -> "the reader stopped without leaving a resume");
                Runnable next = resume.getAndSet(null);
                held.set(false);
                next.run();
            }
        } finally {
            read.cancel(false);
        }
        assertEquals(List.of(), violations, "lines delivered while the sink was not ready");
        assertEquals(burst, lines.stream().filter(l -> l.startsWith("held ")).toList());
    }

    private static void awaitTrue(BooleanSupplier condition, Supplier<String> failure) {
        long deadline = System.nanoTime() + PATIENCE.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                fail(failure.get());
            }
            try {
                TimeUnit.MILLISECONDS.sleep(10);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                fail("interrupted");
            }
        }
    }
}
