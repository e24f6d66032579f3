package io.camelkubeflow.trainer.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.camelkubeflow.trainer.sandbox.TrainerSandbox;
import io.camelkubeflow.trainer.testing.Eventually;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceList;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import io.fabric8.kubernetes.client.dsl.MixedOperation;
import io.fabric8.kubernetes.client.dsl.NonNamespaceOperation;
import io.fabric8.kubernetes.client.dsl.Resource;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Comparator;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;
import java.util.function.UnaryOperator;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The sandbox against the real control plane: the same requests to both — kubectl as a process, raw HTTP, fabric8
 * calls, a watch — and what comes back compared, after {@link Normalized} took out what no two servers share. Where
 * the sandbox still answers otherwise, the comparison names the {@link Departure} (e2e/DIFFERENCES.md says why it
 * stays); anything else that differs fails.
 */
class DifferentialIT {
    private static final String TRAINJOBS = "/apis/trainer.kubeflow.org/v1alpha1/namespaces/%s/trainjobs";
    /** A label, added by a merge patch: it names no resourceVersion, so no controller's status write races it. */
    private static final String LABELLED = "{\"metadata\": {\"labels\": {\"stage\": \"labelled\"}}}";

    private static final PatchContext MERGE_PATCH = PatchContext.of(PatchType.JSON_MERGE);
    /** Suspended: neither controller starts pods, so what comes back depends on the API server alone. */
    private static final String SUSPENDED_JOB = """
            {"apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "TrainJob",
             "metadata": {"name": "%s", "namespace": "%s", "labels": {"team": "differential"}},
             "spec": {"runtimeRef": {"name": "torch-distributed"}, "suspend": true,
                      "trainer": {"numNodes": 2, "command": ["python3", "-c", "print('differential')"]}}}
            """;

    @TempDir
    static Path work;

    private static TrainerSandbox sandbox;
    private static Side real;
    private static Side emulated;
    /** The same name on both sides, so that answers naming it compare equal. */
    private static final String NAMESPACE =
            "differential-" + UUID.randomUUID().toString().substring(0, 6);

    @BeforeAll
    static void start() throws InterruptedException {
        Path realKubeconfig = RealCluster.adminKubeconfig();
        real = new Side("real", realKubeconfig, RealCluster.client(realKubeconfig));
        sandbox = TrainerSandbox.start(
                TrainerSandbox.Options.defaults().withController(Duration.ofMillis(200), Duration.ofSeconds(60)));
        Path sandboxKubeconfig = sandbox.writeKubeconfig(work.resolve("sandbox.kubeconfig"));
        emulated = new Side("sandbox", sandboxKubeconfig, RealCluster.client(sandboxKubeconfig));
        for (Side side : sides()) {
            side.client()
                    .namespaces()
                    .resource(new NamespaceBuilder()
                            .withNewMetadata()
                            .withName(NAMESPACE)
                            .endMetadata()
                            .build())
                    .create();
        }
        // the ServiceAccount admission refuses pods until the controller manager made the default account; the
        // sandbox admits pods without one (Departure NO_SERVICE_ACCOUNT_CONTROLLER)
        Eventually.await(
                Duration.ofSeconds(30),
                () -> real.client()
                                .serviceAccounts()
                                .inNamespace(NAMESPACE)
                                .withName("default")
                                .get()
                        != null,
                () -> "real: no default service account");
    }

    @AfterAll
    static void stop() {
        if (real != null) {
            real.client().namespaces().withName(NAMESPACE).delete();
            real.client().close();
        }
        if (emulated != null) {
            emulated.client().close();
        }
        if (sandbox != null) {
            sandbox.close();
        }
    }

    private static List<Side> sides() {
        return List.of(real, emulated);
    }

    /** Runs the same kubectl command on both sides and compares exit code, stdout and stderr. */
    private static void sameKubectl(String stdin, String... args) {
        Side.Run onReal = real.kubectl(stdin, args);
        Side.Run onSandbox = emulated.kubectl(stdin, args);
        String command = "kubectl " + String.join(" ", args);
        assertEquals(onReal, onSandbox, command);
    }

    @Test
    @Timeout(120)
    void kubectlCreateApplyGetDelete() throws InterruptedException {
        String namespace =
                "differential-kubectl-" + UUID.randomUUID().toString().substring(0, 6);
        String applied = namespace + "-applied";
        sameKubectl(null, "create", "namespace", namespace);
        sameKubectl(null, "create", "configmap", "settings", "-n", namespace, "--from-literal=lr=0.5");
        sameKubectl(null, "get", "configmap", "settings", "-n", namespace, "-o", "jsonpath={.data}");
        String namespaceYaml = "apiVersion: v1\nkind: Namespace\nmetadata: {name: " + applied + "}\n";
        sameKubectl(namespaceYaml, "apply", "-f", "-");
        sameKubectl(namespaceYaml, "apply", "-f", "-");
        sameKubectl(namespaceYaml.replace("}", ", labels: {team: differential}}"), "apply", "-f", "-");
        sameKubectl(null, "get", "namespace", applied, "-o", "jsonpath={.metadata.labels}");
        sameKubectl(SUSPENDED_JOB.formatted("applied", applied), "apply", "-f", "-");
        for (Side side : sides()) {
            awaitSuspended(side, applied, "applied");
        }
        Side.Run realList = real.kubectl(null, "get", "trainjobs", "-n", applied, "-o", "json");
        Side.Run sandboxList = emulated.kubectl(null, "get", "trainjobs", "-n", applied, "-o", "json");
        assertEquals(0, realList.exitCode(), realList.stderr());
        assertEquals(0, sandboxList.exitCode(), sandboxList.stderr());
        assertSameJson("kubectl get trainjobs -o json", realList.stdout(), sandboxList.stdout());
        sameKubectl(null, "delete", "trainjob", "applied", "-n", applied);
        sameKubectl(null, "delete", "configmap", "settings", "-n", namespace);
        sameKubectl(null, "get", "trainjob", "applied", "-n", applied);
        sameKubectl(null, "delete", "namespace", namespace, "--wait=false");
        sameKubectl(null, "delete", "namespace", applied, "--wait=false");
    }

