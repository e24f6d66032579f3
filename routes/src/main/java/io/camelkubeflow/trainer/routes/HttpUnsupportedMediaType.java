package io.camelkubeflow.trainer.routes;

import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;

/**
 * A body of a media type no operation takes (a train request is JSON): Vert.x finds no route that consumes it and
 * answers 415 itself, empty; here in the API's error form, {@code {error, field: "Content-Type", fix}}.
 */
@ApplicationScoped
public class HttpUnsupportedMediaType {
    void register(@Observes Router router) {
        router.errorHandler(415, this::answer);
    }

    private void answer(RoutingContext context) {
        String type = context.request().getHeader("Content-Type");
        context.response().setStatusCode(415).putHeader("Content-Type", "application/json")
                .end(ErrorAnswer.json("the request body is " + (type == null ? "of no declared media type" : type)
                        + ", which this operation does not take", "Content-Type", "send the request as JSON, with"
                                + " Content-Type: application/json"));
    }
}
