package io.camelkubeflow.trainer.routes;

import io.camelkubeflow.trainer.KubeflowTrainerComponent;
import io.camelkubeflow.trainer.access.Access;
import io.camelkubeflow.trainer.access.Caller;
import io.camelkubeflow.trainer.api.KubernetesNames;
import io.camelkubeflow.trainer.api.TrainJobPhase;
import io.camelkubeflow.trainer.logs.LogSink;
import io.camelkubeflow.trainer.logs.LogStep;
import io.camelkubeflow.trainer.logs.TrainJobLogs;
import io.camelkubeflow.trainer.support.ApiRetry;
import io.camelkubeflow.trainer.support.InvalidOptionException;
import io.camelkubeflow.trainer.watch.ClusterInformers;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.camel.CamelContext;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code GET /trainjobs/{name}/logs}: a TrainJob's log as chunked text, each line sent as soon as it is read, so
 * {@code ?follow=true} shows a running job's output live until the job ends. Query parameters: {@code follow},
 * {@code step} (trainer, node-N, launcher, dataset-initializer, model-initializer, all), {@code namespace} and
 * {@code offset} (lines the client already has: a broken follow resumes where it was). A follow whose own stream
 * from the API server breaks (a restart, an outage) resumes by itself without repeats or gaps.
 *
 * <p>This one endpoint is a Vert.x route rather than a platform-http one: platform-http (Camel 4.17) writes a
 * streamed body in 4 KiB pieces once the exchange has ended, so a follower would see a slow job's lines in bursts,
 * or only at its end.
 */
@ApplicationScoped
public class TrainJobLogStream {
    private static final Logger LOG = LoggerFactory.getLogger(TrainJobLogStream.class);
    /**
     * A read without {@code follow} waits for nothing: it answers with the log there is, or at once 409 when no pod of
     * the step has started yet (as {@code kubectl logs} of a container still waiting to start).
     */
    private static final Duration NO_WAIT = Duration.ZERO;

    /** How long a follower waits for the job's pod to start before the answer is 504. */
    @ConfigProperty(name = "trainer.http.log-start-timeout", defaultValue = "60s")
    Duration followStartTimeout;

    @Inject
    KubernetesClient client;

    @Inject
    TrainJobStatusView statusView;

    /** Its informers are the app's: a reader waits for its pod on the one pod watch of the namespace. */
    @Inject
    CamelContext camel;

    @ConfigProperty(name = "trainer.namespace")
    String defaultNamespace;

    /**
     * Checks a request (access and job lookups block) and reads its log, off the event loop. A reader holds none of
     * these threads while it waits for lines, so a few serve any number of followers.
     */
    private final ExecutorService readers =
            Executors.newFixedThreadPool(Math.max(2, Runtime.getRuntime().availableProcessors()), new ReaderThreads());

    void register(@Observes Router router) {
        // ahead of the REST DSL's routes, which Camel adds to the same router later
        router.get("/trainjobs/:name/logs").order(-1).handler(this::handle);
    }

    @PreDestroy
    void stop() {
        readers.shutdownNow();
    }

    private void handle(RoutingContext context) {
        String name = context.pathParam("name");
        String namespace = context.queryParams().get("namespace");
        String stepText = context.queryParams().get("step");
        String followText = context.queryParams().get("follow");
        String offsetText = context.queryParams().get("offset");
        HttpServerResponse response = context.response();
        Caller caller = context.get(HttpAuthentication.CALLER);
        String path = context.request().path();
        readers.execute(() -> stream(
                caller,
                namespace == null ? defaultNamespace : namespace,
                name,
                stepText,
                followText,
                offsetText,
                response,
                path));
    }

    private void stream(
            Caller caller,
            String namespace,
            String name,
            String stepText,
            String followText,
            String offsetText,
            HttpServerResponse response,
            String path) {
        try {
            KubernetesNames.namespace("namespace", namespace);
            KubernetesNames.trainJobName("name", name);
            boolean follow = follow(followText);
            LogStep step = LogStep.parse("step", stepText);
            long offset = offset(offsetText, step);
            KubeflowTrainerComponent component = camel.getComponent("kubeflow-trainer", KubeflowTrainerComponent.class);
            // both before the job is looked up: a caller who may read pod logs but not get the job learns nothing of
            // it (whether it exists, is suspended or has started), the same 403 for any name
            component
                    .accessReviewerFor(client, ApiRetry.DEFAULT)
                    .check(caller, List.of(Access.trainJobs("get", namespace, name), Access.readPodLogs(namespace)));
            TrainJobPhase phase = statusView.phaseForLogs(namespace, name);
            if (phase == TrainJobPhase.SUSPENDED) {
                // no pod runs, nor will until it is resumed: say so now instead of waiting for a pod to start
                ErrorAnswer.Problem.SUSPENDED
                        .answer(
                                "TrainJob " + namespace + "/" + name + " is suspended: none of" + " its pods runs",
                                null,
                                "resume it (POST /trainjobs/" + name + "/resume), then read its log")
                        .send(response, path);
                return;
            }
            response.setChunked(true).putHeader("Content-Type", "text/plain; charset=utf-8");
            ClusterInformers informers = component.informersFor(client);
            // an ended job starts no pod any more: even a follow reads what there is, at once
            boolean waits = follow && !phase.isTerminal();
            CompletableFuture<List<String>> reading = new TrainJobLogs(client, informers, readers)
                    .read(
                            new TrainJobLogs.Request(
                                    namespace, name, step, follow, null, null, waits ? followStartTimeout : NO_WAIT),
                            new ResponseSink(response, step.kind() == LogStep.Kind.ALL, offset));
            // a client that leaves while no line comes ends the read at once, not at the job's next line
            response.closeHandler(closed -> reading.cancel(false));
            reading.whenComplete((steps, failure) -> {
                if (failure == null) {
                    response.end();
                } else if (failure instanceof ClientGoneException || failure instanceof CancellationException) {
                    LOG.debug("Client of the log of {}/{} went away", namespace, name);
                } else {
                    fail(
                            response,
                            path,
                            failure instanceof RuntimeException e ? e : new IllegalStateException(failure),
                            namespace,
                            name);
                }
            });
        } catch (RuntimeException e) {
            fail(response, path, e, namespace, name);
        }
    }