    /**
     * Waits until the side's controllers are done with a suspended job: its Suspended condition written and its Jobs
     * counted as suspended (the Trainer reports what JobSet reports, which may first count none).
     */
    private static void awaitSuspended(Side side, String namespace, String name) throws InterruptedException {
        Eventually.await(
                Duration.ofSeconds(30),
                () -> {
                    GenericKubernetesResource job = trainJobs(side)
                            .inNamespace(namespace)
                            .withName(name)
                            .get();
                    JsonNode status = job == null ? null : tree(job).path("status");
                    return status != null
                            && status.path("conditions")
                                    .findValuesAsText("type")
                                    .contains("Suspended")
                            && status.path("jobsStatus").findValues("suspended").stream()
                                    .anyMatch(n -> n.asInt() > 0);
                },
                () -> side.name() + ": " + name + " never suspended");
    }

    private static MixedOperation<
                    GenericKubernetesResource, GenericKubernetesResourceList, Resource<GenericKubernetesResource>>
            trainJobs(Side side) {
        return side.client().genericKubernetesResources("trainer.kubeflow.org/v1alpha1", "TrainJob");
    }

    /** Sends the same request to both sides and compares the status codes and the normalized bodies. */
    private static void sameHttp(String method, String path, String json, Departure.Allowance... allowed) {
        Side.Answer onReal = real.json(method, path, json);
        Side.Answer onSandbox = emulated.json(method, path, json);
        assertSameAnswer(method + " " + path, onReal, onSandbox, allowed);
    }

    private static void assertSameAnswer(
            String what, Side.Answer onReal, Side.Answer onSandbox, Departure.Allowance... allowed) {
        assertEquals(
                onReal.code(),
                onSandbox.code(),
                what + ": status code; real " + onReal.body() + "\nsandbox " + onSandbox.body());
        assertSameJson(what + ": body", onReal.body(), onSandbox.body(), allowed);
    }

    @Test
    @Timeout(120)
    void rawHttpWritesReadsAndRefusals() throws InterruptedException {
        String configMaps = "/api/v1/namespaces/" + NAMESPACE + "/configmaps";
        String configMap = """
                {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "raw"}, "data": {"a": "1"}}""";
        sameHttp("POST", configMaps, configMap);
        sameHttp("POST", configMaps, configMap);
        sameHttp("GET", configMaps + "/raw", null);
        sameHttp("GET", configMaps + "/missing", null);
        sameHttp("POST", configMaps, """
                {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"generateName": "raw-"}, "data": {}}""", Departure.EMPTY_FIELDS_KEPT.onSandbox(answer -> {
            if (answer.path("data").isEmpty()) {
                ((ObjectNode) answer).remove("data");
            }
            return answer;
        }));
        sameHttp("PUT", configMaps + "/raw", """
                {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "raw", "resourceVersion": "1"},
                 "data": {"a": "2"}}""");
        sameHttp(
                "POST",
                configMaps,
                "{not json",
                Departure.JSON_PARSER_WORDS.onReal(DifferentialIT::withoutParseError),
                Departure.JSON_PARSER_WORDS.onSandbox(DifferentialIT::withoutParseError));
        String namespace = NAMESPACE + "-raw";
        sameHttp("POST", "/api/v1/namespaces", """
                {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "%s"}}""".formatted(namespace));
        sameHttp("GET", "/api/v1/namespaces/" + namespace, null);
        for (Side side : sides()) {
            side.client().namespaces().withName(namespace).delete();
        }
        String trainJobs = TRAINJOBS.formatted(NAMESPACE);
        sameHttp("POST", trainJobs, SUSPENDED_JOB.formatted("raw", NAMESPACE));
        sameHttp("GET", trainJobs + "/missing", null);
        sameHttp(
                "POST",
                trainJobs,
                """
                {"apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "TrainJob", "metadata": {"name": "noruntime"},
                 "spec": {"trainer": {"numNodes": 1}}}""",
                Departure.SCHEMA_VIOLATION_WORDS.onReal(DifferentialIT::withoutViolationWords),
                Departure.SCHEMA_VIOLATION_WORDS.onSandbox(DifferentialIT::withoutViolationWords));
        // the DELETE answers the object as it was: both controllers' status written first, alike
        awaitSettled(trainJobs + "/raw");
        sameHttp("DELETE", trainJobs + "/raw", null);
        sameHttp("DELETE", configMaps + "/raw", null);
        sameHttp("DELETE", configMaps + "/raw", null);
    }

