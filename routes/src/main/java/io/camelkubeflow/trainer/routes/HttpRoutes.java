package io.camelkubeflow.trainer.routes;

import java.util.LinkedHashMap;
import java.util.Map;

import com.fasterxml.jackson.core.JacksonException;
import io.camelkubeflow.trainer.access.Access;
import io.camelkubeflow.trainer.access.AccessDeniedException;
import io.camelkubeflow.trainer.access.AccessReviewer;
import io.camelkubeflow.trainer.access.Caller;
import io.camelkubeflow.trainer.api.TrainJob;
import io.camelkubeflow.trainer.api.TrainJobNotFoundException;
import io.camelkubeflow.trainer.job.PolicyViolationException;
import io.camelkubeflow.trainer.job.TrainJobConflictException;
import io.camelkubeflow.trainer.support.ApiRetry;
import io.camelkubeflow.trainer.support.InvalidOptionException;
import io.fabric8.kubernetes.client.KubernetesClient;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import org.apache.camel.Exchange;
import org.apache.camel.builder.RouteBuilder;
import org.apache.camel.model.rest.RestBindingMode;
import org.eclipse.microprofile.config.inject.ConfigProperty;

import static io.camelkubeflow.trainer.KubeflowTrainerConstants.*;

/**
 * The HTTP API: {@code POST /trainjobs} starts a TrainJob from a JSON train request, {@code GET /trainjobs/{name}}
 * tells its status. {@code GET /trainjobs/{name}/logs} is {@link TrainJobLogStream}. Every request comes from a caller
 * {@link HttpAuthentication} vouched for, and each acts within that caller's rights (403 naming what was denied).
 */
@ApplicationScoped
public class HttpRoutes extends RouteBuilder {
    @Inject
    TrainJobStatusView statusView;

    @Inject
    KubernetesClient client;

    private AccessReviewer access;

    @ConfigProperty(name = "trainer.namespace")
    String defaultNamespace;

    @Override
    public void configure() {
        restConfiguration().bindingMode(RestBindingMode.off);
        access = new AccessReviewer(client, ApiRetry.DEFAULT);

        onException(InvalidOptionException.class).handled(true)
                .process(e -> error(e, 400, e.getProperty(Exchange.EXCEPTION_CAUGHT, InvalidOptionException.class)
                        .getField()));
        onException(JacksonException.class).handled(true).process(e -> error(e, 400, "body"));
        onException(TrainJobConflictException.class).handled(true).process(e -> error(e, 409, null));
        onException(TrainJobNotFoundException.class).handled(true).process(e -> error(e, 404, null));
        onException(AccessDeniedException.class).handled(true).process(e -> error(e, 403, null));
        onException(PolicyViolationException.class).handled(true).process(e -> error(e, 403, null));

        rest("/trainjobs")
                .post().to("direct:http-train")
                .get("/{name}").to("direct:http-status");

        from("direct:http-train").routeId("http-train")
                // only the JSON body speaks for the caller: no HTTP header may set a component option
                .removeHeaders("CamelKubeflowTrainer*")
                .process(HttpRoutes::callerFromAuthentication)
                .setHeader(IDEMPOTENCY_KEY, header("Idempotency-Key"))
                .unmarshal().json(Map.class)
                .bean("trainRequestMessage", "apply")
                // as the caller: the API server decides whether it may create the TrainJob and read what it references
                .to("kubeflow-trainer:train?runtime={{trainer.runtime}}&namespace={{trainer.namespace}}&bodyType=ignore"
                        + "&authorizeCaller=true&policy=#trainRequestPolicy")
                .process(this::trainAnswer)
                .marshal().json();

        from("direct:http-status").routeId("http-status")
                .process(e -> {
                    String name = e.getMessage().getHeader("name", String.class);
                    access.check(HttpAuthentication.callerOf(e.getMessage()), Access.trainJobs("get", namespace(e),
                            name));
                    e.getMessage().setBody(statusView.describe(namespace(e), name));
                })
                .marshal().json();
    }

    private void trainAnswer(Exchange exchange) {
        Map<String, Object> answer = new LinkedHashMap<>(statusView.summary(exchange.getMessage().getBody(TrainJob.class)));
        answer.put("launcher", exchange.getMessage().getHeader(LAUNCHER_CHOSEN));
        answer.put("launcherRule", exchange.getMessage().getHeader(LAUNCHER_RULE));
        answer.put("launcherReason", exchange.getMessage().getHeader(LAUNCHER_REASON));
        boolean adopted = exchange.getMessage().getHeader(ADOPTED, Boolean.class);
        answer.put("adopted", adopted);
        exchange.getMessage().setHeader(Exchange.HTTP_RESPONSE_CODE, adopted ? 200 : 201);
        exchange.getMessage().setBody(answer);
    }

    /**
     * The caller HttpAuthentication vouched for, as the component's caller headers; and its own key space, so that
     * no caller's Idempotency-Key can adopt or pre-empt another caller's job, or a job of the Kafka or S3 routes.
     */
    private static void callerFromAuthentication(Exchange exchange) {
        Caller caller = HttpAuthentication.callerOf(exchange.getMessage());
        exchange.getMessage().setHeader(IDEMPOTENCY_SCOPE, "http:" + caller.user());
        exchange.getMessage().setHeader(CALLER_USER, caller.user());
        exchange.getMessage().setHeader(CALLER_GROUPS, caller.groups());
    }

    private String namespace(Exchange exchange) {
        String namespace = exchange.getMessage().getHeader("namespace", String.class);
        return namespace == null ? defaultNamespace : namespace;
    }

    private static void error(Exchange exchange, int status, String field) {
        exchange.getMessage().setHeader(Exchange.HTTP_RESPONSE_CODE, status);
        exchange.getMessage().setHeader(Exchange.CONTENT_TYPE, "application/json");
        exchange.getMessage().setBody(ErrorAnswer.json(exchange.getProperty(Exchange.EXCEPTION_CAUGHT, Exception.class),
                field));
    }
}
