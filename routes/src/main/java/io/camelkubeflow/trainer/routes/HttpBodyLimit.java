package io.camelkubeflow.trainer.routes;

import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * The HTTP API's own body limit, answered in its error form: a request that says it is larger than {@code
 * trainer.http.max-body-bytes} is refused with 413 and {@code {error, field: "body", fix}} before its body is read.
 * (Quarkus's own limit, set higher, answers with an empty 413 before any route can speak.)
 */
@ApplicationScoped
public class HttpBodyLimit {
    @ConfigProperty(name = "trainer.http.max-body-bytes", defaultValue = "10485760")
    long maxBodyBytes;

    void register(@Observes Router router) {
        // before authentication: the body is not read, whoever sends it
        router.route("/trainjobs*").order(-20).handler(this::check);
    }

    private void check(RoutingContext context) {
        String length = context.request().getHeader("Content-Length");
        long bytes;
        try {
            bytes = length == null ? 0 : Long.parseLong(length.trim());
        } catch (NumberFormatException e) {
            bytes = Long.MAX_VALUE;
        }
        if (bytes <= maxBodyBytes) {
            context.next();
            return;
        }
        context.response().setStatusCode(413).putHeader("Content-Type", "application/json")
                .putHeader("Connection", "close")
                .end(ErrorAnswer.json("the request body is " + (length == null ? "too large" : length + " bytes")
                        + ", over the limit of " + maxBodyBytes + " bytes", "body", "send a smaller request: an"
                                + " inline script may be at most 200 KiB; bake larger code into the image and name it"
                                + " with pythonFile"));
    }
}
