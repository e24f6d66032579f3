package io.camelkubeflow.trainer;

import io.camelkubeflow.trainer.watch.TrainJobEvent;
import io.camelkubeflow.trainer.watch.TrainJobEventStream;
import org.apache.camel.Exchange;
import org.apache.camel.Processor;
import org.apache.camel.support.DefaultConsumer;

import static io.camelkubeflow.trainer.KubeflowTrainerConstants.*;

/**
 * {@code from("kubeflow-trainer:events")}: one exchange each time a TrainJob changes status, never twice for the same
 * change. Events are processed in order, one at a time. For one emitter among several replicas, run the route under
 * Camel's master component with a cluster service (e.g. camel-kubernetes' Lease-based one):
 * {@code from("master:trainjob-events:kubeflow-trainer:events")}.
 */
public class KubeflowTrainerConsumer extends DefaultConsumer {
    private TrainJobEventStream events;

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
        KubeflowTrainerConfiguration configuration = getEndpoint().getConfiguration();
        String namespace = configuration.isAllNamespaces() ? null : getEndpoint().defaultNamespace();
        events = new TrainJobEventStream(this::emit);
        events.start(getEndpoint().getClient(), namespace, configuration.getLabelSelector(),
                configuration.isEmitExisting());
    }

    @Override
    protected void doStop() throws Exception {
        if (events != null) {
            events.close();
            events = null;
        }
        super.doStop();
    }

    private void emit(TrainJobEvent event) {
        Exchange exchange = createExchange(false);
        exchange.getMessage().setBody(event.trainJob());
        exchange.getMessage().setHeader(EVENT, event.type());
        exchange.getMessage().setHeader(STATUS, event.type());
        exchange.getMessage().setHeader(JOB_NAME, event.trainJob().getMetadata().getName());
        exchange.getMessage().setHeader(NAMESPACE, event.trainJob().getMetadata().getNamespace());
        exchange.getMessage().setHeader(JOB_UID, event.trainJob().getMetadata().getUid());
        exchange.getMessage().setHeader(REASON, event.reason());
        exchange.getMessage().setHeader(MESSAGE, event.message());
        try {
            getProcessor().process(exchange);
        } catch (Exception e) {
            exchange.setException(e);
        }
        if (exchange.getException() != null) {
            getExceptionHandler().handleException("Error processing TrainJob event " + event.type() + " of "
                                                  + event.trainJob().getMetadata().getName(), exchange,
                    exchange.getException());
        }
        releaseExchange(exchange, false);
    }
}
