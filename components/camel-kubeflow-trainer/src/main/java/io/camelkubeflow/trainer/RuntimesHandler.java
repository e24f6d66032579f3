package io.camelkubeflow.trainer;

import java.util.List;

import io.camelkubeflow.trainer.runtime.ImageRule;
import io.camelkubeflow.trainer.runtime.RuntimeCatalog;
import org.apache.camel.Exchange;

/** {@code runtimes}: the runtimes, each with the launcher train would choose under the endpoint's image rules. */
final class RuntimesHandler extends OperationHandler.Synchronous {
    private RuntimeCatalog catalog;
    private List<ImageRule> imageRules;

    RuntimesHandler(KubeflowTrainerEndpoint endpoint) {
        super(endpoint);
    }

    @Override
    protected void doStart() {
        catalog = new RuntimeCatalog(endpoint.getClient(), endpoint.apiRetry());
        imageRules = ImageRule.parseList("imageRules", endpoint.getConfiguration().getImageRules());
    }

    @Override
    void handle(Exchange exchange) {
        exchange.getMessage().setBody(catalog.runtimes(
                TrainJobHeaders.namespace(exchange.getMessage(), endpoint.defaultNamespace()), imageRules));
    }
}
