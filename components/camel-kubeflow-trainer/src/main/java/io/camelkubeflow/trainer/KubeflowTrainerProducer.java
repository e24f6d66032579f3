package io.camelkubeflow.trainer;

import java.time.Duration;
import java.util.concurrent.ExecutorService;

import io.camelkubeflow.trainer.api.TrainJob;
import io.camelkubeflow.trainer.job.ApiRetry;
import io.camelkubeflow.trainer.job.InvalidTrainRequestException;
import io.camelkubeflow.trainer.job.SubmitResult;
import io.camelkubeflow.trainer.job.TrainJobLogContext;
import io.camelkubeflow.trainer.job.TrainJobManager;
import io.camelkubeflow.trainer.job.TrainJobMetadata;
import io.camelkubeflow.trainer.job.TrainJobReaper;
import io.camelkubeflow.trainer.job.TrainJobSubmitter;
import io.camelkubeflow.trainer.job.TrainRequest;
import io.camelkubeflow.trainer.logs.LogStep;
import io.camelkubeflow.trainer.logs.TrainJobLogs;
import io.camelkubeflow.trainer.runtime.RuntimeCatalog;
import io.camelkubeflow.trainer.watch.TrainJobFailedException;
import io.camelkubeflow.trainer.watch.TrainJobPhase;
import io.camelkubeflow.trainer.watch.TrainJobWaitTimeoutException;
import io.camelkubeflow.trainer.watch.WaitResult;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.DeletionPropagation;
import org.apache.camel.AsyncCallback;
import org.apache.camel.Exchange;
import org.apache.camel.Expression;
import org.apache.camel.Message;
import org.apache.camel.ProducerTemplate;
import org.apache.camel.support.DefaultAsyncProducer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import static io.camelkubeflow.trainer.KubeflowTrainerConstants.*;

/**
 * Runs the endpoint's operation for each exchange. Failures are set on the exchange, so onException and redelivery
 * apply; a bad request fails with {@link InvalidTrainRequestException} before any write. {@code wait} is asynchronous:
 * no Camel thread is held while the job runs, the exchange continues from the watch event that ends the wait.
 * {@code logs} reads on the component's own log threads and continues the exchange when the read ends.
 */
public class KubeflowTrainerProducer extends DefaultAsyncProducer {
    private static final Logger LOG = LoggerFactory.getLogger(KubeflowTrainerProducer.class);
    private TrainRequest endpointDefaults;
    private Expression idempotencyKey;
    private Expression runKey;
    private TrainJobSubmitter submitter;
    private ApiRetry retry;
    private TrainJobManager manager;
    private RuntimeCatalog runtimeCatalog;
    private DeletionPropagation deletePropagation;
    private TrainJobPhase defaultWaitFor;
    private LogStep defaultLogStep;
    private ExecutorService logExecutor;
    private ProducerTemplate logDestination;

    public KubeflowTrainerProducer(KubeflowTrainerEndpoint endpoint) {
        super(endpoint);
    }

    @Override
    public KubeflowTrainerEndpoint getEndpoint() {
        return (KubeflowTrainerEndpoint) super.getEndpoint();
    }

    @Override
    protected void doStart() throws Exception {
        super.doStart();
        KubeflowTrainerConfiguration configuration = getEndpoint().getConfiguration();
        endpointDefaults = ExchangeTrainRequests.fromConfiguration(getEndpoint().getCamelContext(), configuration);
        idempotencyKey = configuration.getIdempotencyKey() == null ? null
                : getEndpoint().getCamelContext().resolveLanguage("simple")
                        .createExpression(configuration.getIdempotencyKey());
        runKey = configuration.getRunKey() == null ? null
                : getEndpoint().getCamelContext().resolveLanguage("simple").createExpression(configuration.getRunKey());
        retry = getEndpoint().apiRetry();
        submitter = new TrainJobSubmitter(getEndpoint().getClient(), retry);
        manager = new TrainJobManager(getEndpoint().getClient(), retry);
        runtimeCatalog = new RuntimeCatalog(getEndpoint().getClient(), retry);
        if (configuration.getTtlAfterFinished() > 0) {
            // after a restart too: the jobs of this namespace with a TTL are looked after again
            ttlReaper().watchNamespace(getEndpoint().defaultNamespace());
        }
        deletePropagation = deletePropagation(configuration.getDeletePropagation());
        defaultWaitFor = TrainJobPhase.parseTarget("waitFor", configuration.getWaitFor());
        defaultLogStep = LogStep.parse("logStep", configuration.getLogStep());
        if (getEndpoint().getOperation() == KubeflowTrainerOperation.logs) {
            logExecutor = getEndpoint().getCamelContext().getExecutorServiceManager()
                    .newCachedThreadPool(this, "KubeflowTrainerLogs");
            logDestination = configuration.getLogDestination() == null ? null
                    : getEndpoint().getCamelContext().createProducerTemplate();
        }
    }

