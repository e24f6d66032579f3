package io.camelkubeflow.trainer;

import static io.camelkubeflow.trainer.KubeflowTrainerConstants.*;

import io.camelkubeflow.trainer.api.TrainJob;
import io.camelkubeflow.trainer.api.TrainJobPhase;
import io.camelkubeflow.trainer.job.TrainJobManager;
import io.camelkubeflow.trainer.job.TrainJobMetadata;
import io.camelkubeflow.trainer.support.TrainJobMdc;
import io.camelkubeflow.trainer.watch.TrainJobEvent;
import io.camelkubeflow.trainer.watch.TrainJobEventStream;
import io.camelkubeflow.trainer.watch.TrainJobStep;
import io.camelkubeflow.trainer.watch.TrainJobSteps;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.camel.Exchange;
import org.apache.camel.Message;
import org.apache.camel.Processor;
import org.apache.camel.support.DefaultConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code from("kubeflow-trainer:events")}: one exchange each time a TrainJob changes status, never twice for the same
 * change. Events are processed in order, one at a time. With {@code progressInterval}, running jobs also send Progress
 * events (header CamelKubeflowTrainerEvent=Progress) with the progress headers. For one emitter among several
 * replicas, run the route under Camel's master component with a cluster service (e.g. camel-kubernetes' Lease-based one):
 * {@code from("master:trainjob-events:kubeflow-trainer:events")}. With {@code handledMark}, each end (Complete,
 * Failed) the route processed without error is recorded on the TrainJob, and ends that happened while the route was
 * stopped are emitted when it starts: each end is handled once across restarts (at least once if the app dies between
 * handling it and marking it). A consumer that cannot list TrainJobs when it starts (the API server does not answer)
 * starts all the same and keeps trying in the background, so an app is not stopped by an outage.
 */
public class KubeflowTrainerConsumer extends DefaultConsumer {
    private static final Logger LOG = LoggerFactory.getLogger(KubeflowTrainerConsumer.class);
    private TrainJobManager jobs;
    private TrainJobSteps steps;
    /** Set once the events are followed (at start, or by a retry when the API server was down then). */
    private volatile TrainJobEventStream events;
    /** With handledMark: the annotation that records that this route handled a job's end. */
    private String handledAnnotation;
    /** While the API server does not answer at start: tries the first list again, backing off up to a limit. */
    private ScheduledExecutorService retries;

    private volatile boolean stopping;
    private static final Duration START_RETRY_FIRST = Duration.ofSeconds(1);
    private static final Duration START_RETRY_MAX = Duration.ofSeconds(30);

    public KubeflowTrainerConsumer(KubeflowTrainerEndpoint endpoint, Processor processor) {
        super(endpoint, processor);
    }

    @Override
    public KubeflowTrainerEndpoint getEndpoint() {
        return (KubeflowTrainerEndpoint) super.getEndpoint();
    }

    @Override
    protected void doStart() throws Exception {
        super.doStart();
        stopping = false;
        KubeflowTrainerConfiguration configuration = getEndpoint().getConfiguration();
        jobs = new TrainJobManager(getEndpoint().getClient(), getEndpoint().apiRetry());
        steps = getEndpoint().trainJobSteps();
        handledAnnotation = configuration.getHandledMark() == null
                ? null
                : TrainJobMetadata.handledAnnotation(configuration.getHandledMark());
        try {
            startEvents();
        } catch (KubernetesClientException e) {
            // an outage is a state, not a crash: the route starts and its events follow once the API answers
            retries = getEndpoint()
                    .getCamelContext()
                    .getExecutorServiceManager()
                    .newSingleThreadScheduledExecutor(this, "KubeflowTrainerEventsStart");
            retryStart(e, START_RETRY_FIRST);
        }
    }

    /**
     * Lists the jobs (the first list of the namespace's informer) and follows their changes from there; a stream that
     * failed to start is closed, so a retry starts afresh.
     */
    private void startEvents() {
        KubeflowTrainerConfiguration configuration = getEndpoint().getConfiguration();
        String namespace =
                configuration.isAllNamespaces() ? null : getEndpoint().defaultNamespace();
        TrainJobEventStream stream =
                new TrainJobEventStream(this::emit, getEndpoint().informers());
        try {
            stream.start(
                    namespace,
                    configuration.getLabelSelector(),
                    configuration.isEmitExisting(),
                    handledAnnotation == null ? null : this::unhandled);
            if (configuration.getProgressInterval() > 0) {
                stream.emitProgressEvery(Duration.ofMillis(configuration.getProgressInterval()));
            }
        } catch (RuntimeException e) {
            stream.close();
            throw e;
        }
        events = stream;
        if (stopping) {
            // stopped while a retry was starting it
            stream.close();
        }
    }

