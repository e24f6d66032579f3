package io.camelkubeflow.trainer.routes;

import static io.camelkubeflow.trainer.KubeflowTrainerConstants.*;

import io.camelkubeflow.trainer.access.AccessDeniedException;
import io.camelkubeflow.trainer.api.TrainJob;
import io.camelkubeflow.trainer.api.TrainJobNotFoundException;
import io.camelkubeflow.trainer.api.TrainJobRef;
import io.camelkubeflow.trainer.job.PolicyViolationException;
import io.camelkubeflow.trainer.job.TrainJobConflictException;
import io.camelkubeflow.trainer.job.TrainJobHeldByKueueException;
import io.camelkubeflow.trainer.support.InvalidOptionException;
import io.camelkubeflow.trainer.watch.ReportedStatus;
import io.fabric8.kubernetes.client.KubernetesClientException;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.camel.Exchange;
import org.apache.camel.Message;
import org.apache.camel.builder.RouteBuilder;
import org.apache.camel.model.RouteDefinition;
import org.apache.camel.model.rest.RestBindingMode;
import org.apache.camel.model.rest.RestParamType;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.jboss.logging.Logger;

/**
 * The HTTP API: {@code POST /trainjobs} starts a TrainJob from a JSON train request, {@code GET /trainjobs/{name}}
 * tells its status, {@code GET /trainjobs} lists them, {@code DELETE /trainjobs/{name}} deletes one and {@code POST
 * /trainjobs/{name}/suspend} and {@code /resume} suspend and resume one, {@code GET /trainjobs/{name}/events} reads its
 * Kubernetes Events and {@code GET /runtimes/{runtime}} one runtime, each through the component's operation of that
 * name (the status through get). {@code GET /trainjobs/{name}/logs} is {@link TrainJobLogStream}. Every request comes from a caller
 * {@link HttpAuthentication} vouched for, and each acts within that caller's rights (403 naming what was denied).
 */
@ApplicationScoped
public class HttpRoutes extends RouteBuilder {
    private static final Logger LOG = Logger.getLogger(HttpRoutes.class);
    /** The paths of the API, as Vert.x routes match them: each needs authentication and has a body limit. */
    static final List<String> PATHS = List.of("/trainjobs*", "/runtimes*");
    /** Component header -> the query parameter or path segment of the HTTP API that sets it. */
    private static final Map<String, String> CALLER_FIELDS = Map.of(
            LABEL_SELECTOR,
            "labelSelector",
            DELETE_PROPAGATION,
            "propagation",
            NAMESPACE,
            "namespace",
            JOB_NAME,
            "name",
            RUNTIME,
            "runtime");

    @Inject
    TrainJobStatusView statusView;

    @ConfigProperty(name = "trainer.namespace")
    String defaultNamespace;

