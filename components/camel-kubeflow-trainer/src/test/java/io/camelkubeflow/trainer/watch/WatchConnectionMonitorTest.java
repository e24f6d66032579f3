package io.camelkubeflow.trainer.watch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.camelkubeflow.trainer.testing.Eventually;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.lang.reflect.Proxy;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

/** The monitor samples informers' flags; here the flags are the test's own, so each change is one the test made. */
class WatchConnectionMonitorTest {
    private static final Duration DEADLINE = Duration.ofSeconds(10);
    private final List<String> reconnects = new CopyOnWriteArrayList<>();
    private final List<Duration> downs = new CopyOnWriteArrayList<>();
    private final WatchConnectionMonitor monitor = new WatchConnectionMonitor((watch, down) -> {
        reconnects.add(watch);
        downs.add(down);
    });

    /** Times the monitor looked at an informer's watch: each sample looks once at each. */
    private final AtomicInteger looks = new AtomicInteger();

    /** An informer that answers isWatching and isRunning from the flags it is given, and nothing else. */
    private SharedIndexInformer<?> informer(AtomicBoolean watching, AtomicBoolean running) {
        return (SharedIndexInformer<?>) Proxy.newProxyInstance(
                WatchConnectionMonitorTest.class.getClassLoader(),
                new Class<?>[] {SharedIndexInformer.class},
                (proxy, method, args) -> switch (method.getName()) {
                    case "isWatching" -> {
                        looks.incrementAndGet();
                        yield watching.get();
                    }
                    case "isRunning" -> running.get();
                    case "hashCode" -> System.identityHashCode(proxy);
                    case "equals" -> proxy == args[0];
                    default -> throw new UnsupportedOperationException(method.getName());
                });
    }

    /** Waits for the sampler to look at every informer twice more: a change made before has been seen. */
    private void twoSamples(int informers) throws InterruptedException {
        int until = looks.get() + 2 * informers;
        Eventually.await(DEADLINE, () -> looks.get() >= until, () -> "the monitor stopped sampling");
    }

    @AfterEach
    void close() {
        monitor.close();
    }

    @Test
    void aLostWatchIsCountedUntilItIsBackAndThenReportedOnce() throws Exception {
        AtomicBoolean watching = new AtomicBoolean(true);
        AtomicBoolean running = new AtomicBoolean(true);
        AtomicBoolean otherWatching = new AtomicBoolean(true);
        monitor.monitor("trainjobs/a", informer(watching, running));
        monitor.monitor("pods/a", informer(otherWatching, new AtomicBoolean(true)));
        Eventually.await(DEADLINE, () -> monitor.connected() == 2, () -> "connected: " + monitor.connected());
        long lost = System.nanoTime();
        watching.set(false);
        Eventually.await(DEADLINE, () -> monitor.disconnected() == 1, () -> "disconnected: " + monitor.disconnected());
        watching.set(true);
        Eventually.await(DEADLINE, () -> !reconnects.isEmpty(), () -> "no reconnect reported");
        assertEquals(2, monitor.connected());
        Duration longestPossible = Duration.ofNanos(System.nanoTime() - lost);
        assertTrue(
                !downs.get(0).isNegative() && downs.get(0).compareTo(longestPossible) <= 0,
                "reported down for " + downs.get(0) + ", but the watch was lost for at most " + longestPossible);
        assertEquals(0, monitor.disconnected());
        twoSamples(2);
        assertEquals(List.of("trainjobs/a"), reconnects);
    }

    @Test
    void theFirstConnectionAndAStoppedInformerAreNotLosses() throws Exception {
        AtomicBoolean watching = new AtomicBoolean(false);
        AtomicBoolean running = new AtomicBoolean(true);
        monitor.monitor("trainjobs/b", informer(watching, running));
        twoSamples(1);
        assertEquals(0, monitor.disconnected(), "not yet connected is not lost");
        assertEquals(0, monitor.connected());
        watching.set(true);
        twoSamples(1);
        running.set(false);
        watching.set(false);
        Eventually.await(DEADLINE, () -> monitor.connected() == 0, () -> "the stop not seen");
        assertEquals(0, monitor.disconnected(), "a stopped informer has no watch to lose");
        assertTrue(reconnects.isEmpty(), reconnects.toString());
    }