    private void retryStart(KubernetesClientException failure, Duration delay) {
        LOG.warn(
                "Cannot list TrainJobs for {} yet ({}); trying again in {} s, events follow once the Kubernetes API"
                        + " answers",
                getEndpoint().getEndpointBaseUri(),
                failure.getMessage(),
                delay.toSeconds());
        retries.schedule(
                () -> {
                    if (stopping) {
                        return;
                    }
                    try {
                        startEvents();
                        LOG.info(
                                "Listing TrainJobs for {} works again: its events follow from now on",
                                getEndpoint().getEndpointBaseUri());
                    } catch (KubernetesClientException e) {
                        Duration next = delay.multipliedBy(2);
                        retryStart(e, next.compareTo(START_RETRY_MAX) > 0 ? START_RETRY_MAX : next);
                    }
                },
                delay.toMillis(),
                TimeUnit.MILLISECONDS);
    }

    @Override
    protected void doStop() throws Exception {
        stopping = true;
        if (retries != null) {
            getEndpoint().getCamelContext().getExecutorServiceManager().shutdownNow(retries);
            retries = null;
        }
        if (events != null) {
            events.close();
            events = null;
        }
        super.doStop();
    }

    private void emit(TrainJobEvent event) {
        Exchange exchange = createExchange(false);
        Message message = exchange.getMessage();
        TrainJobHeaders.job(message, event.trainJob());
        message.setHeader(EVENT, event.type());
        // a Progress event is news about a running job
        TrainJobHeaders.status(
                message,
                TrainJobEvent.PROGRESS.equals(event.type()) ? "Running" : event.type(),
                event.reason(),
                event.message());
        TrainJobHeaders.progress(message, event.progress());
        message.setHeader(STEPS, steps(event.trainJob()));
        Map<String, String> annotations = event.trainJob().getMetadata().getAnnotations();
        String traceParent = annotations == null
                ? null
                : TrainJobMetadata.traceParent(annotations.get(TrainJobMetadata.TRACE_PARENT_ANNOTATION));
        if (traceParent != null) {
            // the route's span (Camel's tracing extracts it) continues the trace of the request that made the job
            message.setHeader(TrainJobMetadata.TRACE_PARENT_HEADER, traceParent);
        }
        try {
            getProcessor().process(exchange);
        } catch (Exception e) {
            exchange.setException(e);
        }
        if (exchange.getException() != null) {
            getExceptionHandler()
                    .handleException(
                            "Error processing TrainJob event " + event.type() + " of "
                                    + event.trainJob().getMetadata().getName(),
                            exchange,
                            exchange.getException());
        } else if (handledAnnotation != null
                && TrainJobPhase.of(event.trainJob()).isTerminal()) {
            markHandled(event);
        }
        releaseExchange(exchange, false);
    }

    /** The job's steps as its pods stand now; none when they cannot be read, so the event still goes out. */
    private List<TrainJobStep> steps(TrainJob job) {
        try {
            return steps.of(getEndpoint().watchedNamespace(job.getMetadata().getNamespace()), job);
        } catch (KubernetesClientException e) {
            LOG.debug(
                    "Cannot read the pods of TrainJob {}/{}: {}",
                    job.getMetadata().getNamespace(),
                    job.getMetadata().getName(),
                    e.getMessage());
            return List.of();
        }
    }

    /**
     * Whether an end found at start was not handled. The informer is shared with whatever watched before (a route
     * stopped and started again in the same app), and its copy may not have the mark written a moment ago yet: a job
     * without it there is asked of the API server, whose copy decides (a GET per unhandled end found, at start only).
     */
    private boolean unhandled(TrainJob job) {
        if (marked(job)) {
            return false;
        }
        try {
            TrainJob current = jobs.find(
                    job.getMetadata().getNamespace(), job.getMetadata().getName());
            return current != null && !marked(current);
        } catch (KubernetesClientException e) {
            // unknown: emitted (at least once), as an end whose mark could not be written is
            return true;
        }
    }

    private boolean marked(TrainJob job) {
        Map<String, String> annotations = job.getMetadata().getAnnotations();
        return annotations != null && annotations.containsKey(handledAnnotation);
    }

    /** Records on the job that its end went through this route, so a restart does not emit it again. */
    private void markHandled(TrainJobEvent event) {
        TrainJob job = event.trainJob();
        try {
            jobs.annotate(
                    job.getMetadata().getNamespace(), job.getMetadata().getName(), handledAnnotation, event.type());
        } catch (KubernetesClientException e) {
            // the end was handled; without the mark it is emitted once more after a restart (at least once)
            try (var log = TrainJobMdc.of(
                    job.getMetadata().getNamespace(), job.getMetadata().getName())) {
                LOG.warn(
                        "Could not mark TrainJob {}/{} as handled ({}): {}",
                        job.getMetadata().getNamespace(),
                        job.getMetadata().getName(),
                        handledAnnotation,
                        e.getMessage());
            }
        }
    }
}