    @Override
    protected void doStop() throws Exception {
        if (logExecutor != null) {
            getEndpoint().getCamelContext().getExecutorServiceManager().shutdownNow(logExecutor);
            logExecutor = null;
        }
        if (logDestination != null) {
            logDestination.close();
            logDestination = null;
        }
        super.doStop();
    }

    @Override
    public boolean process(Exchange exchange, AsyncCallback callback) {
        try {
            switch (getEndpoint().getOperation()) {
                case train -> train(exchange);
                case wait -> {
                    return startWait(exchange, callback);
                }
                case logs -> {
                    return startLogs(exchange, callback);
                }
                case get -> {
                    String[] job = jobReference(exchange);
                    setJob(exchange, manager.get(job[0], job[1]));
                }
                case list -> exchange.getMessage().setBody(manager.list(getEndpoint().getConfiguration()
                        .isAllNamespaces() ? null : namespace(exchange), getEndpoint().getConfiguration()
                        .getLabelSelector()));
                case delete -> {
                    String[] job = jobReference(exchange);
                    exchange.getMessage().setHeader(DELETED, manager.delete(job[0], job[1], deletePropagation));
                    exchange.getMessage().setHeader(JOB_NAME, job[1]);
                    exchange.getMessage().setHeader(NAMESPACE, job[0]);
                }
                case suspend, resume -> {
                    String[] job = jobReference(exchange);
                    setJob(exchange, manager.setSuspended(job[0], job[1],
                            getEndpoint().getOperation() == KubeflowTrainerOperation.suspend));
                }
                case runtimes -> exchange.getMessage().setBody(runtimeCatalog.runtimes(namespace(exchange),
                        endpointDefaults.imageRules()));
                case events -> throw new IllegalStateException("events is a consumer");
            }
        } catch (Exception e) {
            exchange.setException(e);
        }
        callback.done(true);
        return true;
    }

    private void train(Exchange exchange) {
        String bodyType = getEndpoint().getConfiguration().getBodyType();
        TrainRequest request = endpointDefaults
                .overlay(ExchangeTrainRequests.fromBody(exchange, bodyType))
                .overlay(ExchangeTrainRequests.fromHeaders(exchange))
                .idempotencyKey(ExchangeTrainRequests.idempotencyKey(exchange, idempotencyKey));
        if (request.runKey() == null && runKey != null) {
            request.runKey(runKey.evaluate(exchange, String.class));
        }
        SubmitResult result = submitter.submit(request, getEndpoint().defaultNamespace());
        getEndpoint().getComponent().metrics().trained(result);
        if (TrainJobMetadata.hasTtl(result.trainJob())) {
            ttlReaper().watchNamespace(result.trainJob().getMetadata().getNamespace());
        }

        TrainJob job = result.trainJob();
        Message out = exchange.getMessage();
        out.setBody(job);
        out.setHeader(JOB_NAME, job.getMetadata().getName());
        out.setHeader(NAMESPACE, job.getMetadata().getNamespace());
        out.setHeader(JOB_UID, job.getMetadata().getUid());
        out.setHeader(IDEMPOTENCY_KEY, result.idempotencyKey());
        out.setHeader(ADOPTED, result.adopted());
        out.setHeader(SKIPPED, result.skipped());
        out.setHeader(LAUNCHER_CHOSEN, result.decision().launcher().optionValue());
        out.setHeader(LAUNCHER_RULE, result.decision().rule().name());
        out.setHeader(LAUNCHER_REASON, result.decision().reason());
    }