    /**
     * Only route definitions: Camel Quarkus also runs this at build time, without injection, to generate the
     * OpenAPI document at /q/openapi.
     */
    @Override
    public void configure() {
        restConfiguration().bindingMode(RestBindingMode.off);

        // each refusal as its kind of problem (ErrorAnswer.of): a missing runtime 404, a bad field 400; the same key
        // with a different request cannot be processed as sent (422), a name taken by another key is 409
        onException(HttpAuthentication.UnauthenticatedException.class)
                .handled(true)
                .process(e -> error(e, "Authorization"));
        onException(InvalidOptionException.class).handled(true).process(HttpRoutes::invalid);
        onException(
                        TrainJobConflictException.class,
                        TrainJobNotFoundException.class,
                        AccessDeniedException.class,
                        PolicyViolationException.class,
                        TrainJobHeldByKueueException.class)
                .handled(true)
                .process(e -> error(e, null));
        onException(KubernetesClientException.class).handled(true).process(HttpRoutes::apiError);
        onException(Exception.class).handled(true).process(HttpRoutes::internalError);

        // each operation's id is its operationId in /q/openapi (docs/http-api.md lists them)
        rest("/trainjobs")
                .description("TrainJobs: start, read, list, suspend, resume and delete them")
                .post()
                .description("Start a TrainJob from a train request (JSON); an Idempotency-Key header makes"
                        + " retries adopt the job the first attempt made")
                .consumes("application/json")
                .produces("application/json")
                .param()
                .name("Idempotency-Key")
                .type(RestParamType.header)
                .required(false)
                .description("The request's key: the same key and request adopt, the same key and another"
                        + " request is 422")
                .endParam()
                .responseMessage()
                .code(201)
                .message("Created: the TrainJob's summary")
                .endResponseMessage()
                .responseMessage()
                .code(200)
                .message("Adopted: the job an earlier attempt with this key made")
                .endResponseMessage()
                .responseMessage()
                .code(400)
                .message("Invalid request: problem details naming the field and the fix")
                .endResponseMessage()
                .responseMessage()
                .code(422)
                .message("The key was used for another request")
                .endResponseMessage()
                .id("createTrainJob")
                .to("direct:http-train")
                .get()
                .description("List TrainJobs of a namespace")
                .produces("application/json")
                .param()
                .name("namespace")
                .type(RestParamType.query)
                .required(false)
                .description("The namespace (default: the app's)")
                .endParam()
                .param()
                .name("labelSelector")
                .type(RestParamType.query)
                .required(false)
                .description("Only jobs matching it, e.g. team=vision,!gpu")
                .endParam()
                .param()
                .name("runtime")
                .type(RestParamType.query)
                .required(false)
                .description("Only jobs on the runtime of this name (spec.runtimeRef.name)")
                .endParam()
                // an operation with no response message gets an empty 'default' response from Camel, which
                // OpenAPI refuses (a response needs its description)
                .responseMessage()
                .code(400)
                .message("Invalid namespace, labelSelector or runtime: problem details"
                        + " naming the field and the fix")
                .endResponseMessage()
                .id("listTrainJobs")
                .to("direct:http-list")
                .get("/{name}")
                .description("A TrainJob's status and steps")
                .produces("application/json")
                .param()
                .name("namespace")
                .type(RestParamType.query)
                .required(false)
                .endParam()
                .responseMessage()
                .code(404)
                .message("No such TrainJob")
                .endResponseMessage()
                .id("getTrainJob")
                .to("direct:http-status")
                .get("/{name}/events")
                .description("The Kubernetes Events of a TrainJob, its JobSet, Jobs and pods,"
                        + " oldest first, each with its step")
                .produces("application/json")
                .param()
                .name("namespace")
                .type(RestParamType.query)
                .required(false)
                .endParam()
                .responseMessage()
                .code(404)
                .message("No such TrainJob")
                .endResponseMessage()
                .id("getTrainJobEvents")
                .to("direct:http-events")
                .delete("/{name}")
                .description("Delete a TrainJob; its JobSet and pods go as propagation says")
                .produces("application/json")
                .param()
                .name("namespace")
                .type(RestParamType.query)
                .required(false)
                .endParam()
                .param()
                .name("propagation")
                .type(RestParamType.query)
                .required(false)
                .allowableValues("Background", "Foreground", "Orphan")
                .description("Background (default), Foreground or Orphan")
                .endParam()
                .responseMessage()
                .code(404)
                .message("No such TrainJob")
                .endResponseMessage()
                .id("deleteTrainJob")
                .to("direct:http-delete")
                .post("/{name}/suspend")
                .description("Suspend a TrainJob: the Trainer stops its pods")
                .produces("application/json")
                .param()
                .name("namespace")
                .type(RestParamType.query)
                .required(false)
                .endParam()
                .responseMessage()
                .code(404)
                .message("No such TrainJob")
                .endResponseMessage()
                .id("suspendTrainJob")
                .to("direct:http-suspend")
                .post("/{name}/resume")
                .description("Resume a suspended TrainJob")
                .produces("application/json")
                .param()
                .name("namespace")
                .type(RestParamType.query)
                .required(false)
                .endParam()
                .responseMessage()
                .code(404)
                .message("No such TrainJob")
                .endResponseMessage()
                .id("resumeTrainJob")
                .to("direct:http-resume");

        rest("/runtimes")
                .description("Runtimes: what a TrainJob can run on")
                .get("/{runtime}")
                .description("One runtime by name (the namespace's TrainingRuntime before the"
                        + " ClusterTrainingRuntime of that name), with the launcher a train request would get and why")
                .produces("application/json")
                .param()
                .name("namespace")
                .type(RestParamType.query)
                .required(false)
                .endParam()
                .responseMessage()
                .code(404)
                .message("No such runtime")
                .endResponseMessage()
                .id("getRuntime")
                .to("direct:http-runtime");

        from("direct:http-train")
                .routeId("http-train")
                // only the JSON body speaks for the caller: no HTTP header may set a component option
                .removeHeaders("CamelKubeflowTrainer*")
                .process(HttpRoutes::callerFromAuthentication)
                .setHeader(IDEMPOTENCY_KEY, header("Idempotency-Key"))
                .process(HttpRoutes::requireBody)
                .bean("trainRequestMessage", "read")
                // as the caller: the API server decides whether it may create the TrainJob and read what it references
                .to("kubeflow-trainer:train?runtime={{trainer.runtime}}&namespace={{trainer.namespace}}&bodyType=ignore"
                        + "&authorizeCaller=true&policy=#trainRequestPolicy")
                .process(this::trainAnswer)
                .marshal()
                .json()
                .process(HttpRoutes::onlyTheAnswersHeaders);

        asCaller("list")
                .process(this::namespaceHeader)
                .setHeader(LABEL_SELECTOR, header("labelSelector"))
                .setHeader(RUNTIME, header("runtime"))
                .to("kubeflow-trainer:list?namespace={{trainer.namespace}}&authorizeCaller=true")
                .process(e -> {
                    Map<String, Object> answer = new LinkedHashMap<>();
                    answer.put("namespace", e.getMessage().getHeader(NAMESPACE));
                    Map<?, ?> steps = e.getMessage().getHeader(STEPS, Map.class);
                    Map<?, ?> statuses = e.getMessage().getHeader(STATUSES, Map.class);
                    answer.put(
                            "items",
                            e.getMessage().getBody(List.class).stream()
                                    .map(job -> {
                                        String key =
                                                TrainJobRef.of((TrainJob) job).toString();
                                        return statusView.summary(
                                                (TrainJob) job, steps.get(key), (ReportedStatus) statuses.get(key));
                                    })
                                    .toList());
                    e.getMessage().setBody(answer);
                })
                .marshal()
                .json()
                .process(HttpRoutes::onlyTheAnswersHeaders);

        asCaller("delete")
                .process(this::jobHeaders)
                .setHeader(DELETE_PROPAGATION, header("propagation"))
                .to("kubeflow-trainer:delete?namespace={{trainer.namespace}}&authorizeCaller=true")
                .process(e -> {
                    Map<String, Object> answer = new LinkedHashMap<>();
                    answer.put("name", e.getMessage().getHeader(JOB_NAME));
                    answer.put("namespace", e.getMessage().getHeader(NAMESPACE));
                    if (!e.getMessage().getHeader(DELETED, Boolean.class)) {
                        throw new TrainJobNotFoundException(
                                "TrainJob " + answer.get("namespace") + "/" + answer.get("name") + " does not exist");
                    }
                    answer.put("deleted", true);
                    e.getMessage().setBody(answer);
                })
                .marshal()
                .json()
                .process(HttpRoutes::onlyTheAnswersHeaders);

        for (String operation : new String[] {"suspend", "resume"}) {
            asCaller(operation)
                    .process(this::jobHeaders)
                    .to("kubeflow-trainer:" + operation + "?namespace={{trainer.namespace}}&authorizeCaller=true")
                    .process(this::jobWithSteps)
                    .marshal()
                    .json()
                    .process(HttpRoutes::onlyTheAnswersHeaders);
        }

        asCaller("status")
                .process(this::jobHeaders)
                .to("kubeflow-trainer:get?namespace={{trainer.namespace}}&authorizeCaller=true")
                .process(this::jobWithSteps)
                .marshal()
                .json()
                .process(HttpRoutes::onlyTheAnswersHeaders);

        asCaller("events")
                .process(this::jobHeaders)
                .to("kubeflow-trainer:events?namespace={{trainer.namespace}}&authorizeCaller=true")
                .process(e -> {
                    Map<String, Object> answer = new LinkedHashMap<>();
                    answer.put("name", e.getMessage().getHeader(JOB_NAME));
                    answer.put("namespace", e.getMessage().getHeader(NAMESPACE));
                    answer.put("items", e.getMessage().getBody());
                    e.getMessage().setBody(answer);
                })
                .marshal()
                .json()
                .process(HttpRoutes::onlyTheAnswersHeaders);

        asCaller("runtime")
                .process(this::namespaceHeader)
                .setHeader(RUNTIME, header("runtime"))
                .to("kubeflow-trainer:runtimes?namespace={{trainer.namespace}}&authorizeCaller=true")
                .marshal()
                .json()
                .process(HttpRoutes::onlyTheAnswersHeaders);
    }

