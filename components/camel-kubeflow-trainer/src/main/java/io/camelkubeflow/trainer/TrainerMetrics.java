package io.camelkubeflow.trainer;

import io.camelkubeflow.trainer.access.AccessDecisions;
import io.camelkubeflow.trainer.api.TrainJob;
import io.camelkubeflow.trainer.job.SubmitResult;
import io.camelkubeflow.trainer.watch.WaitResult;
import io.camelkubeflow.trainer.watch.WatchConnectionMonitor;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Supplier;

/**
 * The component's Micrometer meters, tagged with the runtime (and outcome or status):
 * <ul>
 * <li>{@code kubeflow.trainer.trainjobs} (counter, outcome=created|adopted|skipped): what train did;</li>
 * <li>{@code kubeflow.trainer.trainjobs.ended} (counter, status=Complete|Failed): ends seen by wait;</li>
 * <li>{@code kubeflow.trainer.wait} (timer, status): how long exchanges waited;</li>
 * <li>{@code kubeflow.trainer.run} (timer, status): TrainJob run time, creation to end;</li>
 * <li>{@code kubeflow.trainer.wait.timeouts} (counter): waits that gave up;</li>
 * <li>{@code kubeflow.trainer.waits.inflight} (gauge, registered by the component): waits pending now;</li>
 * <li>{@code kubeflow.trainer.watch.reconnects} (counter, watch=trainjobs/NS|events/NS|pods/NS): watch connections lost and
 * re-established;</li>
 * <li>{@code kubeflow.trainer.watch.disconnected} (gauge, registered by the component): watches down now;</li>
 * <li>{@code kubeflow.trainer.watch.stops} (counter, watch): informers fabric8 stopped for good, each replaced by a new
 * one;</li>
 * <li>{@code kubeflow.trainer.access.reviews} (counter, result=cached|reviewed): access reviews of callers, answered
 * from the kept answers or asked of the API server.</li>
 * </ul>
 */
final class TrainerMetrics {
    static final String PREFIX = "kubeflow.trainer.";
    private final MeterRegistry registry;
    private final Counter waitTimeouts;
    /** The kept answers of every client's access reviewer, and the reviews of those released. */
    private final Set<AccessDecisions> liveDecisions = new HashSet<>();

    private long retiredHits;
    private long retiredMisses;
    /**
     * The meters that read this instance or its component, removed by {@link #close}: Micrometer answers a second
     * registration of a name and tags with the meter already there, so a component restarted on the same registry
     * would otherwise register meters that read the stopped one.
     */
    private final List<Meter> bound = new ArrayList<>();

    /** The counters of rare events exist from the start at zero: Prometheus's rate() and increase() need a series. */
    TrainerMetrics(MeterRegistry registry) {
        this.registry = registry;
        this.waitTimeouts = Counter.builder(PREFIX + "wait.timeouts")
                .description("Waits that gave up at their timeout")
                .register(registry);
        // over every client's reviewer: one registration per name and tags, so a meter per client would count the
        // first client only
        bind(
                PREFIX + "access.reviews",
                Tags.of("result", "cached"),
                () -> FunctionCounter.builder(PREFIX + "access.reviews", this, TrainerMetrics::accessReviewHits)
                        .tag("result", "cached")
                        .description("Access reviews answered from the kept answers")
                        .register(registry));
        bind(
                PREFIX + "access.reviews",
                Tags.of("result", "reviewed"),
                () -> FunctionCounter.builder(PREFIX + "access.reviews", this, TrainerMetrics::accessReviewMisses)
                        .tag("result", "reviewed")
                        .description("Access reviews asked of the API server")
                        .register(registry));
    }

    /**
     * Registers a meter that reads this instance or its component, removed from the registry when this closes; unless
     * another live component on the same registry holds that name and tags already: the registration then answers its
     * meter, which is that component's to remove, not this one's.
     */
    void bind(String name, Tags tags, Supplier<Meter> register) {
        boolean held = registry.find(name).tags(tags).meter() != null;
        Meter meter = register.get();
        if (!held) {
            bound.add(meter);
        }
    }

    /** The component stopped: the meters that read it go (the next start registers its own). */
    void close() {
        bound.forEach(registry::remove);
        bound.clear();
    }

    void trained(SubmitResult result) {
        String outcome = result.skipped() ? "skipped" : result.adopted() ? "adopted" : "created";
        Counter.builder(PREFIX + "trainjobs")
                .description("TrainJobs train created, adopted or skipped")
                .tag("outcome", outcome)
                .tag("runtime", runtime(result.trainJob()))
                .register(registry)
                .increment();
    }

    void waited(WaitResult result, Duration waited) {
        String status = result.phase().displayName();
        String runtime = runtime(result.trainJob());
        if (result.phase().isTerminal()) {
            Counter.builder(PREFIX + "trainjobs.ended")
                    .description("TrainJob ends seen by wait")
                    .tag("status", status)
                    .tag("runtime", runtime)
                    .register(registry)
                    .increment();
        }
        Timer.builder(PREFIX + "wait")
                .description("How long exchanges waited for a TrainJob")
                .tag("status", status)
                .tag("runtime", runtime)
                .register(registry)
                .record(waited);
        // a condition written by hand (or a skewed controller clock) can predate the job: no run time then
        if (result.jobDuration() != null
                && !result.jobDuration().isNegative()
                && result.phase().isTerminal()) {
            Timer.builder(PREFIX + "run")
                    .description("TrainJob run time, from creation to its end")
                    .tag("status", status)
                    .tag("runtime", runtime)
                    .register(registry)
                    .record(result.jobDuration());
        }
    }

    void timedOut() {
        waitTimeouts.increment();
    }

    WatchConnectionMonitor.Listener watchConnectionListener() {
        return new WatchConnectionMonitor.Listener() {
            @Override
            public void watching(String watch) {
                watchReconnects(watch);
                watchStops(watch);
            }

            @Override
            public void reconnected(String watch, Duration down) {
                watchReconnects(watch).increment();
            }

            @Override
            public void stopped(String watch) {
                watchStops(watch).increment();
            }
        };
    }

    private Counter watchStops(String watch) {
        return Counter.builder(PREFIX + "watch.stops")
                .description("Informers fabric8 stopped for good on a watch error it does not retry (each replaced)")
                .tag("watch", watch)
                .register(registry);
    }

    private Counter watchReconnects(String watch) {
        return Counter.builder(PREFIX + "watch.reconnects")
                .description("Watch connections lost and re-established (expired, dropped, API server restart)")
                .tag("watch", watch)
                .register(registry);
    }

    private static String runtime(TrainJob job) {
        return job.getSpec() == null || job.getSpec().runtimeRef() == null
                ? "unknown"
                : job.getSpec().runtimeRef().name();
    }

    /** Counts the access reviews of a client's reviewer, with every other client's. */
    synchronized void accessReviews(AccessDecisions decisions) {
        liveDecisions.add(decisions);
    }

    /** A client was released: its reviews stay counted, so the counters never go down. */
    synchronized void accessReviewsRetired(AccessDecisions decisions) {
        if (liveDecisions.remove(decisions)) {
            retiredHits += decisions.hits();
            retiredMisses += decisions.misses();
        }
    }

    private synchronized double accessReviewHits() {
        return retiredHits
                + liveDecisions.stream().mapToLong(AccessDecisions::hits).sum();
    }

    private synchronized double accessReviewMisses() {
        return retiredMisses
                + liveDecisions.stream().mapToLong(AccessDecisions::misses).sum();
    }
}
