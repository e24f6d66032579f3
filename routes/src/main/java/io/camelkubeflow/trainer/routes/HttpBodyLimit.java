package io.camelkubeflow.trainer.routes;

import io.vertx.core.http.HttpClosedException;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.BodyHandler;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The HTTP API's own body limit, answered in its error form: a body larger than {@code trainer.http.max-body-bytes}
 * is refused with 413 and {@code {error, field: "body", fix}}. A request that says it is larger is refused before
 * anything else, unread; any other body (chunked ones declare no length) is read only once the caller is
 * authenticated, counted as it arrives, and refused as soon as it passes the limit, with the connection closed, so
 * the app never holds more of it. (Quarkus's own limit, set higher, answers with an empty 413 before any route can
 * speak.)
 */
@ApplicationScoped
public class HttpBodyLimit {
    private static final Logger LOG = LoggerFactory.getLogger(HttpBodyLimit.class);

    @ConfigProperty(name = "trainer.http.max-body-bytes", defaultValue = "10485760")
    long maxBodyBytes;

    void register(@Observes Router router) {
        // before authentication (-10): a declared length is refused unread, whoever sends it
        for (String api : HttpRoutes.PATHS) {
            register(router, api);
        }
    }

    private void register(Router router, String api) {
        router.route(api).order(-20).handler(this::checkDeclaredLength);
        // after authentication, ahead of the log stream (-1) and the REST DSL's routes, whose body handler (Quarkus's,
        // with quarkus.http.limits.max-body-size) then finds the body read; Vert.x fails the request with 413 as soon
        // as the bytes counted pass the limit
        router.route(api).order(-9).handler(BodyHandler.create(false).setBodyLimit(maxBodyBytes));
        router.route(api).order(-20).failureHandler(this::answerTooLarge);
    }

    private void checkDeclaredLength(RoutingContext context) {
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
        refuse(context, "the request body is " + length + " bytes, over the limit of " + maxBodyBytes + " bytes");
    }

    private void answerTooLarge(RoutingContext context) {
        if (context.failure() instanceof HttpClosedException) {
            // the client went away mid-request (one sending on after its refusal, or giving up): nothing is left to
            // answer, and it is no error of the app's; Quarkus's handler would log it as one (at ERROR, per request)
            LOG.debug("HTTP request to {} ended: the client closed the connection", context.normalizedPath());
            return;
        }
        if (context.statusCode() != 413 || context.response().headWritten()) {
            context.next();
            return;
        }
        refuse(context, "the request body passed the limit of " + maxBodyBytes + " bytes");
    }

    private void refuse(RoutingContext context, String error) {
        context.response().putHeader("Connection", "close");
        ErrorAnswer.Problem.BODY_TOO_LARGE
                .answer(
                        error,
                        "body",
                        "send a smaller request: an inline script may be at"
                                + " most 200 KiB; bake larger code into the image and name it with pythonFile")
                .send(context);
    }
}