    /** The job's summary with its steps and the status the operation reported, as get, suspend and resume answer it. */
    private void jobWithSteps(Exchange exchange) {
        Message in = exchange.getMessage();
        in.setBody(statusView.summary(
                in.getBody(TrainJob.class),
                in.getHeader(STEPS),
                new ReportedStatus(
                        in.getHeader(STATUS, String.class),
                        in.getHeader(REASON, String.class),
                        in.getHeader(MESSAGE, String.class))));
    }

    private void trainAnswer(Exchange exchange) {
        Map<String, Object> answer =
                new LinkedHashMap<>(statusView.summary(exchange.getMessage().getBody(TrainJob.class)));
        answer.put("launcher", exchange.getMessage().getHeader(LAUNCHER_CHOSEN));
        answer.put("launcherRule", exchange.getMessage().getHeader(LAUNCHER_RULE));
        answer.put("launcherReason", exchange.getMessage().getHeader(LAUNCHER_REASON));
        boolean adopted = exchange.getMessage().getHeader(ADOPTED, Boolean.class);
        answer.put("adopted", adopted);
        exchange.getMessage().setHeader(Exchange.HTTP_RESPONSE_CODE, adopted ? 200 : 201);
        exchange.getMessage().setBody(answer);
    }

    /**
     * The caller HttpAuthentication vouched for, as the component's caller; and its own key space, so that no caller's
     * Idempotency-Key can adopt or pre-empt another caller's job, or a job of the Kafka or S3 routes.
     */
    private static void callerFromAuthentication(Exchange exchange) {
        exchange.getMessage()
                .setHeader(
                        IDEMPOTENCY_SCOPE,
                        "http:" + HttpAuthentication.actAsCaller(exchange).user());
    }