    /**
     * Waits until a suspended TrainJob's status is written by each side's controller (a Suspended condition and
     * jobsStatus) and the two read the same: each controller writes it in its own time and steps.
     */
    private static void awaitSettled(String job) throws InterruptedException {
        Eventually.await(
                Duration.ofSeconds(30),
                () -> {
                    String onReal = real.json("GET", job, null).body();
                    String onSandbox = emulated.json("GET", job, null).body();
                    return onReal.contains("\"Suspended\"")
                            && onSandbox.contains("\"Suspended\"")
                            && onReal.contains("jobsStatus")
                            && onSandbox.contains("jobsStatus")
                            && Normalized.text(Normalized.tree(onReal))
                                    .equals(Normalized.text(Normalized.tree(onSandbox)));
                },
                () -> "the two TrainJobs did not settle alike: real "
                        + real.json("GET", job, null).body() + "\nsandbox "
                        + emulated.json("GET", job, null).body());
    }

    private static void samePatch(String path, String type, String patch, Departure.Allowance... allowed) {
        byte[] body = patch.getBytes(StandardCharsets.UTF_8);
        assertSameAnswer(
                "PATCH (" + type + ") " + path + " " + patch,
                real.http("PATCH", path, type, body),
                emulated.http("PATCH", path, type, body),
                allowed);
    }

    /** RFC 7386 on a built-in kind: a list in a merge patch replaces the stored list, a null removes its key. */
    @Test
    @Timeout(60)
    void aMergePatchReplacesListsAndRemovesKeysWithNull() {
        String configMaps = "/api/v1/namespaces/" + NAMESPACE + "/configmaps";
        sameHttp("POST", configMaps, """
                {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "merged",
                 "finalizers": ["example.com/first"], "labels": {"a": "1", "b": "2"}}}""");
        samePatch(
                configMaps + "/merged",
                "application/merge-patch+json",
                "{\"metadata\": {\"finalizers\": [\"example.com/second\"], \"labels\": {\"a\": null}}}");
        samePatch(configMaps + "/merged", "application/merge-patch+json", "{\"metadata\": {\"finalizers\": null}}");
        sameHttp("DELETE", configMaps + "/merged", null);
    }

    /** A PATCH is admitted as the update it makes: a label goes in, an immutable field stays, no strategic merge. */
    @Test
    @Timeout(60)
    void patchesOfATrainJobAreAdmittedAsTheUpdatesTheyMake() throws InterruptedException {
        String job = TRAINJOBS.formatted(NAMESPACE) + "/patched";
        sameHttp("POST", TRAINJOBS.formatted(NAMESPACE), SUSPENDED_JOB.formatted("patched", NAMESPACE));
        // each controller writes the suspended job's status in its own time and steps: the patches start once both
        // have written it (a Suspended condition and jobsStatus on each) and the two TrainJobs read the same; before,
        // both could read alike with no status yet, and the sandbox's write land between the check and a patch
        awaitSettled(job);
        samePatch(job, "application/merge-patch+json", "{\"metadata\": {\"labels\": {\"team\": \"vision\"}}}");
        samePatch(
                job,
                "application/json-patch+json",
                "[{\"op\": \"add\", \"path\": \"/metadata/annotations\", \"value\": {\"note\": \"x\"}}]");
        samePatch(
                job,
                "application/merge-patch+json",
                "{\"spec\": {\"runtimeRef\": {\"name\": \"deepspeed-distributed\"}}}",
                Departure.SCHEMA_VIOLATION_WORDS.onReal(DifferentialIT::withoutViolationWords),
                Departure.SCHEMA_VIOLATION_WORDS.onSandbox(DifferentialIT::withoutViolationWords));
        samePatch(job, "application/strategic-merge-patch+json", "{\"metadata\": {\"labels\": {\"a\": \"b\"}}}");
        sameHttp("GET", job, null);
        sameHttp("DELETE", job, null);
    }

    @Test
    @Timeout(60)
    void aProtobufWriteAsKubectlSendsIt() {
        String configMaps = "/api/v1/namespaces/" + NAMESPACE + "/configmaps";
        byte[] body = KubernetesProtobuf.configMap("protobuf", Map.of("key", "value"));
        Side.Answer onReal = real.http("POST", configMaps, "application/vnd.kubernetes.protobuf", body);
        Side.Answer onSandbox = emulated.http("POST", configMaps, "application/vnd.kubernetes.protobuf", body);
        assertSameAnswer("POST protobuf ConfigMap", onReal, onSandbox);
        sameHttp("GET", configMaps + "/protobuf", null);
    }

    @Test
    @Timeout(120)
    void fabric8CreateDuplicateMissingAndConflict() throws InterruptedException {
        Function<Side, Object> create = side -> trainJobs(side)
                .inNamespace(NAMESPACE)
                .resource(Serialization.unmarshal(
                        SUSPENDED_JOB.formatted("fabric8", NAMESPACE), GenericKubernetesResource.class))
                .create();
        assertEquals(normalized(create.apply(real)), normalized(create.apply(emulated)), "create");
        assertEquals(refusal(real, create), refusal(emulated, create), "duplicate create");
        assertEquals(
                String.valueOf(trainJobs(real)
                        .inNamespace(NAMESPACE)
                        .withName("missing")
                        .get()),
                String.valueOf(trainJobs(emulated)
                        .inNamespace(NAMESPACE)
                        .withName("missing")
                        .get()),
                "get missing");
        for (Side side : sides()) {
            awaitSuspended(side, NAMESPACE, "fabric8");
        }
        Function<Side, Object> staleUpdate = side -> {
            GenericKubernetesResource stale =
                    trainJobs(side).inNamespace(NAMESPACE).withName("fabric8").get();
            trainJobs(side).inNamespace(NAMESPACE).withName("fabric8").patch(MERGE_PATCH, LABELLED);
            stale.getMetadata().getLabels().put("stage", "stale");
            return trainJobs(side).inNamespace(NAMESPACE).resource(stale).update();
        };
        assertEquals(refusal(real, staleUpdate), refusal(emulated, staleUpdate), "update of a stale resourceVersion");
        for (Side side : sides()) {
            trainJobs(side).inNamespace(NAMESPACE).withName("fabric8").delete();
        }
    }