    /**
     * Whether to follow, as the document's boolean says it: {@code true} or {@code false}. Another word is refused
     * rather than read as false: a client that wrote {@code follow=TRUE} meant to wait, and a plain read would answer
     * it 409 with the fix "add follow=true".
     */
    private static boolean follow(String text) {
        if (text == null || "false".equals(text)) {
            return false;
        }
        if ("true".equals(text)) {
            return true;
        }
        throw new InvalidOptionException(
                "follow",
                "'" + text + "' is not true or false; give follow=true to wait for"
                        + " the job's pods and follow their log, or leave it out for the log there is now");
    }

    /**
     * Lines the client already has ({@code offset}, a count from the log's first line): a client whose connection
     * broke asks again from where it was. Only for one step's log, whose lines have one order.
     */
    private static long offset(String text, LogStep step) {
        if (text == null) {
            return 0;
        }
        long offset;
        try {
            offset = Long.parseLong(text);
        } catch (NumberFormatException e) {
            offset = -1;
        }
        if (offset < 0) {
            throw new InvalidOptionException(
                    "offset",
                    "'" + text + "' is not a line count; give the number of lines" + " already received (0 or more)");
        }
        if (offset > 0 && step.kind() == LogStep.Kind.ALL) {
            throw new InvalidOptionException(
                    "offset",
                    "the lines of step=all interleave several pods, so a count"
                            + " does not say where to resume; follow one step (trainer, node-N, launcher) to resume by offset");
        }
        return offset;
    }

    private static void fail(
            HttpServerResponse response, String path, RuntimeException e, String namespace, String name) {
        if (response.headWritten()) {
            // lines were sent already: the status cannot change, so the stream is cut rather than ended cleanly
            LOG.warn("Log stream of {}/{} failed: {}", namespace, name, e.getMessage());
            response.reset();
            return;
        }
        ErrorAnswer.of(e, e instanceof InvalidOptionException invalid ? invalid.getField() : null)
                .send(response, path);
    }

    /**
     * Writes each line to the response, after the {@code offset} lines the client already has; while the client reads
     * slower than the job logs, the reader is held back until the response's queue drains.
     */
    private static final class ResponseSink implements LogSink {
        private final HttpServerResponse response;
        private final boolean prefixSteps;
        private final List<Runnable> waiting = new ArrayList<>();
        private long toSkip;

        ResponseSink(HttpServerResponse response, boolean prefixSteps, long offset) {
            this.response = response;
            this.prefixSteps = prefixSteps;
            this.toSkip = offset;
        }

        @Override
        public void line(String step, String text) {
            if (response.closed()) {
                throw new ClientGoneException();
            }
            if (toSkip > 0) {
                toSkip--;
                return;
            }
            response.write((prefixSteps ? LogStep.prefixed(step, text) : text) + "\n");
        }

        @Override
        public boolean ready(Runnable resume) {
            if (!response.writeQueueFull()) {
                return true;
            }
            synchronized (waiting) {
                waiting.add(resume);
            }
            response.drainHandler(drained -> resumeWaiting());
            // the queue may have drained before the handler was set
            if (!response.writeQueueFull()) {
                resumeWaiting();
            }
            return false;
        }

        private void resumeWaiting() {
            List<Runnable> resumed;
            synchronized (waiting) {
                resumed = new ArrayList<>(waiting);
                waiting.clear();
            }
            resumed.forEach(Runnable::run);
        }
    }

    /** The HTTP client closed the connection: reading on would only fill a dead socket. */
    private static final class ClientGoneException extends RuntimeException {
        ClientGoneException() {
            super("the HTTP client closed the log stream", null, false, false);
        }
    }

    private static final class ReaderThreads implements ThreadFactory {
        private final AtomicInteger count = new AtomicInteger();

        @Override
        public Thread newThread(Runnable task) {
            Thread thread = new Thread(task, "trainjob-log-stream-" + count.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        }
    }
}
