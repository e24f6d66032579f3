package io.camelkubeflow.trainer;

import static io.camelkubeflow.trainer.KubeflowTrainerConstants.*;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.camelkubeflow.trainer.access.AccessDeniedException;
import io.camelkubeflow.trainer.access.Caller;
import io.camelkubeflow.trainer.api.TrainJob;
import io.camelkubeflow.trainer.sandbox.cluster.TrainJobControllerEmulation;
import io.camelkubeflow.trainer.testing.LeaseReplicas;
import io.camelkubeflow.trainer.testing.ReliabilityFigures;
import io.camelkubeflow.trainer.testing.RuntimeYaml;
import io.camelkubeflow.trainer.testing.TrainerApiServer;
import io.camelkubeflow.trainer.watch.StoredWorkloads;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.api.model.rbac.Role;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.fabric8.mockwebserver.http.RecordedRequest;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.camel.CamelContext;
import org.apache.camel.Exchange;
import org.apache.camel.ProducerTemplate;
import org.apache.camel.builder.RouteBuilder;
import org.apache.camel.impl.DefaultCamelContext;
import org.junit.jupiter.api.Test;

/**
 * The Role and ClusterRole in deploy/ against the API calls the component really makes: every call of every
 * operation (and of train's recovery paths) must be allowed, and every permission granted must be used.
 */
class RbacTest {
    static final String USER_AGENT = "camel-kubeflow-trainer-under-test";
    static final Path DEPLOY = Path.of("../../deploy");
    static final Pattern NAMESPACED =
            Pattern.compile("/(?:api/v1|apis/([^/]+)/[^/]+)/namespaces/([^/]+)/([^/?]+)(?:/([^/?]+))?(?:/([^/?]+))?");
    /** The app's own namespace, where deploy/'s RoleBinding grants its Role: here, where the component acts. */
    static final String APP_NAMESPACE = "rbac";

    static final Pattern CLUSTER = Pattern.compile("/apis/([^/]+)/[^/]+/([^/?]+)(?:/([^/?]+))?");

    /**
     * One API call as RBAC sees it: verb, API group, resource (with subresource), and its namespace (null: a
     * cluster-scoped resource, or all namespaces). As a permission: a Role's, bound in {@link #APP_NAMESPACE}, or a
     * ClusterRole's (namespace null).
     */
    record Call(String verb, String group, String resource, String namespace) {
        @Override
        public String toString() {
            return verb + " " + (group.isEmpty() ? "core" : group) + "/" + resource
                    + (namespace == null ? " (cluster)" : " in " + namespace);
        }

        /** Whether this permission allows that call. */
        boolean allows(Call call) {
            return verb.equals(call.verb)
                    && group.equals(call.group)
                    && resource.equals(call.resource)
                    && (namespace == null || namespace.equals(call.namespace));
        }
    }

    /**
     * Calls the routes app makes itself, not through the component: the TokenReview of each HTTP request's bearer
     * token (HttpAuthentication; HttpAuthenticationTest in the routes module makes it against the sandbox).
     */
    private static final List<Call> APP_CALLS =
            List.of(new Call("create", "authentication.k8s.io", "tokenreviews", null));

    @Test
    void theRolesAllowEveryCallAndGrantNothingUnused() throws Exception {
        List<Call> calls = new ArrayList<>(recordComponentCalls());
        calls.addAll(APP_CALLS);
        Set<Call> granted = new LinkedHashSet<>();
        for (PolicyRule rule : load(DEPLOY.resolve("role.yaml"), Role.class).getRules()) {
            expand(rule, APP_NAMESPACE, granted);
        }
        for (PolicyRule rule :
                load(DEPLOY.resolve("clusterrole.yaml"), ClusterRole.class).getRules()) {
            expand(rule, null, granted);
        }
        assertGrantedExactly(calls, granted, "RBAC", "deploy/");
    }