    /** deleteOnTimeout: the job of a wait given up on goes; the exception says whether it did. */
    private Exception deleteAbandoned(String namespace, String name, TrainJobWaitTimeoutException timeout) {
        try {
            boolean deleted = manager.delete(namespace, name, deletePropagation);
            timeout.addSuppressed(new IllegalStateException("deleteOnTimeout: TrainJob " + namespace + "/" + name
                    + (deleted ? " was deleted" : " was already gone")));
        } catch (RuntimeException e) {
            timeout.addSuppressed(e);
        }
        return timeout;
    }

    /**
     * A TTL runs from the capture of a finished job's log, so it is not deleted under a reader. The log was read:
     * failing to record that only shortens the TTL's count, it does not fail the exchange.
     */
    private void markLogsCaptured(String namespace, String name) {
        try {
            manager.markLogsCaptured(namespace, name);
        } catch (RuntimeException e) {
            try (var log = TrainJobLogContext.of(namespace, name)) {
                LOG.warn("Could not record that the log of TrainJob {}/{} was captured: {}", namespace, name,
                        e.getMessage());
            }
        }
    }

    private TrainJobReaper ttlReaper() {
        return getEndpoint().getComponent().reaperFor(getEndpoint().getClient(), retry);
    }

    /** The namespace a message names (header), else the endpoint's. */
    private String namespace(Exchange exchange) {
        String namespace = exchange.getMessage().getHeader(NAMESPACE, String.class);
        return namespace != null ? namespace : getEndpoint().defaultNamespace();
    }

    /** The TrainJob as the body, with its name, namespace, uid and status headers. */
    private static void setJob(Exchange exchange, TrainJob job) {
        Message out = exchange.getMessage();
        out.setBody(job);
        out.setHeader(JOB_NAME, job.getMetadata().getName());
        out.setHeader(NAMESPACE, job.getMetadata().getNamespace());
        out.setHeader(JOB_UID, job.getMetadata().getUid());
        out.setHeader(STATUS, TrainJobPhase.of(job).displayName());
        Condition condition = TrainJobPhase.decidingCondition(job);
        out.setHeader(REASON, condition == null ? null : condition.getReason());
        out.setHeader(MESSAGE, condition == null ? null : condition.getMessage());
    }

    private static DeletionPropagation deletePropagation(String text) {
        for (DeletionPropagation propagation : DeletionPropagation.values()) {
            if (propagation.name().equalsIgnoreCase(text)) {
                return propagation;
            }
        }
        throw new InvalidTrainRequestException("deletePropagation", "'" + text + "' is not one of Background,"
                + " Foreground or Orphan");
    }

    /** The job an exchange names: the headers train leaves, else a TrainJob body; its namespace falls back too. */
    private String[] jobReference(Exchange exchange) {
        Message in = exchange.getMessage();
        TrainJob bodyJob = in.getBody() instanceof TrainJob job ? job : null;
        String name = in.getHeader(JOB_NAME, String.class);
        if (name == null && bodyJob != null) {
            name = bodyJob.getMetadata().getName();
        }
        if (name == null) {
            throw new InvalidTrainRequestException(JOB_NAME, "no TrainJob named; set the header (kubeflow-trainer:train"
                    + " sets it) or send the TrainJob as the body");
        }
        String namespace = in.getHeader(NAMESPACE, String.class);
        if (namespace == null && bodyJob != null) {
            namespace = bodyJob.getMetadata().getNamespace();
        }
        if (namespace == null) {
            namespace = getEndpoint().defaultNamespace();
        }
        return new String[] { namespace, name };
    }

