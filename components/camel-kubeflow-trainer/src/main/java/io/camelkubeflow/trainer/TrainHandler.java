package io.camelkubeflow.trainer;

import static io.camelkubeflow.trainer.KubeflowTrainerConstants.*;

import io.camelkubeflow.trainer.api.TrainJob;
import io.camelkubeflow.trainer.job.RuntimeLookup;
import io.camelkubeflow.trainer.job.SubmitResult;
import io.camelkubeflow.trainer.job.TrainJobMetadata;
import io.camelkubeflow.trainer.job.TrainJobSubmitter;
import io.camelkubeflow.trainer.job.TrainRequest;
import io.camelkubeflow.trainer.watch.WatchedRuntimes;
import org.apache.camel.Exchange;
import org.apache.camel.Expression;
import org.apache.camel.Message;

/**
 * {@code train}: the endpoint's options, then the body, then the headers make the request; the submitter checks it,
 * creates the TrainJob (or adopts the one made for the same idempotency key) and the headers say what happened.
 */
final class TrainHandler extends OperationHandler.Synchronous {
    private TrainRequest endpointDefaults;
    private Expression idempotencyKey;
    private Expression runKey;
    private TrainJobSubmitter submitter;

    TrainHandler(KubeflowTrainerEndpoint endpoint) {
        super(endpoint);
    }

    @Override
    protected void doStart() throws Exception {
        KubeflowTrainerConfiguration configuration = endpoint.getConfiguration();
        endpointDefaults = ExchangeTrainRequests.fromConfiguration(endpoint);
        idempotencyKey = simple(configuration.getIdempotencyKey());
        runKey = simple(configuration.getRunKey());
        submitter = new TrainJobSubmitter(
                        endpoint.getClient(),
                        endpoint.apiRetry(),
                        configuration.getPolicy(),
                        new WatchedRuntimes(
                                endpoint.informers(), RuntimeLookup.direct(endpoint.getClient(), endpoint.apiRetry())))
                .workspaceStore(configuration.getWorkspaceStore())
                .workspaceFetcher(configuration.getWorkspaceFetcher())
                .accessReviewer(endpoint.accessReviewer());
        if (configuration.getTtlAfterFinished() > 0) {
            // after a restart too: the jobs of this namespace with a TTL are looked after again
            endpoint.ttlReaper().watchNamespace(endpoint.defaultNamespace());
        }
    }

    private Expression simple(String expression) {
        return expression == null
                ? null
                : endpoint.getCamelContext().resolveLanguage("simple").createExpression(expression);
    }

    @Override
    void handle(Exchange exchange) {
        TrainRequest request = endpointDefaults
                .overlay(ExchangeTrainRequests.fromBody(
                        exchange, endpoint.getConfiguration().getBodyType()))
                .overlay(ExchangeTrainRequests.fromHeaders(exchange))
                .idempotencyKey(ExchangeTrainRequests.idempotencyKey(exchange, idempotencyKey))
                .traceParent(TrainJobMetadata.traceParent(
                        exchange.getMessage().getHeader(TrainJobMetadata.TRACE_PARENT_HEADER)));
        if (request.runKey() == null && runKey != null) {
            request.runKey(runKey.evaluate(exchange, String.class));
        }
        if (endpoint.getConfiguration().isAuthorizeCaller()) {
            // the submit reviews each access the TrainJob needs as this caller, before any write
            request.caller(endpoint.requiredCaller(exchange));
        }
        SubmitResult result = submitter.submit(request, endpoint.defaultNamespace());
        endpoint.getComponent().metrics().trained(result);
        TrainJob job = result.trainJob();
        if (TrainJobMetadata.hasTtl(job)) {
            endpoint.ttlReaper().watchNamespace(job.getMetadata().getNamespace());
        }

        Message out = exchange.getMessage();
        TrainJobHeaders.job(out, job);
        TrainJobHeaders.answer(out, IDEMPOTENCY_KEY, result.idempotencyKey());
        out.setHeader(ADOPTED, result.adopted());
        out.setHeader(SKIPPED, result.skipped());
        out.setHeader(LAUNCHER_CHOSEN, result.decision().launcher().optionValue());
        out.setHeader(LAUNCHER_RULE, result.decision().rule().name());
        out.setHeader(LAUNCHER_REASON, result.decision().reason());
    }
}
