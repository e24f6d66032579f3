package io.camelkubeflow.trainer;

import static io.camelkubeflow.trainer.KubeflowTrainerConstants.*;

import io.camelkubeflow.trainer.api.KubernetesNames;
import io.camelkubeflow.trainer.api.TrainJob;
import io.camelkubeflow.trainer.api.TrainJobRef;
import io.camelkubeflow.trainer.job.TrainJobMetadata;
import io.camelkubeflow.trainer.support.InvalidOptionException;
import io.camelkubeflow.trainer.watch.ReportedStatus;
import io.camelkubeflow.trainer.watch.TrainJobProgress;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import org.apache.camel.Exchange;
import org.apache.camel.Message;

/**
 * The one reader and writer of the headers that say which TrainJob a message is about, where it stands and how far it
 * got; used by every operation and the events consumer, so they all say it the same way.
 */
final class TrainJobHeaders {
    /** The uids of the TrainJobs this component put in an exchange's body (a Set, per exchange). */
    private static final String ANSWERED_JOBS_PROPERTY = "CamelKubeflowTrainerAnsweredJobs";
    /** Followed by a header's name: the value this component last answered with in that header. */
    private static final String ANSWERED_HEADER_PREFIX = "CamelKubeflowTrainerAnswered.";

    private TrainJobHeaders() {}

    /**
     * The job a message names: the headers train leaves, else a TrainJob body; its namespace falls back too. Both
     * names are checked before anything uses them (InvalidOptionException naming the header).
     */
    static TrainJobRef reference(Message in, String defaultNamespace) {
        TrainJob bodyJob = in.getBody() instanceof TrainJob job ? job : null;
        String name = in.getHeader(JOB_NAME, String.class);
        if (name == null && bodyJob != null) {
            name = bodyJob.getMetadata().getName();
        }
        if (name == null) {
            throw new InvalidOptionException(
                    JOB_NAME,
                    "no TrainJob named; set the header (kubeflow-trainer:train"
                            + " sets it) or send the TrainJob as the body");
        }
        String namespace = in.getHeader(NAMESPACE, String.class);
        if (namespace == null && bodyJob != null) {
            namespace = bodyJob.getMetadata().getNamespace();
        }
        return new TrainJobRef(
                namespace != null
                        ? KubernetesNames.namespace(NAMESPACE, namespace)
                        : KubernetesNames.namespace("namespace", defaultNamespace),
                KubernetesNames.trainJobName(JOB_NAME, name));
    }

    /** The namespace a message names (header), else the endpoint's; checked as a namespace name. */
    static String namespace(Message in, String defaultNamespace) {
        String namespace = in.getHeader(NAMESPACE, String.class);
        return namespace != null
                ? KubernetesNames.namespace(NAMESPACE, namespace)
                : KubernetesNames.namespace("namespace", defaultNamespace);
    }

    /** The job's name and namespace. */
    static void identity(Message out, TrainJobRef job) {
        answer(out, JOB_NAME, job.name());
        answer(out, NAMESPACE, job.namespace());
    }

    /**
     * Sets (null: removes) a header this component answers with that a train step also reads as input, and remembers
     * the value as this component's, so a later train step of the exchange does not take it for what the caller asked
     * (the job an earlier step made, its namespace, its key, its output). A value the caller set and the answer
     * repeats stays the caller's (a namespace header meant for every step).
     */
    static void answer(Message out, String header, Object value) {
        if (value != null && value.equals(out.getHeader(header)) && callersHeader(out, header)) {
            return;
        }
        setOrRemove(out, header, value);
        if (value == null) {
            out.getExchange().removeProperty(ANSWERED_HEADER_PREFIX + header);
        } else {
            out.getExchange().setProperty(ANSWERED_HEADER_PREFIX + header, value);
        }
    }

    /** Whether the header holds what the caller set, not what an earlier step of this component answered with. */
    static boolean callersHeader(Message in, String header) {
        Object value = in.getHeader(header);
        return value != null && !value.equals(in.getExchange().getProperty(ANSWERED_HEADER_PREFIX + header));
    }

    /**
     * The job as the body, with its name, namespace and uid; remembered as this exchange's answer, so that a later train
     * step does not take it (or its JSON) for a request.
     */
    static void job(Message out, TrainJob job) {
        out.setBody(job);
        identity(out, TrainJobRef.of(job));
        String uid = job.getMetadata().getUid();
        out.setHeader(JOB_UID, uid);
        Map<String, String> annotations = job.getMetadata().getAnnotations();
        setOrRemove(
                out,
                CODE_DIGEST,
                annotations == null ? null : annotations.get(TrainJobMetadata.CODE_DIGEST_ANNOTATION));
        answer(out, OUTPUT_URI, annotations == null ? null : annotations.get(TrainJobMetadata.OUTPUT_URI_ANNOTATION));
        if (uid != null) {
            @SuppressWarnings("unchecked")
            Set<String> answered = out.getExchange().getProperty(ANSWERED_JOBS_PROPERTY, Set.class);
            if (answered == null) {
                answered = new HashSet<>();
                out.getExchange().setProperty(ANSWERED_JOBS_PROPERTY, answered);
            }
            answered.add(uid);
        }
    }

    /** Whether the job is one an earlier step of this exchange answered with (a train, wait, get or events step). */
    static boolean answeredEarlier(Exchange exchange, TrainJob job) {
        Set<?> answered = exchange.getProperty(ANSWERED_JOBS_PROPERTY, Set.class);
        return answered != null
                && job.getMetadata() != null
                && answered.contains(job.getMetadata().getUid());
    }

    /** The job as the body, with its identity and the status it is in now. */
    static void jobWithStatus(Message out, TrainJob job, ReportedStatus status) {
        job(out, job);
        status(out, status.status(), status.reason(), status.message());
    }

    static void status(Message out, String status, String reason, String message) {
        out.setHeader(STATUS, status);
        out.setHeader(REASON, reason);
        out.setHeader(MESSAGE, message);
    }

    /** The progress headers: each one removed when the progress lacks it, so a second wait keeps none of the first's. */
    static void progress(Message message, TrainJobProgress progress) {
        setOrRemove(message, PROGRESS_SOURCE, progress == null ? null : progress.source());
        setOrRemove(message, PROGRESS_PERCENT, progress == null ? null : progress.percent());
        setOrRemove(
                message, ESTIMATED_REMAINING_SECONDS, progress == null ? null : progress.estimatedRemainingSeconds());
        setOrRemove(
                message, TRAINER_METRICS, progress == null || progress.metrics().isEmpty() ? null : progress.metrics());
        setOrRemove(message, PODS_READY, progress == null ? null : progress.podsReady());
        setOrRemove(message, PODS_TOTAL, progress == null ? null : progress.podsTotal());
    }

    private static void setOrRemove(Message message, String header, Object value) {
        if (value == null) {
            message.removeHeader(header);
        } else {
            message.setHeader(header, value);
        }
    }
}