    @Test
    void aForgottenInformerIsNoLongerCounted() throws Exception {
        AtomicBoolean watching = new AtomicBoolean(true);
        SharedIndexInformer<?> informer = informer(watching, new AtomicBoolean(true));
        monitor.monitor("trainjobs/c", informer);
        twoSamples(1);
        watching.set(false);
        Eventually.await(DEADLINE, () -> monitor.disconnected() == 1, () -> "disconnected: " + monitor.disconnected());
        monitor.forget(informer);
        assertEquals(0, monitor.disconnected());
    }

    @Test
    void aClosedMonitorCountsNothing() throws Exception {
        AtomicBoolean watching = new AtomicBoolean(true);
        monitor.monitor("trainjobs/d", informer(watching, new AtomicBoolean(true)));
        twoSamples(1);
        watching.set(false);
        Eventually.await(DEADLINE, () -> monitor.disconnected() == 1, () -> "disconnected: " + monitor.disconnected());
        monitor.close();
        assertEquals(0, monitor.disconnected());
    }

    /**
     * fabric8 ends every informer's watch after 5 to 10 minutes and opens the next at once: a healthy cluster's log
     * gets no warning of it (the monitor's outage bound here an hour, far beyond the test).
     */
    @Test
    void aWatchBackWithinTheOutageBoundIsNotWarnedOf() throws Throwable {
        String log = logOf(() -> {
            try (WatchConnectionMonitor patient =
                    new WatchConnectionMonitor((watch, down) -> reconnects.add(watch), Duration.ofHours(1))) {
                AtomicBoolean watching = new AtomicBoolean(true);
                patient.monitor("trainjobs/e", informer(watching, new AtomicBoolean(true)));
                Eventually.await(DEADLINE, () -> patient.connected() == 1, () -> "never connected");
                watching.set(false);
                Eventually.await(DEADLINE, () -> patient.disconnected() == 1, () -> "loss not seen");
                watching.set(true);
                Eventually.await(DEADLINE, () -> !reconnects.isEmpty(), () -> "no reconnect reported");
            }
        });
        assertEquals(List.of("trainjobs/e"), reconnects, "the pause is still counted and reported to the listener");
        assertTrue(log.lines().noneMatch(line -> line.contains("WARN") || line.contains("INFO")), log);
    }

    /** A watch down past the bound is warned of once, however long it stays down, and its return is told at INFO. */
    @Test
    void aWatchDownPastTheOutageBoundIsWarnedOfOnceAndItsReturnAtInfo() throws Throwable {
        String log = logOf(() -> {
            try (WatchConnectionMonitor impatient =
                    new WatchConnectionMonitor((watch, down) -> reconnects.add(watch), Duration.ZERO)) {
                AtomicBoolean watching = new AtomicBoolean(true);
                impatient.monitor("trainjobs/f", informer(watching, new AtomicBoolean(true)));
                Eventually.await(DEADLINE, () -> impatient.connected() == 1, () -> "never connected");
                watching.set(false);
                Eventually.await(DEADLINE, () -> impatient.disconnected() == 1, () -> "loss not seen");
                twoSamples(1);
                twoSamples(1);
                watching.set(true);
                Eventually.await(DEADLINE, () -> !reconnects.isEmpty(), () -> "no reconnect reported");
            }
        });
        assertEquals(
                1,
                log.lines()
                        .filter(line ->
                                line.contains("WARN") && line.contains("The watch of trainjobs/f has been down for"))
                        .count(),
                log);
        assertTrue(
                log.lines()
                        .anyMatch(line ->
                                line.contains("INFO") && line.contains("The watch of trainjobs/f is back after")),
                log);
    }

