package io.camelkubeflow.trainer;

import org.apache.camel.AsyncCallback;
import org.apache.camel.Exchange;
import org.apache.camel.support.service.ServiceSupport;

/**
 * What one operation does to an exchange. The producer builds the handler of its endpoint's operation only, and
 * starts and stops it with itself, so an endpoint holds just what its operation needs.
 */
abstract class OperationHandler extends ServiceSupport {
    protected final KubeflowTrainerEndpoint endpoint;

    OperationHandler(KubeflowTrainerEndpoint endpoint) {
        this.endpoint = endpoint;
    }

    /**
     * As {@link org.apache.camel.AsyncProcessor#process(Exchange, AsyncCallback)}: true when done on the calling
     * thread. A failure is set on the exchange (so onException and redelivery apply), never thrown.
     */
    abstract boolean process(Exchange exchange, AsyncCallback callback);

    /** An operation done on the calling thread. */
    abstract static class Synchronous extends OperationHandler {
        Synchronous(KubeflowTrainerEndpoint endpoint) {
            super(endpoint);
        }

        abstract void handle(Exchange exchange) throws Exception;

        @Override
        final boolean process(Exchange exchange, AsyncCallback callback) {
            try {
                handle(exchange);
            } catch (Exception e) {
                exchange.setException(e);
            }
            callback.done(true);
            return true;
        }
    }
}