    /**
     * The route of one operation of the HTTP API, acting as its caller: no HTTP header or query parameter may set a
     * component header (of any case), and the caller HttpAuthentication vouched for becomes the component's caller.
     */
    private RouteDefinition asCaller(String operation) {
        return from("direct:http-" + operation)
                .routeId("http-" + operation)
                .removeHeaders("CamelKubeflowTrainer*")
                .process(HttpAuthentication::actAsCaller);
    }

    private String namespace(Exchange exchange) {
        String namespace = exchange.getMessage().getHeader("namespace", String.class);
        return namespace == null ? defaultNamespace : namespace;
    }

    private void namespaceHeader(Exchange exchange) {
        exchange.getMessage().setHeader(NAMESPACE, namespace(exchange));
    }

    /** The job the path names, in the namespace the query names (default: the app's). */
    private void jobHeaders(Exchange exchange) {
        namespaceHeader(exchange);
        exchange.getMessage().setHeader(JOB_NAME, exchange.getMessage().getHeader("name"));
    }

    /**
     * A refused field, named as the caller wrote it: the query parameters, path segment and message fields that became
     * component headers keep their own names.
     */
    private static void invalid(Exchange exchange) {
        InvalidOptionException invalid = exchange.getProperty(Exchange.EXCEPTION_CAUGHT, InvalidOptionException.class);
        String callerField =
                CALLER_FIELDS.getOrDefault(invalid.getField(), TrainRequestMessage.fieldOf(invalid.getField()));
        InvalidOptionException named = callerField == null ? invalid : invalid.as(callerField);
        // the kind (a missing runtime is not found) is the refusal's own; the words name the field as written
        ErrorAnswer kind = ErrorAnswer.of(invalid, null);
        answer(
                exchange,
                new ErrorAnswer(kind.problem(), kind.status(), named.getMessage(), named.getField(), kind.fix()));
    }