    /**
     * What a Pipe's ServiceAccount needs for the Kamelets (deploy/kamelets/): the action's train (a script, a file on
     * a namespaced runtime, a redelivered event that adopts its job) and wait (to the end, and a failure), and the
     * source's events with progress, each with the options the Kamelets' templates pass.
     */
    @Test
    void thePipeRolesForTheKameletsAllowWhatTheyCallAndNoMore() throws Exception {
        List<Call> calls;
        try (TrainerApiServer api = TrainerApiServer.start();
                KubernetesClient componentClient = new KubernetesClientBuilder()
                        .withConfig(new ConfigBuilder(api.client().getConfiguration())
                                .withUserAgent(USER_AGENT)
                                .build())
                        .build();
                CamelContext camel = new DefaultCamelContext()) {
            camel.getComponent("kubeflow-trainer", KubeflowTrainerComponent.class)
                    .setKubernetesClient(componentClient);
            // Kueue installed: its Workloads served
            StoredWorkloads.serveWorkloads(api.client());
            List<String> events = new CopyOnWriteArrayList<>();
            camel.addRoutes(new RouteBuilder() {
                @Override
                public void configure() {
                    from("kubeflow-trainer:events?namespace=rbac&emitExisting=false&progressInterval=100ms")
                            .process(e -> events.add(e.getMessage().getHeader(EVENT, String.class)));
                }
            });
            long mark = api.sandbox().requestCount();
            camel.start();
            ProducerTemplate template = camel.createProducerTemplate();
            String action = "kubeflow-trainer:train?runtime=torch-distributed&runtimeKind=ClusterTrainingRuntime"
                    + "&namespace=rbac&bodyType=script";
            Exchange trained = template.send(action, e -> {
                e.getMessage().setHeader(IDEMPOTENCY_KEY, "event-1");
                e.getMessage().setBody("print(1)");
            });
            assertNull(trained.getException());
            // the same event redelivered
            assertNull(template.send(action, e -> {
                        e.getMessage().setHeader(IDEMPOTENCY_KEY, "event-1");
                        e.getMessage().setBody("print(1)");
                    })
                    .getException());
            api.createRuntime(RuntimeYaml.of("team-runtime", "rbac", "torch", "{torch: {}}", "img"));
            assertNull(template.send(
                            "kubeflow-trainer:train?runtime=team-runtime&runtimeKind=TrainingRuntime"
                                    + "&namespace=rbac&bodyType=auto&pythonFile=/a.py",
                            e -> {})
                    .getException());
            // a runtime the watched cache does not hold (a misspelt runtime property) is looked up directly, so the
            // answer names it as missing rather than forbidden
            for (String kind : List.of("ClusterTrainingRuntime", "TrainingRuntime")) {
                template.send(
                        "kubeflow-trainer:train?runtime=no-such&runtimeKind=" + kind
                                + "&namespace=rbac&bodyType=auto&pythonFile=/a.py",
                        e -> {});
            }
            assertNull(template.send("kubeflow-trainer:wait?waitTimeout=30s", trained)
                    .getException());
            // an event that asks for a LocalQueue: the source watches the Workload Kueue makes for its job
            Exchange queued = template.send(action + "&queue=team-a", e -> {
                e.getMessage().setHeader(IDEMPOTENCY_KEY, "event-3");
                e.getMessage().setBody("print(3)");
            });
            new StoredWorkloads(api.client(), "rbac")
                    .createFor(queued.getMessage().getBody(TrainJob.class), "team-a");
            awaitWorkloadsWatched(api, mark);
            Exchange failed = template.send(action, e -> {
                e.getMessage().setHeader(IDEMPOTENCY_KEY, "event-2");
                e.getMessage().setHeader(ANNOTATIONS, Map.of(TrainJobControllerEmulation.OUTCOME_ANNOTATION, "Failed"));
                e.getMessage().setBody("print(2)");
            });
            template.send("kubeflow-trainer:wait?waitTimeout=30s", failed);
            long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
            while (System.nanoTime() < deadline && !events.contains("Failed")) {
                Thread.sleep(50);
            }
            calls = api.sandbox().requestsSince(mark).stream()
                    .filter(r -> USER_AGENT.equals(r.getHeader("User-Agent")))
                    .map(RbacTest::call)
                    .toList();
        }
        Set<Call> granted = new LinkedHashSet<>();
        try (KubernetesClient offline = new KubernetesClientBuilder().build();
                InputStream in = Files.newInputStream(DEPLOY.resolve("kamelets/rbac.yaml"))) {
            for (HasMetadata object : offline.load(in).items()) {
                if (object instanceof Role role) {
                    role.getRules().forEach(rule -> expand(rule, APP_NAMESPACE, granted));
                } else if (object instanceof ClusterRole role) {
                    role.getRules().forEach(rule -> expand(rule, null, granted));
                }
            }
        }
        assertGrantedExactly(calls, granted, "RBAC of Kamelet Pipes", "deploy/kamelets/");
    }

