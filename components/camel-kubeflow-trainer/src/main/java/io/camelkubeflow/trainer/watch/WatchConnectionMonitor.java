package io.camelkubeflow.trainer.watch;

import io.camelkubeflow.trainer.support.DaemonThreads;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Tells when the watch connection of an informer is lost and when it is back. fabric8's informer re-lists and
 * re-watches on its own (expired watch, dropped connection, API server restart) and has no callback for it: its
 * exception handler is not called for these, only {@code isWatching()} changes. So this samples that flag of every
 * informer it is given, every {@link #SAMPLE_PERIOD}; a reconnect faster than that may go unseen. The sample is an
 * in-memory read: no request reaches the API server.
 *
 * <p>fabric8's informer asks each watch to end after 5 to 10 minutes (its {@code timeoutSeconds}, as client-go does)
 * and opens the next one at once: such a pause is logged at DEBUG. A watch is in trouble from its first loss until it
 * has stayed up {@link #OUTAGE}; a trouble is warned of once: when the watch has been down {@link #OUTAGE}, or when it
 * drops again after its trouble has lasted that long (a watch that keeps dropping, each time back within seconds); the
 * first return after the warning is told at INFO. Before, every informer warned of a "lost" watch every few minutes of
 * a healthy cluster, and a watch down 14 s in every 15 was never warned of.
 *
 * <p>fabric8 stops an informer for good on a watch error it does not retry (an event it cannot read: it logs ERROR
 * "... failed for ..., will stop"). A monitored informer that had been running and is found stopped without being
 * {@link #forget forgotten} is warned of once, told to the {@link Listener}, and no longer monitored.
 */
public final class WatchConnectionMonitor implements AutoCloseable {
    public static final Duration SAMPLE_PERIOD = Duration.ofMillis(200);
    /** How long a watch is down, or in trouble, before it is warned of: far above a re-watch's second or so. */
    static final Duration OUTAGE = Duration.ofSeconds(15);

    private static final Logger LOG = LoggerFactory.getLogger(WatchConnectionMonitor.class);

    /** Told of each watch that is back after a loss; called on the monitor's thread. */
    @FunctionalInterface
    public interface Listener {
        void reconnected(String watch, Duration down);

        /** Told of each watch as it is first monitored (on the caller's thread), before any loss. */
        default void watching(String watch) {}

        /** Told of each watch whose informer fabric8 stopped for good; called on the monitor's thread. */
        default void stopped(String watch) {}
    }

    private final Listener listener;
    private final Map<SharedIndexInformer<?>, Watched> watched = new ConcurrentHashMap<>();
    /** Null when the caller samples ({@link #sample}). */
    private final ScheduledExecutorService sampler;

    private final LongSupplier nanoTime;
    private final long outageNanos;

    public WatchConnectionMonitor(Listener listener) {
        this(listener, OUTAGE);
    }

    /** @param outage how long a watch is down, or in trouble, before it is warned of */
    WatchConnectionMonitor(Listener listener, Duration outage) {
        this(
                listener,
                outage,
                System::nanoTime,
                Executors.newSingleThreadScheduledExecutor(DaemonThreads.named("watch-monitor")));
        sampler.scheduleWithFixedDelay(
                this::sample, SAMPLE_PERIOD.toMillis(), SAMPLE_PERIOD.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** A monitor that samples only when {@link #sample} is called, reading the time from {@code nanoTime}. */
    WatchConnectionMonitor(Listener listener, LongSupplier nanoTime) {
        this(listener, OUTAGE, nanoTime, null);
    }

    private WatchConnectionMonitor(
            Listener listener, Duration outage, LongSupplier nanoTime, ScheduledExecutorService sampler) {
        this.listener = listener;
        this.outageNanos = outage.toNanos();
        this.nanoTime = nanoTime;
        this.sampler = sampler;
    }

    /** @param name what the watch serves, for the log and meters: e.g. {@code trainjobs/team-a} */
    public void monitor(String name, SharedIndexInformer<?> informer) {
        Watched watch = new Watched(name);
        // an informer stopped before the first sample was running all the same: its stop is reported
        watch.wasRunning = informer.isRunning();
        watched.put(informer, watch);
        listener.watching(name);
    }

    public void forget(SharedIndexInformer<?> informer) {
        watched.remove(informer);
    }

    /** How many monitored watches are connected now (as of the last sample). */
    public int connected() {
        return (int) watched.values().stream()
                .filter(w -> w.established && w.lostAt == 0)
                .count();
    }

    /** How many monitored watches are down now. */
    public int disconnected() {
        return (int) watched.values().stream().filter(w -> w.lostAt != 0).count();
    }

    /**
     * A monitored watch as of the last sample: its informer running, its watch connected, its first list done, the
     * resource version it last synced to, how often its connection was lost, and for how long it is down now (null
     * while connected).
     */
    public record WatchState(
            String name,
            boolean running,
            boolean connected,
            boolean synced,
            String resourceVersion,
            long outages,
            Duration down) {}

    /** Every monitored watch, by name: what the component's dev console shows. */
    public List<WatchState> watches() {
        long now = nanoTime.getAsLong();
        return watched.entrySet().stream()
                .map(entry -> {
                    SharedIndexInformer<?> informer = entry.getKey();
                    Watched watch = entry.getValue();
                    long lostAt = watch.lostAt;
                    return new WatchState(
                            watch.name,
                            informer.isRunning(),
                            watch.established && lostAt == 0,
                            informer.hasSynced(),
                            informer.lastSyncResourceVersion(),
                            watch.outages,
                            lostAt == 0 ? null : Duration.ofNanos(now - lostAt));
                })
                .sorted(Comparator.comparing(WatchState::name))
                .toList();
    }

    /** Looks once at every monitored informer; the monitor's own thread calls it every {@link #SAMPLE_PERIOD}. */
    void sample() {
        watched.forEach(this::sample);
    }

    private void sample(SharedIndexInformer<?> informer, Watched watch) {
        long now = nanoTime.getAsLong();
        if (!informer.isRunning()) {
            // forget() before a stop of one's own: still monitored, it was fabric8 that stopped it
            if (watch.wasRunning && watched.remove(informer, watch)) {
                LOG.warn(
                        "The informer of {} was stopped by fabric8 on a watch error it does not retry (fabric8's"
                                + " Reflector logged which, just before); a new informer replaces it on next use",
                        watch.name);
                listener.stopped(watch.name);
            }
            return;
        }
        watch.wasRunning = true;
        boolean watching = informer.isWatching();
        if (watching && !watch.established) {
            // the first connection after start: nothing was lost
            watch.established = true;
        } else if (!watching && watch.established && watch.lostAt == 0) {
            lost(watch, now);
        } else if (!watching && watch.lostAt != 0 && !watch.warned && now - watch.lostAt >= outageNanos) {
            warned(watch);
            LOG.warn(
                    "The watch of {} has been down for {} s; fabric8's informer keeps re-establishing it (waits"
                            + " stay pending)",
                    watch.name,
                    Duration.ofNanos(now - watch.lostAt).toSeconds());
        } else if (watching && watch.lostAt != 0) {
            Duration down = Duration.ofNanos(now - watch.lostAt);
            watch.lostAt = 0;
            watch.upSince = now;
            if (watch.returnToTell) {
                watch.returnToTell = false;
                LOG.info("The watch of {} is back after {} ms", watch.name, down.toMillis());
            } else {
                LOG.debug("The watch of {} is back after {} ms", watch.name, down.toMillis());
            }
            listener.reconnected(watch.name, down);
        } else if (watching && watch.troubleSince != 0 && now - watch.upSince >= outageNanos) {
            // up for an outage's length: the trouble is over, the next loss starts a new one
            watch.troubleSince = 0;
            watch.troubleLosses = 0;
            watch.warned = false;
        }
    }

    private void lost(Watched watch, long now) {
        watch.lostAt = now;
        watch.outages++;
        if (watch.troubleSince == 0) {
            watch.troubleSince = now;
        }
        watch.troubleLosses++;
        if (!watch.warned && watch.troubleLosses > 1 && now - watch.troubleSince >= outageNanos) {
            warned(watch);
            LOG.warn(
                    "The watch of {} keeps dropping: {} losses in {} s; fabric8's informer re-establishes it each"
                            + " time, but events come late (check the API server and the network to it)",
                    watch.name,
                    watch.troubleLosses,
                    Duration.ofNanos(now - watch.troubleSince).toSeconds());
        } else {
            LOG.debug("The watch of {} ended; fabric8's informer is re-establishing it", watch.name);
        }
    }

    private static void warned(Watched watch) {
        watch.warned = true;
        watch.returnToTell = true;
    }

    @Override
    public void close() {
        if (sampler != null) {
            sampler.shutdownNow();
        }
        watched.clear();
    }

    private static final class Watched {
        final String name;
        /** Only the sampler thread writes these. */
        volatile boolean wasRunning;

        volatile boolean established;
        /** When the loss going on now began; 0 while connected. */
        volatile long lostAt;
        /** When the watch last came back. */
        volatile long upSince;
        /** When the trouble going on began (its first loss), 0 when none: it ends once the watch stayed up OUTAGE. */
        volatile long troubleSince;
        /** Losses since the trouble began. */
        volatile long troubleLosses;
        /** Whether the trouble going on was warned of. */
        volatile boolean warned;
        /** Whether a warning was given that the watch's next return answers at INFO. */
        volatile boolean returnToTell;
        /** Connections lost since the watch started. */
        volatile long outages;

        Watched(String name) {
            this.name = name;
        }
    }
}
