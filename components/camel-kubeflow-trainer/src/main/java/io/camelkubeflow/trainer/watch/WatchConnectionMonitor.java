package io.camelkubeflow.trainer.watch;

import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import io.camelkubeflow.trainer.support.DaemonThreads;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
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
 * and opens the next one at once: such a pause is logged at DEBUG, and a watch is warned of only once it has been down
 * {@link #OUTAGE} (an API server away, a connection that cannot be re-opened), with the line saying it is back at INFO.
 * Before, every informer warned of a "lost" watch every few minutes of a healthy cluster.
 */
public final class WatchConnectionMonitor implements AutoCloseable {
    public static final Duration SAMPLE_PERIOD = Duration.ofMillis(200);
    /** How long a watch is down before it is an outage, warned of: far above a re-watch's second or so. */
    static final Duration OUTAGE = Duration.ofSeconds(15);
    private static final Logger LOG = LoggerFactory.getLogger(WatchConnectionMonitor.class);

    /** Told of each watch that is back after a loss; called on the monitor's thread. */
    @FunctionalInterface
    public interface Listener {
        void reconnected(String watch, Duration down);

        /** Told of each watch as it is first monitored (on the caller's thread), before any loss. */
        default void watching(String watch) {
        }
    }

    private final Listener listener;
    private final Map<SharedIndexInformer<?>, Watched> watched = new ConcurrentHashMap<>();
    private final ScheduledExecutorService sampler = Executors.newSingleThreadScheduledExecutor(
            DaemonThreads.named("watch-monitor"));

    private final long outageNanos;

    public WatchConnectionMonitor(Listener listener) {
        this(listener, OUTAGE);
    }

    /** @param outage how long a watch is down before it is warned of */
    WatchConnectionMonitor(Listener listener, Duration outage) {
        this.listener = listener;
        this.outageNanos = outage.toNanos();
        sampler.scheduleWithFixedDelay(this::sample, SAMPLE_PERIOD.toMillis(), SAMPLE_PERIOD.toMillis(),
                TimeUnit.MILLISECONDS);
    }

    /** @param name what the watch serves, for the log and meters: e.g. {@code trainjobs/team-a} */
    public void monitor(String name, SharedIndexInformer<?> informer) {
        watched.put(informer, new Watched(name));
        listener.watching(name);
    }

    public void forget(SharedIndexInformer<?> informer) {
        watched.remove(informer);
    }

    /** How many monitored watches are connected now (as of the last sample). */
    public int connected() {
        return (int) watched.values().stream().filter(w -> w.established && w.lostAt == 0).count();
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
    public record WatchState(String name, boolean running, boolean connected, boolean synced, String resourceVersion,
            long outages, Duration down) {
    }

    /** Every monitored watch, by name: what the component's dev console shows. */
    public List<WatchState> watches() {
        long now = System.nanoTime();
        return watched.entrySet().stream().map(entry -> {
            SharedIndexInformer<?> informer = entry.getKey();
            Watched watch = entry.getValue();
            long lostAt = watch.lostAt;
            return new WatchState(watch.name, informer.isRunning(), watch.established && lostAt == 0,
                    informer.hasSynced(), informer.lastSyncResourceVersion(), watch.outages,
                    lostAt == 0 ? null : Duration.ofNanos(now - lostAt));
        }).sorted(Comparator.comparing(WatchState::name)).toList();
    }

    private void sample() {
        watched.forEach((informer, watch) -> {
            boolean watching = informer.isWatching();
            if (watching && !watch.established) {
                // the first connection after start: nothing was lost
                watch.established = true;
            } else if (!watching && watch.established && watch.lostAt == 0 && informer.isRunning()) {
                watch.lostAt = System.nanoTime();
                watch.outages++;
                LOG.debug("The watch of {} ended; fabric8's informer is re-establishing it", watch.name);
            } else if (!watching && watch.lostAt != 0 && !watch.warned && informer.isRunning()
                    && System.nanoTime() - watch.lostAt >= outageNanos) {
                watch.warned = true;
                LOG.warn("The watch of {} has been down for {} s; fabric8's informer keeps re-establishing it (waits"
                        + " stay pending)", watch.name, Duration.ofNanos(System.nanoTime() - watch.lostAt).toSeconds());
            } else if (watching && watch.lostAt != 0) {
                Duration down = Duration.ofNanos(System.nanoTime() - watch.lostAt);
                watch.lostAt = 0;
                if (watch.warned) {
                    watch.warned = false;
                    LOG.info("The watch of {} is back after {} ms", watch.name, down.toMillis());
                } else {
                    LOG.debug("The watch of {} is back after {} ms", watch.name, down.toMillis());
                }
                listener.reconnected(watch.name, down);
            }
        });
    }

    @Override
    public void close() {
        sampler.shutdownNow();
        watched.clear();
    }

    private static final class Watched {
        final String name;
        /** Only the sampler thread writes these. */
        volatile boolean established;
        volatile long lostAt;
        /** Whether the loss now going on was warned of: it lasted {@link #OUTAGE}. */
        volatile boolean warned;
        /** Connections lost since the watch started. */
        volatile long outages;

        Watched(String name) {
            this.name = name;
        }
    }
}