    /** What a refused fabric8 call throws: its code and the server's Status, normalized. */
    private static String refusal(Side side, Function<Side, Object> call) {
        try {
            call.apply(side);
        } catch (KubernetesClientException e) {
            return e.getCode() + " " + normalized(e.getStatus());
        }
        throw new AssertionError(side.name() + ": the call was not refused");
    }

    private static String normalized(Object object) {
        return Normalized.json(Serialization.asJson(object));
    }

    @Test
    @Timeout(120)
    void aWatchOfTrainJobsSeesCreateUpdateDelete() throws Exception {
        assertSameJson("the watched events", settled(watchedSequence(real)), settled(watchedSequence(emulated)));
    }

    /**
     * Watch events with each run of status-only writes (MODIFIED events that change nothing but the status, one after
     * another) kept as its last event: how many writes the controllers take to get there is their timing (the Trainer
     * reports JobSet's counts as they come), where they get to is what a client sees.
     */
    private static String settled(String events) {
        ArrayNode kept = Serialization.jsonMapper().createArrayNode();
        JsonNode previous = null;
        for (JsonNode event : Normalized.tree(events)) {
            if (previous != null
                    && "MODIFIED".equals(event.path("type").asText())
                    && "MODIFIED".equals(previous.path("type").asText())
                    && withoutStatus(event).equals(withoutStatus(previous))) {
                kept.remove(kept.size() - 1);
            }
            kept.add(event);
            previous = event;
        }
        return Normalized.text(kept);
    }

    private static JsonNode withoutStatus(JsonNode event) {
        ObjectNode object = event.get("object").deepCopy();
        object.remove("status");
        return object;
    }

    /**
     * Watches TrainJobs in a namespace of their own while one is created, labelled and deleted, and returns the events
     * as a JSON array of their types and objects.
     */
    private static String watchedSequence(Side side) throws Exception {
        String namespace = NAMESPACE + "-watch";
        side.client()
                .namespaces()
                .resource(new NamespaceBuilder()
                        .withNewMetadata()
                        .withName(namespace)
                        .endMetadata()
                        .build())
                .create();
        List<Map<String, Object>> events = new CopyOnWriteArrayList<>();
        NonNamespaceOperation<GenericKubernetesResource, ?, Resource<GenericKubernetesResource>> jobs =
                trainJobs(side).inNamespace(namespace);
        try (Watch watch = jobs.watch(new Watcher<>() {
            @Override
            public void eventReceived(Action action, GenericKubernetesResource resource) {
                events.add(Map.of("type", action.name(), "object", resource));
            }

            @Override
            public void onClose(WatcherException cause) {
                // the test closes the watch once it saw the delete
            }
        })) {
            jobs.resource(Serialization.unmarshal(
                            SUSPENDED_JOB.formatted("watched", namespace), GenericKubernetesResource.class))
                    .create();
            awaitSuspended(side, namespace, "watched");
            jobs.withName("watched").patch(MERGE_PATCH, LABELLED);
            jobs.withName("watched").delete();
            Eventually.await(
                    Duration.ofSeconds(30),
                    () -> events.stream().anyMatch(event -> "DELETED".equals(event.get("type"))),
                    () -> side.name() + ": no DELETED event in " + events);
        } finally {
            side.client().namespaces().withName(namespace).delete();
        }
        return Serialization.asJson(events);
    }

    @Test
    @Timeout(180)
    void theSameTrainJobRendersTheSamePods() throws InterruptedException {
        String job = """
                {"apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "TrainJob",
                 "metadata": {"name": "rendered", "namespace": "%s"},
                 "spec": {"runtimeRef": {"name": "torch-distributed"},
                          "trainer": {"numNodes": 2, "command": ["python3", "-c", "import time; time.sleep(30)"],
                                      "env": [{"name": "LR", "value": "0.5"}]}}}""".formatted(NAMESPACE);
        createOnBothSides(job);
        assertEquals(renderedPodTemplates(real), renderedPodTemplates(emulated), "the JobSet's pod templates");
        assertSameJson(
                "the pods",
                renderedPods(real),
                renderedPods(emulated),
                Departure.SERVICE_ACCOUNT_TOKEN_VOLUME.onReal(DifferentialIT::withoutServiceAccountToken));
        for (Side side : sides()) {
            trainJobs(side).inNamespace(NAMESPACE).withName("rendered").delete();
        }
    }

    /** Creates the TrainJob of {@code json} on the real side, then in the sandbox. */
    private static void createOnBothSides(String json) {
        for (Side side : sides()) {
            create(side, json);
        }
    }

    private static void create(Side side, String json) {
        trainJobs(side)
                .inNamespace(NAMESPACE)
                .resource(Serialization.unmarshal(json, GenericKubernetesResource.class))
                .create();
    }

