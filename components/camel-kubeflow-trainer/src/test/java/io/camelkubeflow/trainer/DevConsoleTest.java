package io.camelkubeflow.trainer;

import static io.camelkubeflow.trainer.KubeflowTrainerConstants.JOB_NAME;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.camelkubeflow.trainer.testing.TrainerApiServer;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.apache.camel.CamelContext;
import org.apache.camel.Exchange;
import org.apache.camel.ProducerTemplate;
import org.apache.camel.console.DevConsole;
import org.apache.camel.console.DevConsoleRegistry;
import org.apache.camel.impl.DefaultCamelContext;
import org.apache.camel.util.json.JsonArray;
import org.apache.camel.util.json.JsonObject;
import org.junit.jupiter.api.Test;

/**
 * The component's dev console, as a context with dev consoles on finds it (its id, through
 * {@code META-INF/services/org/apache/camel/dev-console/kubeflow-trainer}): a wait and a log follow of a suspended
 * TrainJob in flight with their watches, then none once the job ran, the counts of what ended, and a failure shown
 * escaped; never an option's value.
 */
class DevConsoleTest {
    static final String NAMESPACE = "console";
    /** A token on the endpoint (the component's client is used): its value must never show. */
    static final String SECRET = "s3cr3t-console-token";

    static final String TRAIN = "kubeflow-trainer:train?runtime=torch-distributed&namespace=" + NAMESPACE
            + "&pythonFile=/app/t.py&suspend=true&oauthToken=" + SECRET;

    @Test
    void theConsoleShowsWhatIsInFlightAndWhatEnded() throws Exception {
        try (TrainerApiServer api = TrainerApiServer.start();
                CamelContext camel = new DefaultCamelContext()) {
            api.sandbox().createNamespace(NAMESPACE);
            camel.setDevConsole(true);
            camel.getComponent("kubeflow-trainer", KubeflowTrainerComponent.class)
                    .setKubernetesClient(api.client());
            camel.start();
            DevConsole console = DevConsoleRegistry.get(camel).resolveById("kubeflow-trainer");
            assertInstanceOf(KubeflowTrainerDevConsole.class, console, "Camel resolves the console by its id");
            ProducerTemplate template = camel.createProducerTemplate();

            Exchange trained = template.send(TRAIN, e -> {});
            assertNull(trained.getException());
            String name = trained.getMessage().getHeader(JOB_NAME, String.class);
            CompletableFuture<Exchange> waiting = template.asyncSend(
                    "kubeflow-trainer:wait?namespace=" + NAMESPACE,
                    e -> e.getMessage().setHeader(JOB_NAME, name));
            CompletableFuture<Exchange> following = template.asyncSend(
                    "kubeflow-trainer:logs?follow=true&namespace=" + NAMESPACE,
                    e -> e.getMessage().setHeader(JOB_NAME, name));

            // the wait's exchange is in flight a moment before its handler hands the wait to the watcher
            JsonObject pending = awaitJson(
                    console,
                    json -> json.getInteger("waits") == 1
                            && json.getInteger("logFollows") == 1
                            && json.getInteger("waitsPending") == 1);
            assertEquals(0, pending.getInteger("creates"));
            JsonObject jobs = watch(pending, "trainjobs/" + NAMESPACE);
            assertEquals(true, jobs.getBoolean("running"));
            assertEquals(true, jobs.getBoolean("synced"));
            assertNotNull(jobs.getString("resourceVersion"));
            assertEquals(0, jobs.getLong("outages"));
            String text = (String) console.call(DevConsole.MediaType.TEXT);
            assertTrue(text.contains("In flight: 0 creates, 1 waits, 1 log follows; waits pending: 1"), text);

            assertNull(template.send(
                            "kubeflow-trainer:resume?namespace=" + NAMESPACE,
                            e -> e.getMessage().setHeader(JOB_NAME, name))
                    .getException());
            assertNull(waiting.get(60, TimeUnit.SECONDS).getException());
            assertNull(following.get(60, TimeUnit.SECONDS).getException());
            // a refused job name, quoted in the failure: escaped there, as everywhere
            Exchange refused = template.send(TRAIN, e -> e.getMessage().setHeader(JOB_NAME, "Bad\u001b[2JName"));
            assertNotNull(refused.getException());

            JsonObject ended = json(console);
            assertEquals(0, ended.getInteger("creates"));
            assertEquals(0, ended.getInteger("waits"));
            assertEquals(0, ended.getInteger("logFollows"));
            assertEquals(0, ended.getInteger("waitsPending"));
            JsonObject train = endpoint(ended, "train");
            assertEquals(NAMESPACE, train.getString("namespace"));
            assertEquals("torch-distributed", train.getString("runtime"));
            assertTrue(((JsonArray) train.get("options")).contains("oauthToken"), train.toJson());
            assertEquals(2, train.getLong("done"), "the suspended job's train and the refused one");
            assertEquals(1, train.getLong("failed"));
            JsonObject failure = (JsonObject) train.get("lastFailure");
            assertEquals(refused.getException().getClass().getName(), failure.getString("type"));
            assertTrue(failure.getString("message").contains("\\u001b[2J"), failure.getString("message"));
            assertEquals(1, endpoint(ended, "wait").getLong("done"));
            assertEquals(0, endpoint(ended, "wait").getLong("failed"));
            assertEquals(1, endpoint(ended, "logs").getLong("done"));

            String all = ended.toJson() + console.call(DevConsole.MediaType.TEXT);
            assertFalse(all.contains(SECRET), "an option's value shows: " + all);
            assertFalse(all.chars().anyMatch(c -> c == 0x1b), "a control character shows: " + all);
        }
    }

