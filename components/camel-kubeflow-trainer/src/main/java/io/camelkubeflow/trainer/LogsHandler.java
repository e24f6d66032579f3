package io.camelkubeflow.trainer;

import static io.camelkubeflow.trainer.KubeflowTrainerConstants.*;

import io.camelkubeflow.trainer.access.Access;
import io.camelkubeflow.trainer.api.TrainJobRef;
import io.camelkubeflow.trainer.job.TrainJobManager;
import io.camelkubeflow.trainer.logs.LogStep;
import io.camelkubeflow.trainer.logs.TrainJobLogs;
import io.camelkubeflow.trainer.support.TrainJobMdc;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import org.apache.camel.AsyncCallback;
import org.apache.camel.Exchange;
import org.apache.camel.Message;
import org.apache.camel.ProducerTemplate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code logs}: reads (and follows) on the component's own pool of log threads, never Camel's, holding none while a
 * read waits for lines, and continues the exchange when the read ends; lines go to logDestination as they come.
 */
final class LogsHandler extends OperationHandler {
    private static final Logger LOG = LoggerFactory.getLogger(LogsHandler.class);
    private LogStep defaultStep;
    private TrainJobManager jobs;
    private ExecutorService logThreads;
    /** Reads in flight: stopping the producer ends them, and their exchanges continue with the cancellation. */
    private final Set<CompletableFuture<List<String>>> reads = ConcurrentHashMap.newKeySet();

    private ProducerTemplate logDestination;

    LogsHandler(KubeflowTrainerEndpoint endpoint) {
        super(endpoint);
    }

    @Override
    protected void doStart() {
        KubeflowTrainerConfiguration configuration = endpoint.getConfiguration();
        defaultStep = LogStep.parse("logStep", configuration.getLogStep());
        jobs = new TrainJobManager(endpoint.getClient(), endpoint.apiRetry());
        logThreads = endpoint.getCamelContext()
                .getExecutorServiceManager()
                .newDefaultThreadPool(this, "KubeflowTrainerLogs");
        logDestination = configuration.getLogDestination() == null
                ? null
                : endpoint.getCamelContext().createProducerTemplate();
    }

    @Override
    protected void doStop() throws Exception {
        if (logThreads != null) {
            endpoint.getCamelContext().getExecutorServiceManager().shutdownNow(logThreads);
        }
        // after the threads are shut down, so the exchanges continue on this thread
        reads.forEach(read -> read.cancel(false));
        if (logDestination != null) {
            logDestination.close();
            logDestination = null;
        }
    }

    @Override
    boolean process(Exchange exchange, AsyncCallback callback) {
        KubeflowTrainerConfiguration configuration = endpoint.getConfiguration();
        TrainJobRef job;
        LogStep step;
        try {
            job = TrainJobHeaders.reference(exchange.getMessage(), endpoint.defaultNamespace());
            // the job's own right first: one who may read pod logs but not get the TrainJob learns nothing of it,
            // not even whether it exists or has started
            endpoint.authorize(exchange, Access.trainJobs("get", job.namespace(), job.name()));
            endpoint.authorize(exchange, Access.readPodLogs(job.namespace()));
            String stepText = exchange.getMessage().getHeader(LOG_STEP, String.class);
            step = stepText == null ? defaultStep : LogStep.parse(LOG_STEP, stepText);
        } catch (RuntimeException e) {
            exchange.setException(e);
            callback.done(true);
            return true;
        }
        TrainJobLogs.Request request = new TrainJobLogs.Request(
                job.namespace(),
                job.name(),
                step,
                configuration.isFollow(),
                configuration.getTailLines(),
                configuration.getSinceSeconds(),
                Duration.ofMillis(configuration.getLogStartTimeout()));
        LogCollector collector = new LogCollector(
                step.kind() == LogStep.Kind.ALL,
                configuration.getMaxLogBytes(),
                logDestination,
                configuration.getLogDestination(),
                configuration.getLogChunkLines(),
                job);
        CompletableFuture<List<String>> read =
                new TrainJobLogs(endpoint.getClient(), endpoint.informers(), logThreads).read(request, collector);
        reads.add(read);
        read.whenCompleteAsync(
                (steps, failure) -> {
                    reads.remove(read);
                    try {
                        if (failure != null) {
                            throw failure;
                        }
                        collector.flush();
                        if (endpoint.getComponent().existingReaper(endpoint.getClient()) != null) {
                            markLogsCaptured(job);
                        }
                        Message out = exchange.getMessage();
                        out.setBody(collector.body());
                        TrainJobHeaders.identity(out, job);
                        out.setHeader(LOG_LINES, collector.lines());
                        out.setHeader(LOG_TRUNCATED, collector.truncated());
                    } catch (Throwable e) {
                        exchange.setException(e);
                    } finally {
                        callback.done(false);
                    }
                },
                this::onLogThread);
        return false;
    }

    /**
     * Continues an exchange on the log threads, not on the thread that ended its read (an informer's, a timer's); on
     * this one once they are shut down.
     */
    private void onLogThread(Runnable task) {
        if (logThreads.isShutdown()) {
            task.run();
        } else {
            logThreads.execute(task);
        }
    }

    /**
     * A TTL runs from the capture of a finished job's log, so it is not deleted under a reader. The log was read:
     * failing to record that only shortens the TTL's count, it does not fail the exchange.
     */
    private void markLogsCaptured(TrainJobRef job) {
        try {
            jobs.markLogsCaptured(job.namespace(), job.name());
        } catch (RuntimeException e) {
            try (var log = TrainJobMdc.of(job.namespace(), job.name())) {
                LOG.warn("Could not record that the log of TrainJob {} was captured: {}", job, e.getMessage());
            }
        }
    }
}