    /** The pod specs of the JobSet the controller made for "rendered", by replicated job. */
    private static String renderedPodTemplates(Side side) throws InterruptedException {
        var jobSets = side.client()
                .genericKubernetesResources("jobset.x-k8s.io/v1alpha2", "JobSet")
                .inNamespace(NAMESPACE)
                .withName("rendered");
        Eventually.await(Duration.ofSeconds(60), () -> jobSets.get() != null, () -> side.name() + ": no JobSet");
        JsonNode jobSet = tree(jobSets.get());
        List<String> templates = new ArrayList<>();
        for (JsonNode replicatedJob : jobSet.path("spec").path("replicatedJobs")) {
            templates.add(replicatedJob.path("name").asText() + " "
                    + Normalized.text(podSpecEssentials(replicatedJob
                            .path("template")
                            .path("spec")
                            .path("template")
                            .path("spec"))));
        }
        return String.join("\n", templates);
    }

    /**
     * The pods by completion index ({"0": pod, "1": pod}), once both nodes' pods exist: their labels and annotations
     * (the component finds pods and steps by them) and what their specs run.
     */
    private static String renderedPods(Side side) throws InterruptedException {
        var pods = side.client().pods().inNamespace(NAMESPACE).withLabel("jobset.sigs.k8s.io/jobset-name", "rendered");
        Eventually.await(
                Duration.ofSeconds(60), () -> pods.list().getItems().size() == 2, () -> side.name() + ": not 2 pods");
        ObjectNode byIndex = Serialization.jsonMapper().createObjectNode();
        for (var pod : pods.list().getItems()) {
            ObjectNode kept = Serialization.jsonMapper().createObjectNode();
            kept.set("labels", tree(pod).path("metadata").path("labels"));
            kept.set("annotations", tree(pod).path("metadata").path("annotations"));
            kept.set("spec", podSpecEssentials(tree(pod).path("spec")));
            byIndex.set(pod.getMetadata().getLabels().get("batch.kubernetes.io/job-completion-index"), kept);
        }
        return Normalized.text(byIndex);
    }

    /** The pods without the ServiceAccount admission's token volume and its mounts. */
    private static JsonNode withoutServiceAccountToken(JsonNode pods) {
        for (JsonNode pod : pods) {
            JsonNode spec = pod.path("spec");
            if (spec.get("volumes") instanceof ArrayNode volumes) {
                volumes.removeIf(volume -> volume.path("name").asText().startsWith("kube-api-access-"));
                if (volumes.isEmpty()) {
                    ((ObjectNode) spec).remove("volumes");
                }
            }
            for (JsonNode container : spec.path("containers")) {
                if (container.get("volumeMounts") instanceof ArrayNode mounts) {
                    mounts.removeIf(mount -> mount.path("name").asText().startsWith("kube-api-access-"));
                    if (mounts.isEmpty()) {
                        ((ObjectNode) container).remove("volumeMounts");
                    }
                }
            }
        }
        return pods;
    }

    /** What a pod spec says its containers run with: command, args, env, mounts, and the volumes. */
    private static JsonNode podSpecEssentials(JsonNode spec) {
        ObjectNode essentials = Serialization.jsonMapper().createObjectNode();
        for (String list : List.of("initContainers", "containers")) {
            var containers = essentials.putArray(list);
            for (JsonNode container : spec.path(list)) {
                ObjectNode kept = containers.addObject();
                for (String field : List.of("name", "image", "command", "args", "env", "volumeMounts", "ports")) {
                    if (container.has(field)) {
                        kept.set(field, container.get(field));
                    }
                }
            }
        }
        if (spec.has("volumes")) {
            essentials.set("volumes", spec.get("volumes"));
        }
        return essentials;
    }

    private static JsonNode tree(Object object) {
        return Normalized.tree(Serialization.asJson(object));
    }

    /**
     * Compares two JSON answers, normalized, once each allowance took out of its side's answer what its departure is
     * about.
     */
    private static void assertSameJson(String what, String onReal, String onSandbox, Departure.Allowance... allowed) {
        JsonNode real = Normalized.tree(onReal);
        JsonNode emulated = Normalized.tree(onSandbox);
        for (Departure.Allowance allowance : allowed) {
            if (allowance.onReal()) {
                real = allowance.without().apply(real);
            } else {
                emulated = allowance.without().apply(emulated);
            }
        }
        assertEquals(Normalized.text(real), Normalized.text(emulated), what);
    }

    /**
     * A schema refusal with its words taken out and what stays compared: the code and reason, the details' name, group
     * and kind, and each cause's field and reason (sorted); the message and the causes' messages are each side's own.
     */
    private static JsonNode withoutViolationWords(JsonNode answer) {
        ((ObjectNode) answer).put("message", "<words>");
        if (answer.path("details").get("causes") instanceof ArrayNode causes) {
            List<JsonNode> kept = new ArrayList<>();
            for (JsonNode cause : causes) {
                ObjectNode fieldAndReason = Serialization.jsonMapper().createObjectNode();
                fieldAndReason.set("field", cause.path("field"));
                fieldAndReason.set("reason", cause.path("reason"));
                kept.add(fieldAndReason);
            }
            kept.sort(Comparator.comparing(JsonNode::toString));
            causes.removeAll();
            causes.addAll(kept);
        }
        return answer;
    }

    /** A refusal of a body that is not JSON, without the parser's description of what is wrong with it. */
    private static JsonNode withoutParseError(JsonNode answer) {
        return ((ObjectNode) answer)
                .put(
                        "message",
                        answer.path("message")
                                .asText()
                                .replaceAll("json parse error: .* \\(", "json parse error: <the parser's words> ("));
    }

