package io.camelkubeflow.trainer.routes;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.camelkubeflow.trainer.api.TrainJob;
import io.camelkubeflow.trainer.job.TrainJobMetadata;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.net.URL;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * One trace per training, as an OpenTelemetry backend shows it: the caller's trace goes on through the app's HTTP
 * route and the TrainJob's create, and the completion route's span, started when the job ends, is a child of that
 * create, so the request and its completion event share one trace id.
 */
@QuarkusTest
@QuarkusTestResource(FreshFolders.class)
class TraceTest {
    /** The caller's trace: its id and the span that sent the request. */
    static final String TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736";

    static final String CALLER_SPAN = "00f067aa0ba902b7";

    @TestHTTPResource("/trainjobs")
    URL trainjobs;

    @Inject
    InMemorySpanExporter spans;

    @Inject
    KubernetesClient client;

    @Test
    void theRequestTheCreateAndTheCompletionEventAreOneTrace() throws Exception {
        HttpResponse<String> created = HttpRoutesTest.HTTP.send(
                HttpRequest.newBuilder(trainjobs.toURI())
                        .header("Content-Type", "application/json")
                        .header("Authorization", "Bearer " + HttpRoutesTest.localToken())
                        .header("traceparent", "00-" + TRACE_ID + "-" + CALLER_SPAN + "-01")
                        .POST(HttpRequest.BodyPublishers.ofString("{\"pythonFile\": \"/app/train.py\"}"))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(201, created.statusCode(), created.body());
        String name = (String) HttpRoutesTest.json(created).get("name");

        // the delivery of the completion event (to trainer.completion.uri, by the direct route the completion route
        // hands it to: not the hand-off), in the caller's trace, below the completion route's span
        SpanData delivery = awaitSpan(span -> span.getTraceId().equals(TRACE_ID)
                && "EVENT_SENT".equals(attribute(span, "op"))
                && !attribute(span, "camel.uri").startsWith("direct:")
                && completionRoute(span).isPresent());
        List<SpanData> trace = spans.getFinishedSpanItems().stream()
                .filter(span -> span.getTraceId().equals(TRACE_ID))
                .toList();
        SpanData completion = completionRoute(delivery).orElseThrow();
        SpanData create = parent(completion)
                .orElseThrow(() -> new AssertionError(
                        "the completion route's span has no parent in the trace: " + describe(trace)));
        assertEquals("kubeflow-trainer", create.getName(), describe(trace));
        assertEquals("train", attribute(create, "url.path"));

        TrainJob job = client.resources(TrainJob.class)
                .inNamespace("default")
                .withName(name)
                .get();
        assertEquals(
                "00-" + TRACE_ID + "-" + create.getSpanId() + "-01",
                job.getMetadata().getAnnotations().get(TrainJobMetadata.TRACE_PARENT_ANNOTATION),
                "the job keeps the context of the span that created it");
        SpanData route = parent(create).orElseThrow(() -> new AssertionError(describe(trace)));
        assertEquals("http-train", attribute(route, "url.query").replaceAll(".*routeId=", ""));
        assertEquals(CALLER_SPAN, route.getParentSpanId(), "the HTTP route continues the caller's span");
    }

    private static boolean isCompletionRoute(SpanData span) {
        return "EVENT_RECEIVED".equals(attribute(span, "op"))
                && attribute(span, "camel.uri").startsWith("master:trainjob-completion:");
    }

    /** The completion route's span among the span's ancestors ended so far. */
    private Optional<SpanData> completionRoute(SpanData span) {
        Optional<SpanData> ancestor = parent(span);
        while (ancestor.isPresent() && !isCompletionRoute(ancestor.get())) {
            ancestor = parent(ancestor.get());
        }
        return ancestor;
    }

    /** The span's parent among the spans ended so far. */
    private Optional<SpanData> parent(SpanData span) {
        return spans.getFinishedSpanItems().stream()
                .filter(other -> other.getTraceId().equals(span.getTraceId())
                        && other.getSpanId().equals(span.getParentSpanId()))
                .findFirst();
    }

    private static String attribute(SpanData span, String key) {
        String value = span.getAttributes().get(AttributeKey.stringKey(key));
        return value == null ? "" : value;
    }

    private SpanData awaitSpan(Predicate<SpanData> wanted) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (System.nanoTime() < deadline) {
            Optional<SpanData> found =
                    spans.getFinishedSpanItems().stream().filter(wanted).findFirst();
            if (found.isPresent()) {
                return found.get();
            }
            Thread.sleep(50);
        }
        throw new AssertionError("no such span in 30 s; spans: " + describe(spans.getFinishedSpanItems()));
    }

    private static String describe(List<SpanData> spans) {
        return spans.stream()
                .map(span -> span.getName() + " " + span.getTraceId() + "/" + span.getSpanId() + "<-"
                        + span.getParentSpanId() + " " + span.getAttributes().asMap())
                .collect(Collectors.joining("\n"));
    }
}
