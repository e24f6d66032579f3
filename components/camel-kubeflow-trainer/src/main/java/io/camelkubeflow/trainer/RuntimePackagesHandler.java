package io.camelkubeflow.trainer;

import static io.camelkubeflow.trainer.KubeflowTrainerConstants.*;

import io.camelkubeflow.trainer.access.Access;
import io.camelkubeflow.trainer.api.KubernetesNames;
import io.camelkubeflow.trainer.runtime.RuntimeCatalog;
import io.camelkubeflow.trainer.runtime.RuntimeCatalog.RuntimeLauncher;
import io.camelkubeflow.trainer.runtime.RuntimeKind;
import io.camelkubeflow.trainer.runtime.RuntimePackages;
import io.camelkubeflow.trainer.support.InvalidOptionException;
import java.util.List;
import java.util.Map;
import org.apache.camel.Exchange;
import org.apache.camel.Message;
import org.apache.camel.ProducerTemplate;
import org.apache.camel.support.DefaultExchange;
import org.apache.camel.util.URISupport;

/**
 * {@code runtimePackages}: what a runtime's image holds, found as the Kubeflow SDK's get_runtime_packages finds it, by
 * running it: a one-node TrainJob on the runtime whose script prints the Python version, the installed packages and,
 * where nvidia-smi exists, the GPUs; the job goes through this component's own train (with the caller's access review
 * and the request policy: it is a create), wait and logs, and is deleted afterwards, whatever happened.
 */
final class RuntimePackagesHandler extends OperationHandler.Synchronous {
    private RuntimeCatalog catalog;
    private ProducerTemplate template;
    private String options;

    RuntimePackagesHandler(KubeflowTrainerEndpoint endpoint) {
        super(endpoint);
    }

    @Override
    protected void doStart() throws Exception {
        catalog = new RuntimeCatalog(endpoint.getClient(), endpoint.apiRetry());
        template = endpoint.getCamelContext().createProducerTemplate();
        // the endpoint's own options carry over to the train, wait, logs and delete it does (client, namespace,
        // authorizeCaller, policy, waitTimeout...); what each step needs is set below
        Map<String, Object> parameters = URISupport.parseQuery(URISupport.extractQuery(endpoint.getEndpointUri()));
        for (String own : List.of(
                "runtime",
                "runtimeKind",
                "numNodes",
                "script",
                "throwOnFailure",
                "follow",
                "logStep",
                "tailLines",
                "sinceSeconds",
                "logDestination")) {
            parameters.remove(own);
        }
        options = URISupport.createQueryString(parameters);
    }

    @Override
    protected void doStop() throws Exception {
        if (template != null) {
            template.stop();
        }
    }

    @Override
    void handle(Exchange exchange) throws Exception {
        Message in = exchange.getMessage();
        String namespace = TrainJobHeaders.namespace(in, endpoint.defaultNamespace());
        String name = in.getHeader(RUNTIME, endpoint.getConfiguration().getRuntime(), String.class);
        if (name == null) {
            throw new InvalidOptionException(
                    RUNTIME,
                    "no runtime named; set the runtime option or header to the" + " runtime whose packages to list");
        }
        KubernetesNames.objectName(RUNTIME, name);
        // a create first, as train reviews it: a caller who may not learns nothing of the runtimes either
        endpoint.authorize(exchange, Access.trainJobs("create", namespace, null));
        endpoint.authorize(exchange, Access.runtimes("get", RuntimeKind.TrainingRuntime.plural(), namespace, name));
        endpoint.authorize(exchange, Access.runtimes("get", RuntimeKind.ClusterTrainingRuntime.plural(), null, name));
        RuntimeLauncher runtime = catalog.runtime(RUNTIME, namespace, name, List.of());
        if ("builtin".equals(runtime.launcher())) {
            throw new InvalidOptionException(
                    RUNTIME,
                    runtime.kind() + " '" + name + "' runs a builtin trainer, which"
                            + " runs no code of a request; its packages cannot be listed this way");
        }

        Exchange train = new DefaultExchange(exchange.getContext());
        train.setProperty(CALLER_PROPERTY, exchange.getProperty(CALLER_PROPERTY));
        train.getMessage().setHeader(NAMESPACE, namespace);
        train.getMessage().setHeader(RUNTIME, name);
        train.getMessage().setHeader(RUNTIME_KIND, runtime.kind());
        train.getMessage().setHeader(NUM_NODES, 1);
        train.getMessage().setHeader(SCRIPT, RuntimePackages.SCRIPT);
        // a new job each time: the packages are read now, not adopted from an earlier read
        train.getMessage().setHeader(IDEMPOTENCY_KEY, exchange.getExchangeId());
        Exchange trained = step("train", train);
        Exception failed = null;
        try {
            step("wait", trained, "throwOnFailure=true");
            Exchange logs = step("logs", trained, "follow=false");
            in.setBody(RuntimePackages.parse(name, logs.getMessage().getBody(String.class)));
        } catch (Exception e) {
            failed = e;
        }
        try {
            step("delete", trained);
        } catch (Exception e) {
            if (failed == null) {
                throw e;
            }
            failed.addSuppressed(e);
        }
        if (failed != null) {
            throw failed;
        }
    }

    private Exchange step(String operation, Exchange exchange, String... own) throws Exception {
        StringBuilder uri = new StringBuilder("kubeflow-trainer:" + operation + "?" + options);
        for (String option : own) {
            uri.append(uri.charAt(uri.length() - 1) == '?' ? "" : "&").append(option);
        }
        Exchange done = template.send(uri.toString(), exchange);
        if (done.getException() != null) {
            throw done.getException();
        }
        return done;
    }
}