    @Test
    @Timeout(180)
    void theLogOfAPodWaitingForItsVolume() throws InterruptedException {
        // the pods mount a ConfigMap nobody made: scheduled, they wait for it, and no container starts
        String job = """
                {"apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "TrainJob",
                 "metadata": {"name": "waiting", "namespace": "%s"},
                 "spec": {"runtimeRef": {"name": "torch-distributed"},
                          "trainer": {"numNodes": 1, "command": ["python3", "-c", "print('never')"]},
                          "runtimePatches": [{"manager": "example.com/differential", "trainingRuntimeSpec":
                            {"template": {"spec": {"replicatedJobs": [{"name": "node", "template": {"spec":
                              {"template": {"spec": {
                                "volumes": [{"name": "missing", "configMap": {"name": "never-made"}}],
                                "containers": [{"name": "node",
                                                "volumeMounts": [{"name": "missing", "mountPath": "/missing"}]}]
                              }}}}}]}}}}]}}""".formatted(NAMESPACE);
        List<Side.Answer> answers = new ArrayList<>();
        for (Side side : sides()) {
            create(side, job);
            var pods =
                    side.client().pods().inNamespace(NAMESPACE).withLabel("jobset.sigs.k8s.io/jobset-name", "waiting");
            Eventually.await(
                    Duration.ofSeconds(60),
                    () -> pods.list().getItems().stream()
                            .anyMatch(pod -> pod.getSpec().getNodeName() != null),
                    () -> side.name() + ": no scheduled pod");
            var pod = pods.list().getItems().get(0);
            assertEquals("Pending", pod.getStatus().getPhase(), side.name());
            Side.Answer log = side.json(
                    "GET",
                    "/api/v1/namespaces/" + NAMESPACE + "/pods/"
                            + pod.getMetadata().getName() + "/log?container=node",
                    null);
            // the pod's name ends in a suffix of its own on each side
            answers.add(new Side.Answer(
                    log.code(),
                    log.contentType(),
                    log.body().replace(pod.getMetadata().getName(), "<pod>"),
                    log.warning()));
            trainJobs(side).inNamespace(NAMESPACE).withName("waiting").delete();
        }
        // as a kubelet refuses it (validateContainerLogStatus), the node agent and the sandbox alike
        assertSameAnswer("the log of a pod waiting for its volume", answers.get(0), answers.get(1));
    }

    /** The departures allowed here are the ones e2e/DIFFERENCES.md explains, no more, no fewer. */
    @Test
    void everyAllowedDepartureIsExplainedInDifferencesMd() throws IOException {
        Set<String> explained = new TreeSet<>();
        Matcher entry = Pattern.compile("(?m)^- `([A-Z0-9_]+)`:").matcher(Files.readString(Path.of("DIFFERENCES.md")));
        while (entry.find()) {
            explained.add(entry.group(1));
        }
        Set<String> allowed = new TreeSet<>();
        for (Departure departure : Departure.values()) {
            allowed.add(departure.name());
        }
        assertEquals(allowed, explained);
    }

    @Test
    @Timeout(60)
    void theLogOfAMissingPod() {
        sameHttp("GET", "/api/v1/namespaces/" + NAMESPACE + "/pods/missing/log", null);
    }

    /** kube-apiserver drops an owner reference listed twice, and says so in a warning; a patch's too. */
    @Test
    @Timeout(60)
    void anOwnerListedTwiceIsStoredOnceWithTheSameWarning() {
        String configMaps = "/api/v1/namespaces/" + NAMESPACE + "/configmaps";
        List<Side.Answer> created = new ArrayList<>();
        List<Side.Answer> patched = new ArrayList<>();
        for (Side side : sides()) {
            String uid = side.client()
                    .configMaps()
                    .inNamespace(NAMESPACE)
                    .resource(new ConfigMapBuilder()
                            .withNewMetadata()
                            .withName("owner")
                            .endMetadata()
                            .build())
                    .create()
                    .getMetadata()
                    .getUid();
            String owner = """
                    {"apiVersion": "v1", "kind": "ConfigMap", "name": "owner", "uid": "%s"}""".formatted(uid);
            created.add(withUidsHidden(side.json(
                    "POST", configMaps, """
                    {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "owned",
                     "ownerReferences": [%s, %s, %s]}}""".formatted(owner, owner, owner.replace("\"owner\"", "\"renamed\"")))));
            side.json("POST", configMaps, """
                    {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "owned-once",
                     "ownerReferences": [%s]}}""".formatted(owner));
            patched.add(withUidsHidden(side.http(
                    "PATCH",
                    configMaps + "/owned-once",
                    "application/json-patch+json",
                    ("[{\"op\": \"add\", \"path\": \"/metadata/ownerReferences/-\", \"value\": " + owner + "}]")
                            .getBytes(StandardCharsets.UTF_8))));
        }
        assertSameAnswer("a create listing an owner twice", created.get(0), created.get(1));
        assertEquals(created.get(0).warning(), created.get(1).warning(), "the create's warning");
        assertSameAnswer("a patch adding a present owner", patched.get(0), patched.get(1));
        assertEquals(patched.get(0).warning(), patched.get(1).warning(), "the patch's warning");
    }

    /** The answer with every uid (each side makes its own) in its warning shown as {@code <uid>}. */
    private static Side.Answer withUidsHidden(Side.Answer answer) {
        return new Side.Answer(
                answer.code(),
                answer.contentType(),
                answer.body(),
                answer.warning() == null
                        ? null
                        : answer.warning()
                                .replaceAll("[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", "<uid>"));
    }