    /** A body of bytes, left as they came for TrainRequestMessage to read as UTF-8. */
    private static void requireBody(Exchange exchange) {
        byte[] body = exchange.getMessage().getBody(byte[].class);
        if (body == null || new String(body, StandardCharsets.ISO_8859_1).isBlank()) {
            throw new InvalidOptionException(
                    "body",
                    "the request has no body; send a JSON object such as"
                            + " {\"script\": \"print(1)\"} with Content-Type: application/json");
        }
        exchange.getMessage().setBody(body);
    }

    /**
     * What the Kubernetes API answered, as the HTTP API's answer: its refusals (403, 404, 409, 422) keep their status
     * and message; an API server that does not answer, or answers 429 or 5xx, is 503 (try again), never a 500.
     */
    private static void apiError(Exchange exchange) {
        KubernetesClientException refused =
                exchange.getProperty(Exchange.EXCEPTION_CAUGHT, KubernetesClientException.class);
        int code = refused.getCode();
        String message = refused.getStatus() != null && refused.getStatus().getMessage() != null
                ? refused.getStatus().getMessage()
                : refused.getMessage();
        boolean unreachable = ErrorAnswer.apiUnreachable(refused);
        if (unreachable || code == 429 || code >= 500) {
            answer(
                    exchange,
                    ErrorAnswer.Problem.UNAVAILABLE.answer(
                            unreachable
                                    ? ErrorAnswer.API_UNREACHABLE
                                    : "the Kubernetes API is unavailable (" + code + ")",
                            null,
                            "try again shortly; nothing was"
                                    + " changed unless a later retry with the same Idempotency-Key adopts it"));
        } else if (code == 403 || code == 404 || code == 409 || code == 422 || code == 400) {
            answer(
                    exchange,
                    ErrorAnswer.Problem.KUBERNETES_REFUSED
                            .answer("the Kubernetes API refused the request (" + code + "): " + message, null, null)
                            .at(code));
        } else {
            answer(
                    exchange,
                    ErrorAnswer.Problem.KUBERNETES_ERROR.answer(
                            "the Kubernetes API answered " + code + ": " + message, null, null));
        }
    }

    /** A fault of the app itself: a 500 that says so and where to look, never an empty one. */
    private static void internalError(Exchange exchange) {
        Exception fault = exchange.getProperty(Exchange.EXCEPTION_CAUGHT, Exception.class);
        String id = UUID.randomUUID().toString().substring(0, 8);
        LOG.errorf(fault, "HTTP request failed (error %s)", id);
        answer(
                exchange,
                ErrorAnswer.Problem.INTERNAL_ERROR.answer(
                        "internal error " + id + ": the app's log has the" + " details", null, null));
    }

    /**
     * What goes back is the answer alone: platform-http answers every message header as a response header, and the
     * message still holds the request's headers and query parameters. Left there, a caller could have the app send
     * headers of its choosing (Set-Cookie, CORS) or, with a control character in one, fail the answer after the
     * request was carried out.
     */
    private static void onlyTheAnswersHeaders(Exchange exchange) {
        exchange.getMessage().removeHeaders("*", Exchange.HTTP_RESPONSE_CODE);
        exchange.getMessage().setHeader(Exchange.CONTENT_TYPE, "application/json");
    }

    /** An error answer as problem details, its instance the request's path (its query left out). */
    private static void answer(Exchange exchange, ErrorAnswer answer) {
        String uri = exchange.getMessage().getHeader(Exchange.HTTP_URI, String.class);
        String path = uri == null ? null : uri.split("\\?", 2)[0];
        onlyTheAnswersHeaders(exchange);
        exchange.getMessage().setHeader(Exchange.CONTENT_TYPE, ErrorAnswer.MEDIA_TYPE);
        exchange.getMessage().setHeader(Exchange.HTTP_RESPONSE_CODE, answer.status());
        exchange.getMessage().setBody(answer.json(path));
    }

    private static void error(Exchange exchange, String field) {
        answer(exchange, ErrorAnswer.of(exchange.getProperty(Exchange.EXCEPTION_CAUGHT, Exception.class), field));
    }
}
