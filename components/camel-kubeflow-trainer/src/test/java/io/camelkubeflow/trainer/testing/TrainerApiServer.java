package io.camelkubeflow.trainer.testing;

import io.camelkubeflow.trainer.sandbox.TrainerSandbox;
import io.camelkubeflow.trainer.sandbox.cluster.TrainJobControllerEmulation;
import io.camelkubeflow.trainer.sandbox.store.CrdSchemaValidator;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.mockwebserver.http.RecordedRequest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The local {@link TrainerSandbox} seen by a test: it counts writes since a mark and validates the body of every
 * TrainJob the component sends against the real CRD's schema and CEL rules.
 */
public final class TrainerApiServer implements AutoCloseable {
    private final TrainerSandbox sandbox;
    private final List<String> trainJobBodies = new CopyOnWriteArrayList<>();
    private final CrdSchemaValidator trainJobSchema = CrdSchemaValidator.trainJobs();
    private long mark;
    /** Every namespace the component's tests write to. */
    public static final List<String> NAMESPACES = List.of(
            "test",
            "acl",
            "bad",
            "capped",
            "crowd",
            "dsl",
            "ev1",
            "ev2",
            "ev3",
            "ev4",
            "failed",
            "from-component",
            "idem",
            "inline",
            "le",
            "logs",
            "metrics",
            "ml",
            "ops",
            "outage",
            "init",
            "own",
            "pol",
            "progress1",
            "progress2",
            "progress3",
            "progress4",
            "rbac",
            "requests",
            "restart",
            "scopes",
            "secrets",
            "shared",
            "skips",
            "team-a",
            "team-b",
            "ttl",
            "waits",
            "faults",
            "chaos",
            "delete",
            "list-a",
            "list-b",
            "marks",
            "reap",
            "reap-elsewhere",
            "suspend",
            "outputs",
            "reads",
            "reads-other",
            "pods");

    private TrainerApiServer() {
        // the emulated controller runs TrainJobs quickly; its own requests are left out of the counts below
        sandbox = TrainerSandbox.start(
                TrainerSandbox.Options.defaults().withController(Duration.ofMillis(50), Duration.ofMillis(200)));
        sandbox.onTrainJobWrite(trainJobBodies::add);
        // the namespaces the tests work in, as a cluster's admin would have made them
        createNamespaces(sandbox);
        mark();
    }

    /** Creates in {@code sandbox} every namespace the component's tests write to. */
    public static void createNamespaces(TrainerSandbox sandbox) {
        sandbox.createNamespace(NAMESPACES.toArray(String[]::new));
    }

    public static TrainerApiServer start() {
        return new TrainerApiServer();
    }

    public KubernetesClient client() {
        return sandbox.client();
    }

    public void createRuntime(String yaml) {
        sandbox.createRuntime(yaml);
    }

    /** Starts a new window for {@link #requestsSinceMark()}. */
    public void mark() {
        mark = sandbox.requestCount();
    }

    /** Requests since the mark, except the emulated controller's. */
    public List<RecordedRequest> requestsSinceMark() {
        return sandbox.requestsSince(mark).stream()
                .filter(r -> !TrainJobControllerEmulation.USER_AGENT.equals(r.getHeader("User-Agent")))
                .toList();
    }

    public TrainerSandbox sandbox() {
        return sandbox;
    }

    /**
     * "METHOD path" of every write (POST, PUT, PATCH, DELETE) since the mark. Access and token reviews are POSTs that
     * store nothing (the API server answers them and keeps nothing): they are not writes.
     */
    public List<String> writesSinceMark() {
        return requestsSinceMark().stream()
                .filter(r -> !"GET".equals(r.getMethod()))
                .filter(r -> !r.getPath().startsWith("/apis/authorization.k8s.io/")
                        && !r.getPath().startsWith("/apis/authentication.k8s.io/"))
                .map(r -> r.getMethod() + " " + r.getPath())
                .toList();
    }

    /** Violations of the CRD by any TrainJob written since the server started, each with the body at fault. */
    public List<String> trainJobWriteViolations() {
        List<String> violations = new ArrayList<>();
        for (String body : trainJobBodies) {
            for (String violation : trainJobSchema.validate(body)) {
                violations.add(violation + " in " + body);
            }
        }
        return violations;
    }

    /** How many TrainJob creates or replaces the server received since it started. */
    public int trainJobWrites() {
        return trainJobBodies.size();
    }

    @Override
    public void close() {
        sandbox.close();
    }
}