    /**
     * /openapi/v2 is negotiated alike (JSON to JSON or anything, 406 with no body to YAML) and, in JSON, describes the
     * TrainJob alike: its group-version-kind and its spec's fields; the rest of the document is the sandbox's outline
     * (Departure OPENAPI_V2_OUTLINE).
     */
    @Test
    @Timeout(60)
    void theOpenApiV2DocumentIsNegotiatedAlikeAndDescribesTheTrainJobAlike() {
        for (String accept : List.of("application/json", "*/*", "application/yaml")) {
            Side.Answer onReal = real.http("GET", "/openapi/v2", accept, null, null);
            Side.Answer onSandbox = emulated.http("GET", "/openapi/v2", accept, null, null);
            assertEquals(
                    List.of(onReal.code(), String.valueOf(onReal.contentType())),
                    List.of(onSandbox.code(), String.valueOf(onSandbox.contentType())),
                    "Accept: " + accept);
            if (onReal.code() != 200) {
                assertEquals(onReal.body(), onSandbox.body(), "Accept: " + accept);
                continue;
            }
            assertSameJson(
                    "Accept: " + accept,
                    onReal.body(),
                    onSandbox.body(),
                    Departure.OPENAPI_V2_OUTLINE.onReal(DifferentialIT::trainJobOutline),
                    Departure.OPENAPI_V2_OUTLINE.onSandbox(DifferentialIT::trainJobOutline));
        }
    }

    /** Of an OpenAPI v2 document: its version, and the TrainJob's group-version-kind and spec's field names. */
    private static JsonNode trainJobOutline(JsonNode document) {
        ObjectNode outline = Serialization.jsonMapper().createObjectNode();
        outline.set("swagger", document.path("swagger"));
        JsonNode trainJob = document.path("definitions").path("org.kubeflow.trainer.v1alpha1.TrainJob");
        outline.set("gvk", trainJob.path("x-kubernetes-group-version-kind"));
        ArrayNode fields = outline.putArray("specFields");
        new TreeSet<>(toList(trainJob.path("properties")
                        .path("spec")
                        .path("properties")
                        .fieldNames()))
                .forEach(fields::add);
        return outline;
    }

    private static List<String> toList(Iterator<String> names) {
        List<String> list = new ArrayList<>();
        names.forEachRemaining(list::add);
        return list;
    }

    /**
     * What the Trainer writes beside the JobSet of an MPI job, compared object by object: the hostfile, the SSH key
     * Secret (its keys compared by their form: each side generates its own), the runtime snapshot (its YAML compared
     * as the runtime it holds, without the empty objects Go's typed marshalling writes).
     */
    @Test
    @Timeout(120)
    void theTrainerWritesTheSameObjectsBesideAnMpiJobSet() throws InterruptedException {
        String job = """
                {"apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "TrainJob",
                 "metadata": {"name": "mpi-objects", "namespace": "%s"},
                 "spec": {"runtimeRef": {"name": "deepspeed-distributed"}, "suspend": true,
                          "trainer": {"numNodes": 3, "numProcPerNode": 2}}}""".formatted(NAMESPACE);
        String configMaps = "/api/v1/namespaces/" + NAMESPACE + "/configmaps/";
        String secrets = "/api/v1/namespaces/" + NAMESPACE + "/secrets/";
        for (Side side : sides()) {
            create(side, job);
            for (String path : List.of(
                    configMaps + "mpi-objects-mpi-hostfile",
                    secrets + "mpi-objects-mpi-ssh-auth",
                    configMaps + "mpi-objects-runtime-snapshot")) {
                Eventually.await(
                        Duration.ofSeconds(60),
                        () -> side.json("GET", path, null).code() == 200,
                        () -> side.name() + ": no " + path);
            }
        }
        sameHttp("GET", configMaps + "mpi-objects-mpi-hostfile", null);
        assertSameJson(
                "the SSH key Secret",
                real.json("GET", secrets + "mpi-objects-mpi-ssh-auth", null).body(),
                emulated.json("GET", secrets + "mpi-objects-mpi-ssh-auth", null).body(),
                keysByTheirForm(true),
                keysByTheirForm(false));
        assertSameJson(
                "the runtime snapshot",
                real.json("GET", configMaps + "mpi-objects-runtime-snapshot", null)
                        .body(),
                emulated.json("GET", configMaps + "mpi-objects-runtime-snapshot", null)
                        .body(),
                snapshotAsItsRuntime(true),
                snapshotAsItsRuntime(false));
        for (Side side : sides()) {
            trainJobs(side).inNamespace(NAMESPACE).withName("mpi-objects").delete();
        }
    }

    /** Not a departure: each side's own key pair, compared by what each key is (its PEM type, its SSH key type). */
    private static Departure.Allowance keysByTheirForm(boolean onReal) {
        UnaryOperator<JsonNode> form = secret -> {
            ObjectNode data = (ObjectNode) secret.path("data");
            data.fieldNames().forEachRemaining(key -> {
                String value =
                        new String(Base64.getDecoder().decode(data.path(key).asText()), StandardCharsets.US_ASCII);
                data.put(
                        key,
                        value.startsWith("-----BEGIN ")
                                ? value.substring(0, value.indexOf('\n'))
                                : value.split(" ")[0]);
            });
            return secret;
        };
        return onReal ? Departure.KEY_MATERIAL.onReal(form) : Departure.KEY_MATERIAL.onSandbox(form);
    }

