package io.camelkubeflow.trainer;

import static io.camelkubeflow.trainer.KubeflowTrainerConstants.RUNTIME;

import io.camelkubeflow.trainer.access.Access;
import io.camelkubeflow.trainer.api.KubernetesNames;
import io.camelkubeflow.trainer.runtime.ImageRule;
import io.camelkubeflow.trainer.runtime.RuntimeCatalog;
import io.camelkubeflow.trainer.runtime.RuntimeKind;
import java.util.List;
import org.apache.camel.Exchange;
import org.apache.camel.Message;

/**
 * {@code runtimes}: the runtimes, each with the launcher train would choose under the endpoint's image rules; with
 * {@code runtime} (option or header), that one runtime as the body.
 */
final class RuntimesHandler extends OperationHandler.Synchronous {
    private RuntimeCatalog catalog;
    private List<ImageRule> imageRules;

    RuntimesHandler(KubeflowTrainerEndpoint endpoint) {
        super(endpoint);
    }

    @Override
    protected void doStart() {
        catalog = new RuntimeCatalog(endpoint.getClient(), endpoint.apiRetry());
        imageRules =
                ImageRule.parseList("imageRules", endpoint.getConfiguration().getImageRules());
    }

    @Override
    void handle(Exchange exchange) {
        Message message = exchange.getMessage();
        String namespace = TrainJobHeaders.namespace(message, endpoint.defaultNamespace());
        String runtime = message.getHeader(RUNTIME, endpoint.getConfiguration().getRuntime(), String.class);
        if (runtime == null) {
            endpoint.authorize(
                    exchange, Access.runtimes("list", RuntimeKind.TrainingRuntime.plural(), namespace, null));
            endpoint.authorize(
                    exchange, Access.runtimes("list", RuntimeKind.ClusterTrainingRuntime.plural(), null, null));
            message.setBody(catalog.runtimes(namespace, imageRules));
            return;
        }
        KubernetesNames.objectName(RUNTIME, runtime);
        endpoint.authorize(exchange, Access.runtimes("get", RuntimeKind.TrainingRuntime.plural(), namespace, runtime));
        endpoint.authorize(
                exchange, Access.runtimes("get", RuntimeKind.ClusterTrainingRuntime.plural(), null, runtime));
        message.setBody(catalog.runtime(RUNTIME, namespace, runtime, imageRules));
    }
}
