package io.camelkubeflow.trainer.bench;

import io.camelkubeflow.trainer.api.TrainJob;
import io.camelkubeflow.trainer.api.TrainJobPhase;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.IntConsumer;
import java.util.function.IntSupplier;
import java.util.function.Predicate;

/**
 * The physical limit of noticing a TrainJob's end: a plain fabric8 informer on the same API server, which records when
 * it first saw each job Complete. A waiter's lag is its notice time less this one, so what is measured is the
 * waiter's own delay, not the cluster's pace. Times are wall-clock ms since the epoch (the Python SDK's clock too);
 * jobs are keyed {@code namespace/name}.
 */
final class CompletionReference implements AutoCloseable {
    private final Map<String, Double> complete = new ConcurrentHashMap<>();
    /** Jobs seen Failed: ended too, for a run that paces its jobs by how many are unfinished. */
    private final Set<String> failed = ConcurrentHashMap.newKeySet();

    private final Predicate<String> namespaces;
    /** Dropped by {@link #close}: a closed informer still holds its cache, which a heap figure must not count. */
    private SharedIndexInformer<TrainJob> informer;

    /** Jobs in the namespaces {@code namespaces} accepts, watched in all namespaces. */
    CompletionReference(KubernetesClient client, Predicate<String> namespaces) {
        this.namespaces = namespaces;
        informer = client.resources(TrainJob.class)
                .inAnyNamespace()
                .inform(
                        new ResourceEventHandler<>() {
                            @Override
                            public void onAdd(TrainJob job) {
                                seen(job);
                            }

                            @Override
                            public void onUpdate(TrainJob previous, TrainJob job) {
                                seen(job);
                            }

                            @Override
                            public void onDelete(TrainJob job, boolean finalStateUnknown) {}
                        },
                        0);
    }

    static String key(String namespace, String name) {
        return namespace + "/" + name;
    }

    /** Wall-clock time in ms since the epoch, below the millisecond. */
    static double now() {
        Instant now = Instant.now();
        return now.getEpochSecond() * 1000.0 + now.getNano() / 1e6;
    }

    private void seen(TrainJob job) {
        if (!namespaces.test(job.getMetadata().getNamespace())) {
            return;
        }
        String key = key(job.getMetadata().getNamespace(), job.getMetadata().getName());
        TrainJobPhase phase = TrainJobPhase.of(job);
        if (phase == TrainJobPhase.COMPLETE && complete.putIfAbsent(key, now()) == null
                || phase == TrainJobPhase.FAILED && failed.add(key)) {
            wake();
        }
    }

    /** Wakes whatever waits here to look again (what it waits for may have changed elsewhere). */
    synchronized void wake() {
        notifyAll();
    }

    /** How many jobs were seen Complete or Failed. */
    int ended() {
        return complete.size() + failed.size();
    }

    /** When each job was first seen Complete. */
    Map<String, Double> complete() {
        return complete;
    }

    /**
     * How long after this reference each job's notice came (ms), for the jobs complete here that were noticed; a notice
     * before it counts as 0.
     */
    Percentiles lagOf(Map<String, Double> notices) {
        List<Double> lags = new ArrayList<>();
        complete.forEach((job, at) -> {
            Double notice = notices.get(job);
            if (notice != null) {
                lags.add(Math.max(0, notice - at));
            }
        });
        return Percentiles.of(lags);
    }

    /**
     * Waits until {@code count} jobs were seen Complete or the time is up, telling {@code progress} the count every
     * 30 s: whether they all were.
     */
    boolean await(int count, Duration timeout, IntConsumer progress) throws InterruptedException {
        return awaitUntil(complete::size, () -> count, timeout, progress);
    }

    /**
     * Waits until at least {@code count} (asked anew at each change, and at each {@link #wake}) jobs were seen Complete
     * or Failed, or the time is up, telling {@code progress} how many every 30 s: whether they were.
     */
    boolean awaitEnded(IntSupplier count, Duration timeout, IntConsumer progress) throws InterruptedException {
        return awaitUntil(this::ended, count, timeout, progress);
    }

    private synchronized boolean awaitUntil(IntSupplier have, IntSupplier want, Duration timeout, IntConsumer progress)
            throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        long nextProgress = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (have.getAsInt() < want.getAsInt() && System.nanoTime() < deadline) {
            wait(Math.max(1, Math.min(deadline, nextProgress) - System.nanoTime()) / 1_000_000 + 1);
            if (System.nanoTime() >= nextProgress) {
                progress.accept(have.getAsInt());
                nextProgress += Duration.ofSeconds(30).toNanos();
            }
        }
        return have.getAsInt() >= want.getAsInt();
    }

    /** Lets go of what was seen (a heap figure measured after it holds none of it); call after {@link #close}. */
    void forget() {
        complete.clear();
        failed.clear();
    }

    @Override
    public synchronized void close() {
        if (informer != null) {
            informer.close();
            informer = null;
        }
    }
}
