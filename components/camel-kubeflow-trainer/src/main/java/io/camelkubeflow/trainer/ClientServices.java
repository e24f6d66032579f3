package io.camelkubeflow.trainer;

import io.camelkubeflow.trainer.access.AccessDecisions;
import io.camelkubeflow.trainer.access.AccessReviewer;
import io.camelkubeflow.trainer.job.TrainJobReaper;
import io.camelkubeflow.trainer.support.ApiRetry;
import io.camelkubeflow.trainer.watch.ClusterInformers;
import io.camelkubeflow.trainer.watch.TrainJobWatcher;
import io.camelkubeflow.trainer.watch.WatchConnectionMonitor;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.function.Supplier;

/**
 * What the component keeps for one Kubernetes client, shared by every endpoint (and the routes app) using it: its
 * informers, the watcher of its waits, its TTL reaper and its access reviewer with the answers it keeps. Each is made
 * on first use; {@link #close} closes them all, so nothing of a released client outlives it.
 */
final class ClientServices implements AutoCloseable {
    private final KubernetesClient client;
    private final WatchConnectionMonitor connections;
    private ClusterInformers informers;
    private TrainJobWatcher watcher;
    private TrainJobReaper reaper;
    private AccessReviewer accessReviewer;
    private AccessDecisions accessDecisions;

    ClientServices(KubernetesClient client, WatchConnectionMonitor connections) {
        this.client = client;
        this.connections = connections;
    }

    synchronized ClusterInformers informers() {
        if (informers == null) {
            informers = new ClusterInformers(client, connections);
        }
        return informers;
    }

    synchronized TrainJobWatcher watcher() {
        if (watcher == null) {
            watcher = new TrainJobWatcher(client, informers());
        }
        return watcher;
    }

    /** Waits pending now on this client's watcher; none made, none pending (a gauge's read makes none). */
    synchronized int pendingWaits() {
        return watcher == null ? 0 : watcher.pendingWaits();
    }

    synchronized TrainJobReaper reaper(ApiRetry retry, Duration checkInterval) {
        if (reaper == null) {
            reaper = new TrainJobReaper(client, retry, checkInterval);
        }
        return reaper;
    }

    /** The reaper, or null when no endpoint of this client has started one. */
    synchronized TrainJobReaper existingReaper() {
        return reaper;
    }

    /** @param decisions makes the kept answers of the reviewer, on first use */
    synchronized AccessReviewer accessReviewer(ApiRetry retry, Supplier<AccessDecisions> decisions) {
        if (accessReviewer == null) {
            accessDecisions = decisions.get();
            accessReviewer = new AccessReviewer(client, retry, accessDecisions);
        }
        return accessReviewer;
    }

    /** The access reviewer's kept answers, or null when it was not made. */
    synchronized AccessDecisions accessDecisions() {
        return accessDecisions;
    }

    /**
     * Closes what was made for the client. The services are taken under the lock and closed outside it: closing
     * informers waits for their threads, and a metrics scrape asking {@link #pendingWaits} must not wait for that.
     */
    @Override
    public void close() {
        TrainJobWatcher closingWatcher;
        TrainJobReaper closingReaper;
        ClusterInformers closingInformers;
        synchronized (this) {
            closingWatcher = watcher;
            closingReaper = reaper;
            closingInformers = informers;
            watcher = null;
            reaper = null;
            informers = null;
            accessReviewer = null;
            accessDecisions = null;
        }
        if (closingWatcher != null) {
            closingWatcher.close();
        }
        if (closingReaper != null) {
            closingReaper.close();
        }
        if (closingInformers != null) {
            closingInformers.close();
        }
    }
}