    private static void assertGrantedExactly(List<Call> calls, Set<Call> granted, String figure, String where) {
        Set<String> denied = new TreeSet<>();
        for (Call call : calls) {
            if (granted.stream().noneMatch(permission -> permission.allows(call))) {
                denied.add(call.toString());
            }
        }
        Set<String> unused = new TreeSet<>();
        for (Call permission : granted) {
            if (calls.stream().noneMatch(permission::allows)) {
                unused.add(permission.toString());
            }
        }
        ReliabilityFigures.record(
                figure,
                calls.size() + " recorded API calls (" + new HashSet<>(calls).size() + " kinds), " + denied.size()
                        + " denied by " + where + " roles, " + granted.size()
                        + " permissions granted, " + unused.size() + " unused",
                denied.isEmpty() && unused.isEmpty());
        assertEquals(Set.of(), denied, "calls the roles in " + where + " do not allow");
        assertEquals(Set.of(), unused, "permissions in " + where + " the component never uses");
    }

    private static List<Call> recordComponentCalls() throws Exception {
        try (TrainerApiServer api = TrainerApiServer.start();
                KubernetesClient componentClient = new KubernetesClientBuilder()
                        .withConfig(new ConfigBuilder(api.client().getConfiguration())
                                .withUserAgent(USER_AGENT)
                                .build())
                        .build();
                CamelContext camel = new DefaultCamelContext()) {
            camel.getComponent("kubeflow-trainer", KubeflowTrainerComponent.class)
                    .setKubernetesClient(componentClient);
            // Kueue installed: its Workloads served
            StoredWorkloads.serveWorkloads(api.client());
            // the cluster service deploy/ configures (trainer.ha.cluster-service=kubernetes): a Lease in the app's
            // namespace among the pods labelled as the app's, this replica being the pod "rbac-replica"
            camel.addService(LeaseReplicas.clusterService(
                    api,
                    componentClient,
                    APP_NAMESPACE,
                    "rbac-replica",
                    Map.of("app.kubernetes.io/name", "camel-kubeflow-trainer")));
            List<String> events = new CopyOnWriteArrayList<>();
            camel.addRoutes(new RouteBuilder() {
                @Override
                public void configure() {
                    // as the routes app runs its event routes: on the replica holding the Lease
                    from("master:rbac-events:kubeflow-trainer:events?namespace=rbac&handledMark=rbac-test"
                                    + "&progressInterval=100ms")
                            .process(e -> events.add("event"));
                }
            });
            // from before the start: the informers an events route opens at start are shared by the waits and log reads
            long mark = api.sandbox().requestCount();
            camel.start();
            ProducerTemplate template = camel.createProducerTemplate();
            String train = "kubeflow-trainer:train?runtime=torch-distributed&namespace=rbac&script=print(1)";

            // train with an inline script, then a retry that adopts it
            Exchange trained = template.send(train, e -> e.getMessage().setHeader(IDEMPOTENCY_KEY, "k1"));
            assertNull(trained.getException());
            assertNull(template.send(train, e -> e.getMessage().setHeader(IDEMPOTENCY_KEY, "k1"))
                    .getException());
            // a workspace: staged in a ConfigMap (created, then patched by the next job), looked at by a retry
            Path project = Files.createTempDirectory("rbac-workspace");
            Files.writeString(project.resolve("train.py"), "print(1)\n");
            String inWorkspace = "kubeflow-trainer:train?runtime=torch-distributed&namespace=rbac&pythonFile=train.py"
                    + "&workspace=" + project;
            assertNull(template.send(inWorkspace, e -> e.getMessage().setHeader(IDEMPOTENCY_KEY, "w1"))
                    .getException());
            assertNull(template.send(inWorkspace, e -> e.getMessage().setHeader(IDEMPOTENCY_KEY, "w1"))
                    .getException());
            assertNull(template.send(inWorkspace, e -> e.getMessage().setHeader(IDEMPOTENCY_KEY, "w2"))
                    .getException());
            // a namespaced runtime
            api.createRuntime(RuntimeYaml.of("team-runtime", "rbac", "torch", "{torch: {}}", "img"));
            assertNull(template.send(
                            "kubeflow-trainer:train?runtime=team-runtime&runtimeKind=TrainingRuntime"
                                    + "&namespace=rbac&pythonFile=/a.py",
                            e -> {})
                    .getException());
            // a refused create
            api.sandbox().refuseNextTrainJobCreates(1, 403);
            template.send(train, e -> e.getMessage().setHeader(IDEMPOTENCY_KEY, "k2"));
            // a runtime the watched cache does not hold is looked up directly (here: one that does not exist)
            template.send("kubeflow-trainer:train?runtime=no-such&namespace=rbac&pythonFile=/a.py", e -> {});
            template.send(
                    "kubeflow-trainer:train?runtime=no-such&runtimeKind=TrainingRuntime&namespace=rbac"
                            + "&pythonFile=/a.py",
                    e -> {});
            // wait, including a failure whose pods are looked at, and logs of every step
            template.send("kubeflow-trainer:wait", trained);
            Exchange failed = template.send(train, e -> {
                e.getMessage().setHeader(IDEMPOTENCY_KEY, "k4");
                e.getMessage().setHeader(ANNOTATIONS, Map.of(TrainJobControllerEmulation.OUTCOME_ANNOTATION, "Failed"));
            });
            template.send("kubeflow-trainer:wait?throwOnFailure=false", failed);
            assertNull(template.send("kubeflow-trainer:logs?follow=true&logStep=all", trained)
                    .getException());
            // logs of a job whose pods do not exist yet: waited for by watch
            assertNull(template.send(
                            "kubeflow-trainer:logs?follow=true",
                            template.send(train, e -> e.getMessage().setHeader(IDEMPOTENCY_KEY, "k5")))
                    .getException());

            // the management operations
            assertNull(template.send("kubeflow-trainer:get", trained).getException());
            // a job in a Kueue queue that does not run yet, with the Workload Kueue makes for it: get and list read
            // it, the events route watches it, suspend and resume deactivate and activate it
            Exchange queued = template.send(
                    train + "&queue=team-a&suspend=true", e -> e.getMessage().setHeader(IDEMPOTENCY_KEY, "q1"));
            new StoredWorkloads(api.client(), "rbac")
                    .createFor(queued.getMessage().getBody(TrainJob.class), "team-a");
            Exchange got = template.send("kubeflow-trainer:get", queued);
            assertEquals("Queued", got.getMessage().getHeader(STATUS), "what its Workload says");
            assertNull(template.send("kubeflow-trainer:list?namespace=rbac", e -> {})
                    .getException());
            assertNull(template.send("kubeflow-trainer:suspend", queued).getException());
            assertNull(template.send("kubeflow-trainer:resume", queued).getException());
            assertNull(template.send("kubeflow-trainer:list?namespace=rbac&labelSelector=team=a", e -> {})
                    .getException());
            assertNull(template.send("kubeflow-trainer:runtimes?namespace=rbac", e -> {})
                    .getException());
            assertNull(template.send("kubeflow-trainer:runtimes?namespace=rbac&runtime=torch-distributed", e -> {})
                    .getException());
            assertNull(template.send("kubeflow-trainer:events", trained).getException());
            assertNull(
                    template.send("kubeflow-trainer:runtimePackages?namespace=rbac&runtime=torch-distributed", e -> {})
                            .getException());
            Exchange paused = template.send(train, e -> e.getMessage().setHeader(IDEMPOTENCY_KEY, "k6"));
            assertNull(template.send("kubeflow-trainer:suspend", paused).getException());
            assertNull(template.send("kubeflow-trainer:resume", paused).getException());
            assertNull(template.send("kubeflow-trainer:delete", paused).getException());
            // acting within a caller's rights: the access reviews (this caller has none, so it is refused)
            assertInstanceOf(
                    AccessDeniedException.class,
                    template.send(
                                    train + "&authorizeCaller=true",
                                    e -> e.setProperty(CALLER_PROPERTY, new Caller("nobody", List.of())))
                            .getException());
            // the events route marks each end it handled
            String trainedName = trained.getMessage().getHeader(JOB_NAME, String.class);
            long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
            while (System.nanoTime() < deadline
                    && api.client()
                                    .resources(TrainJob.class)
                                    .inNamespace("rbac")
                                    .withName(trainedName)
                                    .get()
                                    .getMetadata()
                                    .getAnnotations()
                                    .get("camelkubeflow.io/handled-rbac-test")
                            == null) {
                Thread.sleep(50);
            }
            // and the leader renews its Lease (every retry period once it holds it)
            while (System.nanoTime() < deadline
                    && api.sandbox().requestsSince(mark).stream()
                            .noneMatch(r ->
                                    "PUT".equals(r.getMethod()) && r.getPath().contains("/leases/"))) {
                Thread.sleep(50);
            }
            awaitWorkloadsWatched(api, mark);
            return api.sandbox().requestsSince(mark).stream()
                    .filter(r -> USER_AGENT.equals(r.getHeader("User-Agent")))
                    .map(RbacTest::call)
                    .toList();
        }
    }