    /**
     * A watch down 14 s in every 14.2 s is never down an outage's length, but it is in trouble: warned of once, when it
     * drops again after 15 s of trouble (its third loss, 28 s after the first), and its next return told at INFO; the later losses of the same trouble are not
     * warned of again. Sampled by hand on the test's clock.
     */
    @Test
    void aWatchThatKeepsDroppingIsWarnedOfOncePerTroubleAndItsReturnAtInfo() throws Throwable {
        AtomicLong now = new AtomicLong(Duration.ofSeconds(1).toNanos());
        AtomicBoolean watching = new AtomicBoolean(true);
        String log = logOf(() -> {
            WatchConnectionMonitor byHand =
                    new WatchConnectionMonitor((watch, down) -> reconnects.add(watch), now::get);
            byHand.monitor("trainjobs/g", informer(watching, new AtomicBoolean(true)));
            byHand.sample();
            for (int round = 0; round < 4; round++) {
                watching.set(false);
                byHand.sample();
                now.addAndGet(Duration.ofSeconds(14).toNanos());
                byHand.sample();
                watching.set(true);
                byHand.sample();
                now.addAndGet(Duration.ofMillis(200).toNanos());
                byHand.sample();
            }
        });
        assertEquals(4, reconnects.size(), "every loss is still told to the listener");
        assertEquals(
                List.of("The watch of trainjobs/g keeps dropping: 3 losses in 28 s"),
                log.lines()
                        .filter(line -> line.contains("WARN"))
                        .map(line -> line.substring(line.indexOf("The watch"), line.indexOf(';')))
                        .toList(),
                log);
        assertEquals(
                1,
                log.lines()
                        .filter(line -> line.contains("INFO")
                                && line.contains("The watch of trainjobs/g is back after 14000 ms"))
                        .count(),
                log);
    }

    /** A trouble ends once the watch stayed up an outage's length: a later loss starts a new one, not yet warned of. */
    @Test
    void aWatchUpForAnOutagesLengthEndsItsTrouble() throws Throwable {
        AtomicLong now = new AtomicLong(Duration.ofSeconds(1).toNanos());
        AtomicBoolean watching = new AtomicBoolean(true);
        String log = logOf(() -> {
            WatchConnectionMonitor byHand = new WatchConnectionMonitor((watch, down) -> {}, now::get);
            byHand.monitor("trainjobs/h", informer(watching, new AtomicBoolean(true)));
            byHand.sample();
            for (int round = 0; round < 3; round++) {
                watching.set(false);
                byHand.sample();
                now.addAndGet(Duration.ofSeconds(14).toNanos());
                watching.set(true);
                byHand.sample();
                now.addAndGet(WatchConnectionMonitor.OUTAGE.toNanos());
                byHand.sample();
            }
        });
        assertTrue(log.lines().noneMatch(line -> line.contains("WARN") || line.contains("INFO")), log);
    }

    /**
     * fabric8 stops an informer for good on a watch error it does not retry: the stop of a monitored informer that
     * had been running is warned of once and told to the listener, and the informer is no longer monitored; one
     * forgotten before it stopped (closed by its owner) is not.
     */
    @Test
    void anInformerStoppedWithoutBeingForgottenIsWarnedOfOnceAndToldToTheListener() throws Throwable {
        List<String> stopped = new CopyOnWriteArrayList<>();
        AtomicBoolean running = new AtomicBoolean(true);
        AtomicBoolean closedRunning = new AtomicBoolean(true);
        String log = logOf(() -> {
            WatchConnectionMonitor byHand = new WatchConnectionMonitor(
                    new WatchConnectionMonitor.Listener() {
                        @Override
                        public void reconnected(String watch, Duration down) {
                            reconnects.add(watch);
                        }

                        @Override
                        public void stopped(String watch) {
                            stopped.add(watch);
                        }
                    },
                    System::nanoTime);
            byHand.monitor("pods/i", informer(new AtomicBoolean(true), running));
            SharedIndexInformer<?> closed = informer(new AtomicBoolean(true), closedRunning);
            byHand.monitor("pods/j", closed);
            byHand.sample();
            running.set(false);
            byHand.forget(closed);
            closedRunning.set(false);
            byHand.sample();
            byHand.sample();
            assertEquals(List.of(), byHand.watches(), "a stopped informer is no longer monitored");
        });
        assertEquals(List.of("pods/i"), stopped);
        assertEquals(
                List.of("The informer of pods/i was stopped by fabric8"),
                log.lines()
                        .filter(line -> line.contains("WARN"))
                        .map(line -> line.substring(line.indexOf("The informer"), line.indexOf(" on a watch error")))
                        .toList(),
                log);
        assertTrue(reconnects.isEmpty(), reconnects.toString());
    }

    /** What the component logged (slf4j-simple writes to System.err) while the action ran. */
    private static String logOf(Executable action) throws Throwable {
        PrintStream err = System.err;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
        try {
            action.execute();
        } finally {
            System.setErr(err);
        }
        return captured.toString(StandardCharsets.UTF_8);
    }
}