    private boolean startWait(Exchange exchange, AsyncCallback callback) {
        Message in = exchange.getMessage();
        String[] job = jobReference(exchange);
        String namespace = job[0];
        String name = job[1];
        String wanted = in.getHeader(WAIT_FOR, String.class);
        TrainJobPhase target = wanted == null ? defaultWaitFor : TrainJobPhase.parseTarget(WAIT_FOR, wanted);
        Duration timeout = in.getHeader(WAIT_TIMEOUT) == null
                ? Duration.ofMillis(getEndpoint().getConfiguration().getWaitTimeout())
                : exchange.getContext().getTypeConverter().convertTo(Duration.class, exchange, in.getHeader(WAIT_TIMEOUT));
        if (timeout == null) {
            throw new InvalidTrainRequestException(WAIT_TIMEOUT, "'" + in.getHeader(WAIT_TIMEOUT) + "' is not a"
                    + " duration; give milliseconds or a java.time.Duration such as PT30M");
        }
        boolean throwOnFailure = getEndpoint().getConfiguration().isThrowOnFailure();
        TrainerMetrics metrics = getEndpoint().getComponent().metrics();
        long started = System.nanoTime();
        getEndpoint().getWatcher().await(namespace, name, target, timeout, throwOnFailure, retry)
                .whenComplete((result, error) -> {
                    Duration waited = Duration.ofNanos(System.nanoTime() - started);
                    if (error != null) {
                        Throwable cause = error instanceof java.util.concurrent.CompletionException && error.getCause() != null
                                ? error.getCause() : error;
                        if (cause instanceof TrainJobFailedException failed) {
                            setOutcome(exchange, failed.getResult());
                            metrics.waited(failed.getResult(), waited);
                        } else if (cause instanceof TrainJobWaitTimeoutException) {
                            metrics.timedOut();
                            if (getEndpoint().getConfiguration().isDeleteOnTimeout()) {
                                cause = deleteAbandoned(namespace, name, (TrainJobWaitTimeoutException) cause);
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

    private boolean startLogs(Exchange exchange, AsyncCallback callback) {
        KubeflowTrainerConfiguration configuration = getEndpoint().getConfiguration();
        String[] job = jobReference(exchange);
        String stepText = exchange.getMessage().getHeader(LOG_STEP, String.class);
        LogStep step = stepText == null ? defaultLogStep : LogStep.parse(LOG_STEP, stepText);
        TrainJobLogs.Request request = new TrainJobLogs.Request(job[0], job[1], step, configuration.isFollow(),
                configuration.getTailLines(), configuration.getSinceSeconds(),
                Duration.ofMillis(configuration.getLogStartTimeout()));
        LogCollector collector = new LogCollector(step.kind() == LogStep.Kind.ALL, configuration.getMaxLogBytes(),
                logDestination, configuration.getLogDestination(), configuration.getLogChunkLines(), job[1], job[0]);
        // reading (and following) blocks on the stream: it runs on the component's log threads, not Camel's
        logExecutor.execute(() -> {
            try {
                new TrainJobLogs(getEndpoint().getClient()).read(request, collector, logExecutor);
                collector.flush();
                if (getEndpoint().getComponent().existingReaper(getEndpoint().getClient()) != null) {
                    markLogsCaptured(job[0], job[1]);
                }
                Message out = exchange.getMessage();
                out.setBody(collector.body());
                out.setHeader(JOB_NAME, job[1]);
                out.setHeader(NAMESPACE, job[0]);
                out.setHeader(LOG_LINES, collector.lines());
                out.setHeader(LOG_TRUNCATED, collector.truncated());
            } catch (Exception e) {
                exchange.setException(e);
            } finally {
                callback.done(false);
            }
        });
        return false;
    }

    private static void setOutcome(Exchange exchange, WaitResult result) {
        Message out = exchange.getMessage();
        out.setBody(result.trainJob());
        out.setHeader(JOB_NAME, result.trainJob().getMetadata().getName());
        out.setHeader(NAMESPACE, result.trainJob().getMetadata().getNamespace());
        out.setHeader(STATUS, result.phase().displayName());
        out.setHeader(REASON, result.reason());
        out.setHeader(MESSAGE, result.message());
        out.setHeader(POD_FAILURE, result.podDetail());
        out.setHeader(DURATION, result.jobDuration() == null ? null : result.jobDuration().toMillis());
        ProgressHeaders.set(out, result.progress());
    }
}