    /** Until the events route watches the Workloads: it starts to once it has seen a job in a queue. */
    private static void awaitWorkloadsWatched(TrainerApiServer api, long mark) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (System.nanoTime() < deadline
                && api.sandbox().requestsSince(mark).stream()
                        .noneMatch(r -> r.getPath().contains("/workloads?")
                                && r.getPath().contains("watch=true"))) {
            Thread.sleep(50);
        }
    }

    static Call call(RecordedRequest request) {
        String path = request.getPath();
        String query = path.contains("?") ? path.substring(path.indexOf('?')) : "";
        Matcher namespaced = NAMESPACED.matcher(path);
        String group;
        String resource;
        String name;
        String namespace = null;
        if (namespaced.lookingAt()) {
            group = namespaced.group(1) == null ? "" : namespaced.group(1);
            namespace = namespaced.group(2);
            resource = namespaced.group(3) + (namespaced.group(5) == null ? "" : "/" + namespaced.group(5));
            name = namespaced.group(4);
        } else {
            Matcher cluster = CLUSTER.matcher(path);
            if (!cluster.lookingAt()) {
                throw new AssertionError("not an API path: " + path);
            }
            group = cluster.group(1);
            resource = cluster.group(2);
            name = cluster.group(3);
        }
        String verb = switch (request.getMethod()) {
            case "GET" -> name != null ? "get" : query.contains("watch=true") ? "watch" : "list";
            case "POST" -> "create";
            case "PUT" -> "update";
            case "PATCH" -> "patch";
            case "DELETE" -> "delete";
            default -> throw new AssertionError("unexpected method " + request.getMethod());
        };
        return new Call(verb, group, resource, namespace);
    }

    private static void expand(PolicyRule rule, String namespace, Set<Call> into) {
        for (String group : rule.getApiGroups()) {
            for (String resource : rule.getResources()) {
                for (String verb : rule.getVerbs()) {
                    into.add(new Call(verb, group, resource, namespace));
                }
            }
        }
    }

    private static <T> T load(Path file, Class<T> type) throws IOException {
        try (InputStream in = Files.newInputStream(file)) {
            return Serialization.unmarshal(in, type);
        }
    }
}
