package io.camelkubeflow.trainer.job;

import io.camelkubeflow.trainer.api.TrainJob;
import io.camelkubeflow.trainer.api.TrainJobPhase;
import io.camelkubeflow.trainer.support.ApiRetry;
import io.camelkubeflow.trainer.support.DaemonThreads;
import io.camelkubeflow.trainer.support.TrainJobMdc;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.DeletionPropagation;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Deletes finished TrainJobs that carry a TTL ({@link TrainJobMetadata#TTL_ANNOTATION}) once it has passed, counted
 * from the later of the job's end and the last time the logs operation read its log to the end, so a log that is
 * being captured is not deleted under it. Deletion is Background: the JobSet and pods follow. Every
 * decision is read from the jobs themselves, so any replica, and any app after a restart, carries it on.
 */
public class TrainJobReaper implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(TrainJobReaper.class);

    private final TrainJobManager jobs;
    private final Set<String> namespaces = ConcurrentHashMap.newKeySet();
    private final ScheduledExecutorService timer =
            Executors.newSingleThreadScheduledExecutor(DaemonThreads.named("ttl"));

    public TrainJobReaper(KubernetesClient client, ApiRetry retry, Duration interval) {
        this.jobs = new TrainJobManager(client, retry);
        timer.scheduleWithFixedDelay(
                this::sweepQuietly, interval.toMillis(), interval.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** Looks after the TTL jobs of this namespace from now on. */
    public void watchNamespace(String namespace) {
        namespaces.add(namespace);
    }

    /** Deletes the expired jobs of every namespace looked after; answers how many it deleted. */
    public int sweep() {
        int deleted = 0;
        for (String namespace : namespaces) {
            for (TrainJob job : jobs.list(namespace, TrainJobMetadata.TTL_LABEL + "=true")) {
                if (expired(job, Instant.now()) && delete(job)) {
                    deleted++;
                }
            }
        }
        return deleted;
    }

    static boolean expired(TrainJob job, Instant now) {
        Map<String, String> annotations = job.getMetadata().getAnnotations();
        Condition end = TrainJobPhase.decidingCondition(job);
        if (annotations == null
                || !TrainJobPhase.of(job).isTerminal()
                || end == null
                || end.getLastTransitionTime() == null) {
            return false;
        }
        Instant from = OffsetDateTime.parse(end.getLastTransitionTime()).toInstant();
        String captured = annotations.get(TrainJobMetadata.LOGS_CAPTURED_ANNOTATION);
        if (captured != null && Instant.parse(captured).isAfter(from)) {
            from = Instant.parse(captured);
        }
        long ttl = Long.parseLong(annotations.getOrDefault(TrainJobMetadata.TTL_ANNOTATION, "0"));
        return ttl > 0 && !now.isBefore(from.plusSeconds(ttl));
    }

    private boolean delete(TrainJob job) {
        String name = job.getMetadata().getNamespace() + "/" + job.getMetadata().getName();
        boolean deleted = jobs.delete(
                job.getMetadata().getNamespace(), job.getMetadata().getName(), DeletionPropagation.BACKGROUND);
        if (deleted) {
            try (var log = TrainJobMdc.of(
                    job.getMetadata().getNamespace(), job.getMetadata().getName())) {
                LOG.info(
                        "Deleted TrainJob {}: {} for longer than its TTL of {} s",
                        name,
                        TrainJobPhase.of(job).displayName(),
                        job.getMetadata().getAnnotations().get(TrainJobMetadata.TTL_ANNOTATION));
            }
        }
        return deleted;
    }

    private void sweepQuietly() {
        try {
            sweep();
        } catch (KubernetesClientException e) {
            LOG.warn("TTL sweep failed, tried again at the next one: {}", e.getMessage());
        }
    }

    @Override
    public void close() {
        timer.shutdownNow();
    }
}
