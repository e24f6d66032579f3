package io.camelkubeflow.trainer;

import io.camelkubeflow.trainer.api.TrainJob;
import io.camelkubeflow.trainer.job.SubmitResult;
import io.camelkubeflow.trainer.job.TrainJobSubmitter;
import io.camelkubeflow.trainer.job.TrainRequest;
import org.apache.camel.Exchange;
import org.apache.camel.Expression;
import org.apache.camel.Message;
import org.apache.camel.support.DefaultProducer;

/**
 * Runs the endpoint's operation for each exchange. Failures are thrown, so onException and redelivery apply; a bad
 * request fails with {@link io.camelkubeflow.trainer.job.InvalidTrainRequestException} before any write.
 */
public class KubeflowTrainerProducer extends DefaultProducer {
    private TrainRequest endpointDefaults;
    private Expression idempotencyKey;
    private TrainJobSubmitter submitter;

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
        submitter = new TrainJobSubmitter(getEndpoint().getClient());
    }

    @Override
    public void process(Exchange exchange) throws Exception {
        switch (getEndpoint().getOperation()) {
            case train -> train(exchange);
            case wait, logs -> throw new UnsupportedOperationException("kubeflow-trainer:"
                    + getEndpoint().getOperation() + " is not available in this release; only kubeflow-trainer:train is");
        }
    }

    private void train(Exchange exchange) {
        String bodyType = getEndpoint().getConfiguration().getBodyType();
        TrainRequest request = endpointDefaults
                .overlay(ExchangeTrainRequests.fromBody(exchange, bodyType))
                .overlay(ExchangeTrainRequests.fromHeaders(exchange))
                .idempotencyKey(ExchangeTrainRequests.idempotencyKey(exchange, idempotencyKey));
        SubmitResult result = submitter.submit(request, getEndpoint().getConfiguration().getNamespace());

        TrainJob job = result.trainJob();
        Message out = exchange.getMessage();
        out.setBody(job);
        out.setHeader(KubeflowTrainerConstants.JOB_NAME, job.getMetadata().getName());
        out.setHeader(KubeflowTrainerConstants.NAMESPACE, job.getMetadata().getNamespace());
        out.setHeader(KubeflowTrainerConstants.JOB_UID, job.getMetadata().getUid());
        out.setHeader(KubeflowTrainerConstants.IDEMPOTENCY_KEY, result.idempotencyKey());
        out.setHeader(KubeflowTrainerConstants.ADOPTED, result.adopted());
        out.setHeader(KubeflowTrainerConstants.LAUNCHER_CHOSEN, result.decision().launcher().optionValue());
        out.setHeader(KubeflowTrainerConstants.LAUNCHER_RULE, result.decision().rule().name());
        out.setHeader(KubeflowTrainerConstants.LAUNCHER_REASON, result.decision().reason());
    }
}
