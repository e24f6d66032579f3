package io.camelkubeflow.trainer.routes;

import java.util.LinkedHashMap;
import java.util.Map;

import com.fasterxml.jackson.core.JacksonException;
import io.camelkubeflow.trainer.api.TrainJob;
import io.camelkubeflow.trainer.api.TrainJobNotFoundException;
import io.camelkubeflow.trainer.job.TrainJobConflictException;
import io.camelkubeflow.trainer.support.InvalidOptionException;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import org.apache.camel.Exchange;
import org.apache.camel.builder.RouteBuilder;
import org.apache.camel.model.rest.RestBindingMode;
import org.eclipse.microprofile.config.inject.ConfigProperty;

import static io.camelkubeflow.trainer.KubeflowTrainerConstants.*;

/**
 * The HTTP API: {@code POST /trainjobs} starts a TrainJob from a JSON train request, {@code GET /trainjobs/{name}}
 * tells its status. {@code GET /trainjobs/{name}/logs} is {@link TrainJobLogStream}.
 */
@ApplicationScoped
public class HttpRoutes extends RouteBuilder {
    @Inject
    TrainJobStatusView statusView;

    @ConfigProperty(name = "trainer.namespace")
    String defaultNamespace;

    @Override
    public void configure() {
        restConfiguration().bindingMode(RestBindingMode.off);

        onException(InvalidOptionException.class).handled(true)
                .process(e -> error(e, 400, e.getProperty(Exchange.EXCEPTION_CAUGHT, InvalidOptionException.class)
                        .getField()));
        onException(JacksonException.class).handled(true).process(e -> error(e, 400, "body"));
        onException(TrainJobConflictException.class).handled(true).process(e -> error(e, 409, null));
        onException(TrainJobNotFoundException.class).handled(true).process(e -> error(e, 404, null));

        rest("/trainjobs")
                .post().to("direct:http-train")
                .get("/{name}").to("direct:http-status");

        from("direct:http-train").routeId("http-train")
                // only the JSON body speaks for the caller: no HTTP header may set a component option
                .removeHeaders("CamelKubeflowTrainer*")
                .setHeader(IDEMPOTENCY_KEY, header("Idempotency-Key"))
                .unmarshal().json(Map.class)
                .bean("trainRequestMessage", "apply")
                .to("kubeflow-trainer:train?runtime={{trainer.runtime}}&namespace={{trainer.namespace}}&bodyType=ignore")
                .process(this::trainAnswer)
                .marshal().json();

        from("direct:http-status").routeId("http-status")
                .process(e -> e.getMessage().setBody(statusView.describe(namespace(e),
                        e.getMessage().getHeader("name", String.class))))
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
