package io.camelkubeflow.trainer;

import io.camelkubeflow.trainer.support.InvalidOptionException;
import org.apache.camel.AsyncCallback;
import org.apache.camel.Exchange;
import org.apache.camel.support.DefaultAsyncProducer;
import org.apache.camel.support.service.ServiceHelper;

/**
 * Runs the endpoint's operation for each exchange, through the one handler that operation names. Failures are set on
 * the exchange, so onException and redelivery apply; a bad request fails with {@link InvalidOptionException} before
 * any write.
 */
public class KubeflowTrainerProducer extends DefaultAsyncProducer {
    private OperationHandler handler;

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
        handler = getEndpoint().getOperation().newHandler(getEndpoint());
        ServiceHelper.startService(handler);
    }

    @Override
    protected void doStop() throws Exception {
        ServiceHelper.stopService(handler);
        super.doStop();
    }

    @Override
    public boolean process(Exchange exchange, AsyncCallback callback) {
        AsyncCallback counted = getEndpoint().activity().started(exchange, callback);
        try {
            return handler.process(exchange, counted);
        } catch (RuntimeException e) {
            // a handler sets its failures on the exchange; this is the net under one that did not
            exchange.setException(e);
            counted.done(true);
            return true;
        }
    }
}
