package io.camelkubeflow.trainer.routes;

import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;

/**
 * Requests no operation takes, which Vert.x answers itself with an empty body; here in the API's error form, problem
 * details ({@link ErrorAnswer}): a body of a media type no operation takes (a train request is JSON), 415; a method no
 * operation of the path has, 405; a path no operation has, 404.
 */
@ApplicationScoped
public class HttpUnmatchedRequests {
    void register(@Observes Router router) {
        router.errorHandler(415, this::unsupportedMediaType);
        router.errorHandler(405, this::methodNotAllowed);
        router.errorHandler(404, this::noSuchPath);
    }

    private void noSuchPath(RoutingContext context) {
        ErrorAnswer.Problem.NO_SUCH_OPERATION
                .answer(
                        "no operation has the path " + context.request().path(),
                        "path",
                        "see /q/openapi for the operations and their paths")
                .send(context);
    }

    private void methodNotAllowed(RoutingContext context) {
        ErrorAnswer.Problem.METHOD_NOT_ALLOWED
                .answer(
                        "no operation of " + context.request().path() + " takes "
                                + context.request().method(),
                        "method",
                        "see /q/openapi for the operations and their methods")
                .send(context);
    }

    private void unsupportedMediaType(RoutingContext context) {
        String type = context.request().getHeader("Content-Type");
        ErrorAnswer.Problem.UNSUPPORTED_MEDIA_TYPE
                .answer(
                        "the request body is " + (type == null ? "of no declared media type" : type)
                                + ", which this operation does not take",
                        "Content-Type",
                        "send the request as JSON, with Content-Type: application/json")
                .send(context);
    }
}
