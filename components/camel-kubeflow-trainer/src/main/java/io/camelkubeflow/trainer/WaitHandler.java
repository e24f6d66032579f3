package io.camelkubeflow.trainer;

import static io.camelkubeflow.trainer.KubeflowTrainerConstants.*;

import io.camelkubeflow.trainer.access.Access;
import io.camelkubeflow.trainer.access.AccessDeniedException;
import io.camelkubeflow.trainer.api.TrainJobRef;
import io.camelkubeflow.trainer.job.TrainJobManager;
import io.camelkubeflow.trainer.support.InvalidOptionException;
import io.camelkubeflow.trainer.watch.ReportedStatus;
import io.camelkubeflow.trainer.watch.TrainJobFailedException;
import io.camelkubeflow.trainer.watch.TrainJobSteps;
import io.camelkubeflow.trainer.watch.TrainJobWaitTimeoutException;
import io.camelkubeflow.trainer.watch.WaitResult;
import io.camelkubeflow.trainer.watch.WaitTarget;
import java.time.Duration;
import java.util.concurrent.CompletionException;
import org.apache.camel.AsyncCallback;
import org.apache.camel.Exchange;
import org.apache.camel.Message;

/**
 * {@code wait}: asynchronous; no Camel thread is held while the job runs, the exchange continues from the watch event
 * that ends the wait (or from the timeout).
 */
final class WaitHandler extends OperationHandler {
    private TrainJobManager jobs;
    private TrainJobSteps steps;

    WaitHandler(KubeflowTrainerEndpoint endpoint) {
        super(endpoint);
    }

    @Override
    protected void doStart() {
        jobs = new TrainJobManager(endpoint.getClient(), endpoint.apiRetry());
        steps = endpoint.trainJobSteps();
    }

    @Override
    boolean process(Exchange exchange, AsyncCallback callback) {
        KubeflowTrainerConfiguration configuration = endpoint.getConfiguration();
        Message in = exchange.getMessage();
        TrainJobRef job;
        WaitTarget target;
        Duration timeout;
        Duration queueTimeout;
        boolean tellKueue;
        try {
            job = TrainJobHeaders.reference(in, endpoint.defaultNamespace());
            endpoint.authorize(exchange, Access.trainJobs("get", job.namespace(), job.name()));
            String wanted = in.getHeader(WAIT_FOR, String.class);
            target = wanted == null ? configuration.getWaitFor() : WaitTarget.parse(WAIT_FOR, wanted);
            timeout = duration(exchange, WAIT_TIMEOUT, configuration.getWaitTimeout());
            queueTimeout = duration(exchange, QUEUE_TIMEOUT, configuration.getQueueTimeout());
            tellKueue = mayReadWorkloads(exchange, job.namespace());
        } catch (RuntimeException e) {
            exchange.setException(e);
            callback.done(true);
            return true;
        }
        TrainerMetrics metrics = endpoint.getComponent().metrics();
        long started = System.nanoTime();
        endpoint.getWatcher()
                .await(
                        job.namespace(),
                        job.name(),
                        target.phase(),
                        timeout,
                        queueTimeout,
                        configuration.isThrowOnFailure(),
                        endpoint.apiRetry(),
                        tellKueue)
                .whenComplete((result, error) -> {
                    Duration waited = Duration.ofNanos(System.nanoTime() - started);
                    if (error != null) {
                        Throwable cause = error instanceof CompletionException && error.getCause() != null
                                ? error.getCause()
                                : error;
                        if (cause instanceof TrainJobFailedException failed) {
                            setOutcome(exchange, failed.getResult());
                            metrics.waited(failed.getResult(), waited);
                        } else if (cause instanceof TrainJobWaitTimeoutException timedOut) {
                            metrics.timedOut();
                            ReportedStatus lastSeen = timedOut.getLastSeen();
                            if (lastSeen != null) {
                                // what an error handler decides on: Queued (and Kueue's reason) is not stuck
                                TrainJobHeaders.status(
                                        exchange.getMessage(),
                                        lastSeen.status(),
                                        lastSeen.reason(),
                                        lastSeen.message());
                            }
                            if (configuration.isDeleteOnTimeout()) {
                                deleteAbandoned(job, timedOut);
                            }
                        }
                        exchange.setException(cause);
                    } else {
                        setOutcome(exchange, result);
                        metrics.waited(result, waited);
                    }
                    callback.done(false);
                });
        return false;
    }

    /**
     * Whether a timeout may tell the caller what Kueue says of the job: with authorizeCaller, only a caller who may
     * list the namespace's Workloads (as get and list).
     */
    private boolean mayReadWorkloads(Exchange exchange, String namespace) {
        try {
            endpoint.authorize(exchange, Access.workloads("list", namespace));
            return true;
        } catch (AccessDeniedException denied) {
            return false;
        }
    }

    /** A bound of the wait: the header's, else the endpoint's option (milliseconds). */
    private static Duration duration(Exchange exchange, String header, long optionMillis) {
        Object value = exchange.getMessage().getHeader(header);
        if (value == null) {
            return Duration.ofMillis(optionMillis);
        }
        Duration duration = exchange.getContext().getTypeConverter().tryConvertTo(Duration.class, exchange, value);
        if (duration == null) {
            throw new InvalidOptionException(
                    header,
                    "'" + value + "' is not a duration; give milliseconds or" + " a java.time.Duration such as PT30M");
        }
        return duration;
    }

    /** deleteOnTimeout: the job of a wait given up on goes; the exception says whether it did. */
    private void deleteAbandoned(TrainJobRef job, TrainJobWaitTimeoutException timeout) {
        try {
            boolean deleted = jobs.delete(
                    job.namespace(), job.name(), endpoint.getConfiguration().getDeletePropagation());
            timeout.addSuppressed(new IllegalStateException(
                    "deleteOnTimeout: TrainJob " + job + (deleted ? " was deleted" : " was already gone")));
        } catch (RuntimeException e) {
            timeout.addSuppressed(e);
        }
    }

    private void setOutcome(Exchange exchange, WaitResult result) {
        Message out = exchange.getMessage();
        TrainJobHeaders.job(out, result.trainJob());
        out.setHeader(
                STEPS,
                steps.of(
                        endpoint.watchedNamespace(
                                result.trainJob().getMetadata().getNamespace()),
                        result.trainJob()));
        TrainJobHeaders.status(out, result.phase().displayName(), result.reason(), result.message());
        out.setHeader(POD_FAILURE, result.podDetail());
        out.setHeader(
                DURATION,
                result.jobDuration() == null ? null : result.jobDuration().toMillis());
        TrainJobHeaders.progress(out, result.progress());
    }
}