    /**
     * An endpoint's namespace and runtime are text from its URI (a toD's may come from a message), shown before any
     * check of them: escaped as every quoted input is, never a terminal's control sequence.
     */
    @Test
    void anEndpointsNamespaceAndRuntimeShowEscaped() throws Exception {
        try (CamelContext camel = new DefaultCamelContext()) {
            camel.setDevConsole(true);
            camel.start();
            camel.getEndpoint("kubeflow-trainer:train?namespace=ns%1B%5B2J&runtime=rt%0D%E2%80%AEx");
            DevConsole console = DevConsoleRegistry.get(camel).resolveById("kubeflow-trainer");
            String text = (String) console.call(DevConsole.MediaType.TEXT);
            JsonObject train = endpoint(json(console), "train");
            String all = text + train.getString("namespace") + train.getString("runtime");
            assertTrue(all.chars().noneMatch(c -> c == 0x1b || c == '\r' || c == 0x202e), "shown raw: " + all);
            assertTrue(text.contains("namespace: ns\\u001b[2J"), text);
            assertEquals("rt\\r\\u202ex", train.getString("runtime"));
        }
    }

    private static JsonObject json(DevConsole console) {
        return (JsonObject) console.call(DevConsole.MediaType.JSON);
    }

    /** The console's JSON once it shows what is expected (the exchanges sent asynchronously reach their endpoints). */
    private static JsonObject awaitJson(DevConsole console, Predicate<JsonObject> expected)
            throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        JsonObject json = json(console);
        while (!expected.test(json)) {
            assertTrue(System.nanoTime() < deadline, "the console never showed it: " + json.toJson());
            Thread.sleep(20);
            json = json(console);
        }
        return json;
    }

    private static JsonObject endpoint(JsonObject json, String operation) {
        return ((JsonArray) json.get("endpoints"))
                .stream()
                        .map(JsonObject.class::cast)
                        .filter(e -> operation.equals(e.getString("operation")))
                        .findFirst()
                        .orElseThrow(() -> new AssertionError("no " + operation + " endpoint in " + json.toJson()));
    }

    private static JsonObject watch(JsonObject json, String name) {
        return ((JsonArray) json.get("watches"))
                .stream()
                        .map(JsonObject.class::cast)
                        .filter(w -> name.equals(w.getString("name")))
                        .findFirst()
                        .orElseThrow(() -> new AssertionError("no watch " + name + " in " + json.toJson()));
    }
}
