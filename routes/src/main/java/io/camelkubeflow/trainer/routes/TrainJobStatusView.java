package io.camelkubeflow.trainer.routes;

import io.camelkubeflow.trainer.api.TrainJob;
import io.camelkubeflow.trainer.api.TrainJobNotFoundException;
import io.camelkubeflow.trainer.api.TrainJobPhase;
import io.camelkubeflow.trainer.job.TrainJobManager;
import io.camelkubeflow.trainer.job.TrainJobMetadata;
import io.camelkubeflow.trainer.support.ApiRetry;
import io.camelkubeflow.trainer.watch.ReportedStatus;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.client.KubernetesClient;
import jakarta.annotation.PostConstruct;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.inject.Named;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The summary of a TrainJob that the HTTP API answers with (and the Kafka results carry), and where one stands for a
 * read of its log (asked by the log stream).
 */
@ApplicationScoped
@Named("trainJobStatusView")
public class TrainJobStatusView {
    @Inject
    KubernetesClient client;

    private TrainJobManager jobs;

    @PostConstruct
    void readWithTheAppsClient() {
        // one read, not retried: a caller waiting for an answer is told the API is unreachable instead
        jobs = new TrainJobManager(client, new ApiRetry(1, Duration.ZERO, Duration.ZERO));
    }

    /**
     * Where the job, read now, stands for a read of its log: SUSPENDED also when its spec says so while it has not
     * ended, even before the controller has written its Suspended condition (no pod of it runs, nor will until it is
     * resumed). A missing job is {@link TrainJobNotFoundException}, a name that is no TrainJob name an
     * InvalidOptionException before any request.
     */
    public TrainJobPhase phaseForLogs(String namespace, String name) {
        TrainJob job = jobs.get(namespace, name);
        TrainJobPhase phase = TrainJobPhase.of(job);
        return Boolean.TRUE.equals(job.getSpec().suspend()) && !phase.isTerminal() ? TrainJobPhase.SUSPENDED : phase;
    }

    /**
     * The summary with the job's steps (CamelKubeflowTrainerSteps of the operation that read it) and its status as the
     * operation reported it (for a job Kueue holds, what its Workload says; null: the job's own).
     */
    public Map<String, Object> summary(TrainJob job, Object steps, ReportedStatus status) {
        Map<String, Object> view = summary(job, status);
        view.put("steps", steps == null ? List.of() : steps);
        return view;
    }

    /** The summary with the job's own status: a job just created, or one that has ended. */
    public Map<String, Object> summary(TrainJob job) {
        return summary(job, (ReportedStatus) null);
    }

    /** name, namespace, uid, runtime, created, status and, once decided, reason, message and durationMillis. */
    private Map<String, Object> summary(TrainJob job, ReportedStatus reported) {
        Map<String, Object> view = new LinkedHashMap<>();
        view.put("name", job.getMetadata().getName());
        view.put("namespace", job.getMetadata().getNamespace());
        view.put("uid", job.getMetadata().getUid());
        view.put("runtime", job.getSpec().runtimeRef().name());
        view.put("created", job.getMetadata().getCreationTimestamp());
        ReportedStatus status = reported != null ? reported : ReportedStatus.own(job);
        view.put("status", status.status());
        if (status.reason() != null || status.message() != null) {
            view.put("reason", status.reason());
            view.put("message", status.message());
        }
        Condition condition = TrainJobPhase.decidingCondition(job);
        if (condition != null) {
            if (TrainJobPhase.of(job).isTerminal()
                    && job.getMetadata().getCreationTimestamp() != null
                    && condition.getLastTransitionTime() != null) {
                view.put(
                        "durationMillis",
                        Duration.between(
                                        OffsetDateTime.parse(job.getMetadata().getCreationTimestamp()),
                                        OffsetDateTime.parse(condition.getLastTransitionTime()))
                                .toMillis());
            }
        }
        putOutput(view, job);
        return view;
    }

    /**
     * Where the job was told to write (outputUri) and the digest of its code (codeDigest), each when the job records
     * it: what the route that carries a result onward needs (job answers, Kafka results, model-ready events).
     */
    static void putOutput(Map<String, Object> message, TrainJob job) {
        Map<String, String> annotations =
                job.getMetadata() == null ? null : job.getMetadata().getAnnotations();
        if (annotations == null) {
            return;
        }
        for (Map.Entry<String, String> field : Map.of(
                        "outputUri",
                        TrainJobMetadata.OUTPUT_URI_ANNOTATION,
                        "codeDigest",
                        TrainJobMetadata.CODE_DIGEST_ANNOTATION)
                .entrySet()) {
            String value = annotations.get(field.getValue());
            if (value != null) {
                message.put(field.getKey(), value);
            }
        }
    }
}