    /** The snapshot with its YAML read as the runtime it holds: its kind, name, labels and spec. */
    private static Departure.Allowance snapshotAsItsRuntime(boolean onReal) {
        UnaryOperator<JsonNode> runtime = snapshot -> {
            JsonNode held = Serialization.unmarshal(
                    snapshot.path("data").path("runtime").asText(), JsonNode.class);
            ObjectNode kept = Serialization.jsonMapper().createObjectNode();
            kept.set("apiVersion", held.path("apiVersion"));
            kept.set("kind", held.path("kind"));
            kept.set("name", held.path("metadata").path("name"));
            kept.set("labels", held.path("metadata").path("labels"));
            kept.set("spec", withoutEmptyObjects(held.path("spec")));
            ((ObjectNode) snapshot.path("data")).set("runtime", kept);
            return snapshot;
        };
        return onReal ? Departure.GO_TYPED_YAML.onReal(runtime) : Departure.GO_TYPED_YAML.onSandbox(runtime);
    }

    private static JsonNode withoutEmptyObjects(JsonNode node) {
        if (node instanceof ObjectNode object) {
            List<String> empty = new ArrayList<>();
            object.fields().forEachRemaining(field -> {
                withoutEmptyObjects(field.getValue());
                if (field.getValue().isObject() && field.getValue().isEmpty()) {
                    empty.add(field.getKey());
                }
            });
            object.remove(empty);
        } else if (node instanceof ArrayNode array) {
            array.forEach(DifferentialIT::withoutEmptyObjects);
        }
        return node;
    }

    /**
     * A trainer that fails ends alike: the TrainJob Failed with the same reason, message and jobsStatus, no pod left
     * (the Job controller deletes them at the backoff limit: the sandbox keeps none), the same Job and JobSet Events.
     * The real container is restarted until then, the sandbox's runs once (DIFFERENCES.md, "Not compared"): the pods'
     * own Events are not compared.
     */
    @Test
    @Timeout(240)
    void aFailedTrainJobEndsAlikeWithNoPodLeft() throws InterruptedException {
        // the torch runtime with the Jobs' backoffLimit at 1, on both sides: the container fails, the kubelet
        // restarts it once at once, and the Job controller gives up (the default 6 takes minutes of back-off)
        GenericKubernetesResource released = real.client()
                .genericKubernetesResources("trainer.kubeflow.org/v1alpha1", "ClusterTrainingRuntime")
                .withName("torch-distributed")
                .get();
        @SuppressWarnings("unchecked")
        Map<String, Object> spec =
                (Map<String, Object>) released.getAdditionalProperties().get("spec");
        RealCluster.backoffLimit(1).accept(spec);
        GenericKubernetesResource runtime =
                Serialization.unmarshal("""
                {"apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "TrainingRuntime",
                 "metadata": {"name": "torch-one-restart", "namespace": "%s",
                              "labels": {"trainer.kubeflow.org/framework": "torch"}}}""".formatted(NAMESPACE), GenericKubernetesResource.class);
        runtime.setAdditionalProperty("spec", spec);
        for (Side side : sides()) {
            side.client()
                    .genericKubernetesResources("trainer.kubeflow.org/v1alpha1", "TrainingRuntime")
                    .inNamespace(NAMESPACE)
                    .resource(runtime)
                    .create();
        }
        String job = """
                {"apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "TrainJob",
                 "metadata": {"name": "fails", "namespace": "%s",
                              "annotations": {"sandbox.camelkubeflow.io/outcome": "Failed",
                                              "sandbox.camelkubeflow.io/exit-code": "3",
                                              "sandbox.camelkubeflow.io/run-millis": "1000"}},
                 "spec": {"runtimeRef": {"name": "torch-one-restart", "kind": "TrainingRuntime"},
                          "trainer": {"numNodes": 1, "command": ["python3", "-c", "import sys; sys.exit(3)"]}}}""".formatted(NAMESPACE);
        String path = TRAINJOBS.formatted(NAMESPACE) + "/fails";
        createOnBothSides(job);
        for (Side side : sides()) {
            Eventually.await(
                    Duration.ofSeconds(180),
                    () -> side.json("GET", path, null).body().contains("\"FailedJobs\""),
                    () -> side.name() + ": not Failed " + side.json("GET", path, null));
        }
        sameHttp("GET", path, null);
        for (Side side : sides()) {
            assertEquals(
                    List.of(),
                    side.client()
                            .pods()
                            .inNamespace(NAMESPACE)
                            .withLabel("jobset.sigs.k8s.io/jobset-name", "fails")
                            .list()
                            .getItems(),
                    side.name() + ": pods");
        }
        assertEquals(jobEvents(real, "fails"), jobEvents(emulated, "fails"), "the Job's and the JobSet's Events");
        for (Side side : sides()) {
            trainJobs(side).inNamespace(NAMESPACE).withName("fails").delete();
        }
    }

    /** The reasons of the Events on the job's Jobs and JobSet, each once, by kind. */
    private static Set<String> jobEvents(Side side, String job) {
        Set<String> reasons = new TreeSet<>();
        for (var event :
                side.client().v1().events().inNamespace(NAMESPACE).list().getItems()) {
            String kind = event.getInvolvedObject().getKind();
            String name = event.getInvolvedObject().getName();
            if (("Job".equals(kind) || "JobSet".equals(kind)) && name.startsWith(job)) {
                reasons.add(kind + " " + name + " " + event.getReason());
            }
        }
        return reasons;
    }
}
