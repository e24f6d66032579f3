package io.camelkubeflow.trainer.sandbox;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.camelkubeflow.trainer.sandbox.http.PodLogs;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.DeletionPropagation;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceList;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.ResourceNotFoundException;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import io.fabric8.kubernetes.client.dsl.MixedOperation;
import io.fabric8.kubernetes.client.dsl.Resource;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.HttpURLConnection;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Each way fabric8's plain mock server departed from a real API server, Trainer controller, JobSet and kubelet, read
 * with the fabric8 client (and a raw HTTP client where the wire matters): the sandbox now answers as a cluster does.
 */
class ApiServerFidelityTest {
    /** JobSet's resource, as the controller emulation names it (its JobSetObjects.JOBSETS). */
    private static final ResourceDefinitionContext JOBSETS = new ResourceDefinitionContext.Builder()
            .withGroup("jobset.x-k8s.io")
            .withVersion("v1alpha2")
            .withKind("JobSet")
            .withPlural("jobsets")
            .withNamespaced(true)
            .build();

    private static TrainerSandbox sandbox;
    private static MixedOperation<
                    GenericKubernetesResource, GenericKubernetesResourceList, Resource<GenericKubernetesResource>>
            trainJobs;

    @BeforeAll
    static void start() {
        sandbox = TrainerSandbox.start(
                TrainerSandbox.Options.defaults().withController(Duration.ofMillis(50), Duration.ofMillis(600)));
        trainJobs = sandbox.client().genericKubernetesResources("trainer.kubeflow.org/v1alpha1", "TrainJob");
    }

    @AfterAll
    static void stop() {
        sandbox.close();
    }

    private static GenericKubernetesResource createFrom(String yamlOrJson) {
        return trainJobs
                .inNamespace("default")
                .resource(Serialization.unmarshal(yamlOrJson, GenericKubernetesResource.class))
                .create();
    }

    /** A one-node torch job that runs {@code runMillis} once started, with more spec fields. */
    private static void createRunningFor(String name, long runMillis, String specFields) {
        createFrom("""
                apiVersion: trainer.kubeflow.org/v1alpha1
                kind: TrainJob
                metadata: {name: %s, namespace: default, annotations: {sandbox.camelkubeflow.io/run-millis: "%d"}}
                spec:
                  runtimeRef: {name: torch-distributed}
                  %s
                """.formatted(name, runMillis, specFields));
    }

    private static GenericKubernetesResource create(String name, String extra) {
        return createFrom("""
                apiVersion: trainer.kubeflow.org/v1alpha1
                kind: TrainJob
                metadata: {name: %s, namespace: default%s}
                spec:
                  runtimeRef: {name: torch-distributed}
                  trainer: {numNodes: 2, image: example.com/train:1, command: [python, train.py],
                            env: [{name: LR, value: "0.1"}]}
                """.formatted(name, extra));
    }

    @Test
    void errorAnswersCarryAStatusObject() {
        var missing = assertThrows(
                ResourceNotFoundException.class,
                () -> sandbox.client()
                        .pods()
                        .inNamespace("default")
                        .withName("nowhere")
                        .require());
        HttpAnswer raw = HttpAnswer.get(sandbox, "api/v1/namespaces/default/pods/nowhere");
        assertEquals(404, raw.code());
        Map<?, ?> status = Serialization.unmarshal(raw.body(), Map.class);
        assertEquals("Status", status.get("kind"));
        assertEquals("NotFound", status.get("reason"));
        assertEquals(
                "NotFound",
                ((KubernetesClientException) missing.getCause()).getStatus().getReason(),
                "fabric8 reads the reason from the Status body");
    }

    @Test
    void discoveryAndVersionAreAnApiServers() {
        assertEquals("1", sandbox.client().getKubernetesVersion().getMajor());
        assertTrue(sandbox.client().getApiGroups().getGroups().stream()
                .anyMatch(g -> g.getName().equals("trainer.kubeflow.org")));
        assertTrue(sandbox.client().getApiResources("v1").getResources().stream()
                .anyMatch(r -> r.getName().equals("pods/log")));
        assertTrue(
                HttpAnswer.get(sandbox, "api/v1/namespaces/default/pods").body().contains("\"kind\":\"PodList\""),
                "a typed list");
    }

    @Test
    void setBasedSelectorsSelectInListsAndWatches() throws Exception {
        List<String> events = new CopyOnWriteArrayList<>();
        try (Watch watch = trainJobs
                .inNamespace("default")
                .withLabelSelector("stage in (canary, prod)")
                .watch(new Watcher<>() {
                    @Override
                    public void eventReceived(Action action, GenericKubernetesResource resource) {
                        events.add(action + " " + resource.getMetadata().getName());
                    }

                    @Override
                    public void onClose(WatcherException cause) {}
                })) {
            create("sel-canary", ", labels: {stage: canary}");
            create("sel-dev", ", labels: {stage: dev}");
            assertEquals(
                    List.of("sel-canary"),
                    trainJobs
                            .inNamespace("default")
                            .withLabelSelector("stage in (canary, prod)")
                            .list()
                            .getItems()
                            .stream()
                            .map(j -> j.getMetadata().getName())
                            .toList());
            assertEquals(
                    List.of("sel-dev"),
                    trainJobs
                            .inNamespace("default")
                            .withLabelSelector("stage, stage notin (canary)")
                            .list()
                            .getItems()
                            .stream()
                            .map(j -> j.getMetadata().getName())
                            .toList());
            trainJobs.inNamespace("default").withName("sel-canary").edit(j -> {
                j.getMetadata().getLabels().put("stage", "dev");
                return j;
            });
            Eventually.until(() -> events.contains("DELETED sel-canary"));
            assertEquals(
                    List.of("ADDED sel-canary", "DELETED sel-canary"),
                    events.stream().filter(e -> !e.startsWith("MODIFIED")).toList(),
                    "leaving the selection is a DELETED");
        }
        assertThrows(
                KubernetesClientException.class,
                () -> sandbox.client()
                        .pods()
                        .inNamespace("default")
                        .withLabelSelector("a in (b")
                        .list());
    }

    @Test
    void crdDefaultsAndIntegralNumbersAreAppliedAsTheApiServerDoes() {
        GenericKubernetesResource created = createFrom("""
                {"apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "TrainJob",
                 "metadata": {"name": "defaults", "namespace": "default"},
                 "spec": {"runtimeRef": {"name": "torch-distributed"},
                          "trainer": {"numNodes": 1.0, "resourcesPerNode": {"requests": {"cpu": 2.0}}}}}
                """);
        Map<?, ?> spec = (Map<?, ?>) created.getAdditionalProperties().get("spec");
        assertEquals("trainer.kubeflow.org/trainjob-controller", spec.get("managedBy"));
        assertEquals(false, spec.get("suspend"));
        assertEquals(
                Map.of(
                        "name",
                        "torch-distributed",
                        "kind",
                        "ClusterTrainingRuntime",
                        "apiGroup",
                        "trainer.kubeflow.org"),
                spec.get("runtimeRef"));
        Map<?, ?> trainer = (Map<?, ?>) spec.get("trainer");
        assertEquals(1, trainer.get("numNodes"), "1.0 stored as the integer 1");
        assertEquals(2, ((Map<?, ?>) ((Map<?, ?>) trainer.get("resourcesPerNode")).get("requests")).get("cpu"));
        KubernetesClientException fraction = assertThrows(KubernetesClientException.class, () -> createFrom("""
                        {"apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "TrainJob",
                         "metadata": {"name": "fraction", "namespace": "default"},
                         "spec": {"runtimeRef": {"name": "torch-distributed"}, "trainer": {"numNodes": 1.5}}}
                        """));
        assertEquals(422, fraction.getCode());
    }

    @Test
    void podsAreRenderedFromTheRuntimeAndTheTrainJobAsAKubeletReportsThem() {
        create("rendered", "");
        List<Pod> pods = awaitPods("rendered", 2);
        Eventually.until(() -> podsOf("rendered").stream()
                .allMatch(p -> !p.getStatus().getContainerStatuses().isEmpty()));
        Pod pod = podsOf("rendered").stream()
                .filter(p -> "1".equals(p.getMetadata().getLabels().get("batch.kubernetes.io/job-completion-index")))
                .findFirst()
                .orElseThrow();
        var container = pod.getSpec().getContainers().get(0);
        assertEquals("node", container.getName());
        assertEquals("example.com/train:1", container.getImage());
        assertEquals(List.of("python", "train.py"), container.getCommand());
        Map<String, String> env = new HashMap<>();
        for (EnvVar var : container.getEnv()) {
            env.put(
                    var.getName(),
                    var.getValue() != null
                            ? var.getValue()
                            : var.getValueFrom().getFieldRef().getFieldPath());
        }
        assertEquals("0.1", env.get("LR"));
        assertEquals("2", env.get("PET_NNODES"));
        assertEquals("rendered-node-0-0.rendered", env.get("PET_MASTER_ADDR"));
        assertTrue(env.get("PET_NODE_RANK").contains("job-completion-index"));
        ContainerStatus status = pod.getStatus().getContainerStatuses().get(0);
        assertEquals("example.com/train:1", status.getImage());
        assertTrue(status.getImageID().startsWith("example.com/train@sha256:"), status.getImageID());
        assertNotNull(status.getRestartCount());
        assertEquals(2, pods.size());
    }

    @Test
    void mpiLaunchersGetTheMpiEnvAndHostfile() {
        createFrom("""
                apiVersion: trainer.kubeflow.org/v1alpha1
                kind: TrainJob
                metadata: {name: mpi, namespace: default}
                spec:
                  runtimeRef: {name: deepspeed-distributed}
                  trainer: {numNodes: 3, numProcPerNode: 2, command: [mpirun, python, train.py]}
                """);
        List<Pod> pods = awaitPods("mpi", 3);
        Pod launcher = pods.stream()
                .filter(p ->
                        "launcher".equals(p.getMetadata().getLabels().get("jobset.sigs.k8s.io/replicatedjob-name")))
                .findFirst()
                .orElseThrow();
        var container = launcher.getSpec().getContainers().get(0);
        assertEquals(List.of("mpirun", "python", "train.py"), container.getCommand());
        assertTrue(container.getEnv().stream()
                .anyMatch(e -> e.getName().equals("OMPI_MCA_orte_default_hostfile")
                        && e.getValue().equals("/etc/mpi/hostfile")));
        assertTrue(container.getVolumeMounts().stream()
                .anyMatch(m -> m.getMountPath().equals("/etc/mpi")));
        assertEquals(
                2,
                pods.stream()
                        .filter(p ->
                                "node".equals(p.getMetadata().getLabels().get("jobset.sigs.k8s.io/replicatedjob-name")))
                        .count(),
                "the launcher runs as the first node");
        assertTrue(
                container.getEnv().stream()
                        .anyMatch(e -> e.getName().equals("OMPI_MCA_orte_set_default_slots")
                                && e.getValue().equals("2")),
                "the TrainJob's numProcPerNode is the slots");
    }

    @Test
    void anMpiJobGetsItsHostfileAndSshKeysAsTheTrainerWritesThem() throws Exception {
        GenericKubernetesResource job = createFrom("""
                apiVersion: trainer.kubeflow.org/v1alpha1
                kind: TrainJob
                metadata: {name: mpi-objects, namespace: default}
                spec:
                  suspend: true
                  runtimeRef: {name: deepspeed-distributed}
                  trainer: {numNodes: 3, numProcPerNode: 2}
                """);
        var configMaps = sandbox.client().configMaps().inNamespace("default");
        Eventually.until(() -> configMaps.withName("mpi-objects-mpi-hostfile").get() != null);
        // what the Trainer v2.3.0 wrote for the same TrainJob on the real control plane
        assertEquals(
                """
                mpi-objects-node-0-0.mpi-objects slots=2
                mpi-objects-node-0-1.mpi-objects slots=2
                mpi-objects-launcher-0-0.mpi-objects slots=2
                """,
                configMaps.withName("mpi-objects-mpi-hostfile").get().getData().get("hostfile"));
        var secret = sandbox.client()
                .secrets()
                .inNamespace("default")
                .withName("mpi-objects-mpi-ssh-auth")
                .get();
        assertEquals("kubernetes.io/ssh-auth", secret.getType());
        assertEquals(true, secret.getImmutable());
        String privateKey = new String(
                Base64.getDecoder().decode(secret.getData().get("ssh-privatekey")), StandardCharsets.US_ASCII);
        String publicKey = new String(
                Base64.getDecoder().decode(secret.getData().get("ssh-publickey")), StandardCharsets.US_ASCII);
        assertTrue(privateKey.startsWith("-----BEGIN EC PRIVATE KEY-----\n"), privateKey);
        assertTrue(publicKey.matches("ecdsa-sha2-nistp521 [A-Za-z0-9+/=]+\n"), publicKey);
        assertSshKeyPair(privateKey, publicKey);
        for (String owned : List.of("mpi-objects-mpi-hostfile", "mpi-objects-runtime-snapshot")) {
            var owner = configMaps
                    .withName(owned)
                    .get()
                    .getMetadata()
                    .getOwnerReferences()
                    .get(0);
            assertEquals(
                    List.of(job.getMetadata().getUid(), true, true),
                    List.of(owner.getUid(), owner.getController(), owner.getBlockOwnerDeletion()),
                    owned);
        }
    }

    /** ssh-keygen reads the private key and derives the same public key, when this machine has ssh-keygen. */
    private static void assertSshKeyPair(String privateKey, String publicKey) throws Exception {
        Path keygen = Path.of("/usr/bin/ssh-keygen");
        Assumptions.assumeTrue(Files.isExecutable(keygen), "no ssh-keygen");
        Path file = Files.createTempFile("mpi-key", "");
        try {
            Files.writeString(file, privateKey);
            Process derive = new ProcessBuilder(keygen.toString(), "-y", "-f", file.toString()).start();
            String derived = new String(derive.getInputStream().readAllBytes(), StandardCharsets.US_ASCII);
            assertEquals(
                    0, derive.waitFor(), new String(derive.getErrorStream().readAllBytes(), StandardCharsets.UTF_8));
            assertEquals(publicKey.trim(), derived.trim());
        } finally {
            Files.delete(file);
        }
    }

    @Test
    void aRuntimeChangedAfterAJobsFirstRenderDoesNotChangeTheJob() {
        sandbox.createRuntime("""
                apiVersion: trainer.kubeflow.org/v1alpha1
                kind: ClusterTrainingRuntime
                metadata: {name: snapshotted, labels: {trainer.kubeflow.org/framework: torch}}
                spec:
                  mlPolicy: {numNodes: 1, torch: {numProcPerNode: auto}}
                  template:
                    spec:
                      replicatedJobs:
                      - name: node
                        template:
                          metadata: {labels: {trainer.kubeflow.org/trainjob-ancestor-step: trainer}}
                          spec:
                            template:
                              spec:
                                containers: [{name: node, image: "example.com/before:1"}]
                """);
        createFrom("""
                apiVersion: trainer.kubeflow.org/v1alpha1
                kind: TrainJob
                metadata: {name: snapshot-kept, namespace: default}
                spec: {suspend: true, runtimeRef: {name: snapshotted}}
                """);
        var snapshot = sandbox.client().configMaps().inNamespace("default").withName("snapshot-kept-runtime-snapshot");
        Eventually.until(() -> snapshot.get() != null);
        assertTrue(snapshot.get().getData().get("runtime").contains("example.com/before:1"));
        sandbox.client()
                .genericKubernetesResources("trainer.kubeflow.org/v1alpha1", "ClusterTrainingRuntime")
                .withName("snapshotted")
                .edit(runtime -> {
                    String changed =
                            Serialization.asJson(runtime).replace("example.com/before:1", "example.com/after:2");
                    return Serialization.unmarshal(changed, GenericKubernetesResource.class);
                });
        trainJobs.inNamespace("default").withName("snapshot-kept").edit(job -> {
            ((Map<String, Object>) job.getAdditionalProperties().get("spec")).put("suspend", false);
            return job;
        });
        List<Pod> pods = awaitPods("snapshot-kept", 1);
        assertEquals(
                "example.com/before:1",
                pods.get(0).getSpec().getContainers().get(0).getImage(),
                "rendered from the snapshot, as the Trainer renders a resumed job");
        // the other tests count the installed runtimes
        sandbox.client()
                .genericKubernetesResources("trainer.kubeflow.org/v1alpha1", "ClusterTrainingRuntime")
                .withName("snapshotted")
                .delete();
    }

    @Test
    void jobsThatDependOnInitializersStartOnlyOnceTheyComplete() throws Exception {
        List<String> seen = new CopyOnWriteArrayList<>();
        try (Watch watch = sandbox.client()
                .pods()
                .inNamespace("default")
                .withLabel("jobset.sigs.k8s.io/jobset-name", "tuned")
                .watch(new Watcher<>() {
                    @Override
                    public void eventReceived(Action action, Pod pod) {
                        seen.add(pod.getMetadata().getLabels().get("jobset.sigs.k8s.io/replicatedjob-name") + " "
                                + pod.getStatus().getPhase());
                    }

                    @Override
                    public void onClose(WatcherException cause) {}
                })) {
            createFrom("""
                    apiVersion: trainer.kubeflow.org/v1alpha1
                    kind: TrainJob
                    metadata: {name: tuned, namespace: default}
                    spec:
                      runtimeRef: {name: torchtune-llama3.2-1b}
                      initializer: {dataset: {storageUri: "hf://tatsu-lab/alpaca"}}
                    """);
            awaitDone("tuned");
        }
        int firstNode = seen.indexOf("node Pending");
        assertTrue(
                firstNode > seen.lastIndexOf("dataset-initializer Succeeded")
                        && firstNode > seen.lastIndexOf("model-initializer Succeeded")
                        && seen.lastIndexOf("model-initializer Succeeded") >= 0,
                "dependsOn Complete: " + seen);
        String log = sandbox.client()
                .pods()
                .inNamespace("default")
                .withLabel("jobset.sigs.k8s.io/replicatedjob-name", "dataset-initializer")
                .withLabel("jobset.sigs.k8s.io/jobset-name", "tuned")
                .list()
                .getItems()
                .get(0)
                .getMetadata()
                .getName();
        assertTrue(sandbox.client()
                .pods()
                .inNamespace("default")
                .withName(log)
                .getLog()
                .contains("hf://tatsu-lab/alpaca"));
    }

    @Test
    void eventsAreRecordedAndDeletingATrainJobCollectsItsPods() {
        create("collected", "");
        awaitDone("collected");
        List<Event> events =
                sandbox.client().v1().events().inNamespace("default").list().getItems();
        List<String> reasons = events.stream()
                .filter(e -> e.getInvolvedObject().getName().startsWith("collected"))
                .map(Event::getReason)
                .toList();
        for (String reason : List.of(
                "SuccessfulCreate", "Scheduled", "Pulled", "Created", "Started", "Completed", "AllJobsCompleted")) {
            assertTrue(reasons.contains(reason), reason + " missing from " + reasons);
        }
        assertTrue(events.stream().allMatch(e -> e.getFirstTimestamp() != null && e.getSource() != null));

        GenericKubernetesResource trainJob =
                trainJobs.inNamespace("default").withName("collected").get();
        GenericKubernetesResource jobSet = sandbox.client()
                .genericKubernetesResources("jobset.x-k8s.io/v1alpha2", "JobSet")
                .inNamespace("default")
                .withName("collected")
                .get();
        assertEquals(
                trainJob.getMetadata().getUid(),
                jobSet.getMetadata().getOwnerReferences().get(0).getUid());
        assertEquals("Completed", ((Map<?, ?>) jobSet.getAdditionalProperties().get("status")).get("terminalState"));
        var job = sandbox.client()
                .batch()
                .v1()
                .jobs()
                .inNamespace("default")
                .withName("collected-node-0")
                .get();
        assertEquals(
                jobSet.getMetadata().getUid(),
                job.getMetadata().getOwnerReferences().get(0).getUid());
        assertEquals(2, job.getStatus().getSucceeded());
        assertTrue(
                podsOf("collected").stream()
                        .allMatch(p -> p.getMetadata()
                                .getOwnerReferences()
                                .get(0)
                                .getUid()
                                .equals(job.getMetadata().getUid())),
                "pods owned by their Job");

        trainJobs.inNamespace("default").withName("collected").delete();
        Eventually.until(() -> podsOf("collected").isEmpty());
        assertEquals(
                null,
                sandbox.client()
                        .batch()
                        .v1()
                        .jobs()
                        .inNamespace("default")
                        .withName("collected-node-0")
                        .get(),
                "the garbage collector follows ownerReferences: TrainJob, JobSet, Job, pods");
    }

    @Test
    void anOrphaningDeleteLeavesTheDependents() {
        create("orphaning", "");
        awaitPods("orphaning", 2);
        trainJobs
                .inNamespace("default")
                .withName("orphaning")
                .withPropagationPolicy(DeletionPropagation.ORPHAN)
                .delete();
        Eventually.until(
                () -> trainJobs.inNamespace("default").withName("orphaning").get() == null);
        assertNotNull(sandbox.client()
                .genericKubernetesResources("jobset.x-k8s.io/v1alpha2", "JobSet")
                .inNamespace("default")
                .withName("orphaning")
                .get());
        assertEquals(2, podsOf("orphaning").size());
    }

    @Test
    void anOwnerListedTwiceIsStoredOnceWithAWarningAsKubeApiserverDoes() throws Exception {
        String owner = sandbox.client()
                .configMaps()
                .inNamespace("default")
                .resource(new ConfigMapBuilder()
                        .withNewMetadata()
                        .withName("owner")
                        .endMetadata()
                        .build())
                .create()
                .getMetadata()
                .getUid();
        String reference = """
                {"apiVersion": "v1", "kind": "ConfigMap", "name": "owner", "uid": "%s"}""".formatted(owner);
        String sameUidOtherName = reference.replace("\"owner\"", "\"renamed\"");
        var created = send("POST", "api/v1/namespaces/default/configmaps", "application/json", """
                {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "owned",
                 "ownerReferences": [%s, %s, %s]}}""".formatted(
                        reference, reference, sameUidOtherName));
        assertEquals(201, created.statusCode(), created.body());
        // the wording and the list of uids as kube-apiserver 1.36 answered the same create
        assertEquals(
                "299 - \".metadata.ownerReferences contains duplicate entries; API server dedups owner references"
                        + " in 1.20+, and may reject such requests as early as 1.24; please fix your requests; duplicate UID(s)"
                        + " observed: " + owner + "\"",
                created.headers().firstValue("Warning").orElse(null));
        assertEquals(List.of("owner", "renamed"), namesOfOwners("owned"), "identical entries only are one");

        sandbox.client()
                .configMaps()
                .inNamespace("default")
                .resource(new ConfigMapBuilder()
                        .withNewMetadata()
                        .withName("owned-once")
                        .addToOwnerReferences(Serialization.unmarshal(reference, OwnerReference.class))
                        .endMetadata()
                        .build())
                .create();
        var patched = send(
                "PATCH",
                "api/v1/namespaces/default/configmaps/owned-once",
                "application/json-patch+json",
                "[{\"op\": \"add\", \"path\": \"/metadata/ownerReferences/-\", \"value\": " + reference + "}]");
        assertEquals(200, patched.statusCode(), patched.body());
        assertTrue(
                patched.headers()
                        .firstValue("Warning")
                        .orElse("")
                        .startsWith("299 - \".metadata.ownerReferences"
                                + " contains duplicate entries after mutating admission happens; "),
                patched.headers().toString());
        assertEquals(List.of("owner"), namesOfOwners("owned-once"), "a patch adding a present owner adds none");

        // a uid with a control character: stored, and warned of with a space in its place (no header carries one)
        String odd = reference.replace(owner, "odd\\u001bid");
        var oddOnes = send("POST", "api/v1/namespaces/default/configmaps", "application/json", """
                {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "oddly-owned",
                 "ownerReferences": [%s, %s]}}""".formatted(odd, odd));
        assertEquals(201, oddOnes.statusCode(), oddOnes.body());
        assertTrue(
                oddOnes.headers().firstValue("Warning").orElse("").endsWith("observed: odd id\""),
                oddOnes.headers().toString());

        var unchanged = send(
                "PATCH",
                "api/v1/namespaces/default/configmaps/owned-once",
                "application/merge-patch+json",
                "{\"data\": {\"k\": \"v\"}}");
        assertEquals(200, unchanged.statusCode(), unchanged.body());
        assertTrue(unchanged.headers().firstValue("Warning").isEmpty(), "no duplicate, no warning");
    }

    private static List<String> namesOfOwners(String configMap) {
        return sandbox
                .client()
                .configMaps()
                .inNamespace("default")
                .withName(configMap)
                .get()
                .getMetadata()
                .getOwnerReferences()
                .stream()
                .map(OwnerReference::getName)
                .toList();
    }

    private static HttpResponse<String> send(String method, String path, String contentType, String body)
            throws Exception {
        return AdminRequests.client(sandbox)
                .send(
                        AdminRequests.request(sandbox, path)
                                .header("Content-Type", contentType)
                                .method(method, HttpRequest.BodyPublishers.ofString(body))
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void aTrainJobPastItsActiveDeadlineFailsWithDeadlineExceeded() {
        createRunningFor("late", 60_000, "activeDeadlineSeconds: 1");
        GenericKubernetesResource failed = trainJobs
                .inNamespace("default")
                .withName("late")
                .waitUntilCondition(j -> condition(j, "Failed") != null, 30, TimeUnit.SECONDS);
        assertEquals("DeadlineExceeded", condition(failed, "Failed").get("reason"));
        // as the real Trainer: the JobSet goes, and its Jobs and pods with it
        Eventually.until(() -> podsOf("late").isEmpty()
                && sandbox.client()
                                .genericKubernetesResources(JOBSETS)
                                .inNamespace("default")
                                .withName("late")
                                .get()
                        == null);
    }

    @Test
    void aLogFollowStreamsLinesAsTheyComeAndEndsWithTheContainer() throws Exception {
        createRunningFor("streamed", 1500, "");
        Pod pod = awaitPods("streamed", 1).get(0);
        // as on a cluster, the log of a container that has not started is refused (400): a client follows it once
        // the pod runs
        Eventually.until(
                () -> "Running".equals(podsOf("streamed").get(0).getStatus().getPhase()));
        List<String> lines = new ArrayList<>();
        HttpURLConnection connection = AdminRequests.connection(
                sandbox, "api/v1/namespaces/default/pods/" + pod.getMetadata().getName() + "/log?follow=True");
        try (BufferedReader reader =
                new BufferedReader(new InputStreamReader(connection.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = reader.readLine()) != null) {
                lines.add(line);
            }
        }
        assertEquals(12, lines.size(), "a start line, 10 steps and the exit, in one stream: " + lines);
        assertEquals("sandbox: exited with code 0", lines.get(11));
    }

    @Test
    void aLogIsStreamedAsAKubeletCopiesItsFileAndLimitBytesCutsWhereTheBytesEnd() throws Exception {
        PodLogs logs = sandbox.podLogs();
        logs.create("default", "chatty");
        List<String> lines = new ArrayList<>();
        for (int i = 0; i < 20_000; i++) {
            lines.add("step " + i + " loss=0.5 \u00fcber");
        }
        logs.appendBurst("default", "chatty", lines);
        String url = "api/v1/namespaces/default/pods/chatty/log";
        byte[] expected = (String.join("\n", lines) + "\n").getBytes(StandardCharsets.UTF_8);

        HttpResponse<byte[]> whole = bytes(url);
        assertArrayEquals(expected, whole.body());
        assertEquals(
                "chunked",
                whole.headers().firstValue("transfer-encoding").orElse(null),
                "a long log is streamed, not sent with a length known in advance");

        // the first line's ü is two bytes: the limit ends after the first of them
        int limit = "step 0 loss=0.5 ".length() + 1;
        assertArrayEquals(
                Arrays.copyOf(expected, limit),
                bytes(url + "?limitBytes=" + limit).body());
        assertArrayEquals(
                Arrays.copyOf(expected, 100_001),
                bytes(url + "?limitBytes=100001").body());

        HttpResponse<byte[]> last = bytes(url + "?tailLines=1");
        assertEquals(lines.get(19_999) + "\n", new String(last.body(), StandardCharsets.UTF_8));
        assertEquals(
                String.valueOf(last.body().length),
                last.headers().firstValue("content-length").orElse(null),
                "a short answer goes whole with its length, as Go's HTTP server sends a short one");

        String[] stamped = new String(bytes(url + "?timestamps=true").body(), StandardCharsets.UTF_8).split("\n");
        assertEquals(lines.size(), stamped.length);
        assertTrue(
                stamped[12_345].matches("\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{9}Z " + lines.get(12_345)),
                stamped[12_345]);
    }

    private HttpResponse<byte[]> bytes(String path) throws Exception {
        HttpResponse<byte[]> response = AdminRequests.client(sandbox)
                .send(AdminRequests.request(sandbox, path).build(), HttpResponse.BodyHandlers.ofByteArray());
        assertEquals(200, response.statusCode(), () -> new String(response.body(), StandardCharsets.UTF_8));
        return response;
    }

    @Test
    void aWatchOverHttpStreamsJsonLinesUntilItsTimeout() throws Exception {
        create("watched", "");
        List<String> lines = new ArrayList<>();
        // watch=1 is true to the API server (Go's ParseBool), as the Python client's watch=True is
        HttpURLConnection connection = AdminRequests.connection(
                sandbox,
                "apis/trainer.kubeflow.org/v1alpha1/namespaces/default/trainjobs?watch=1&timeoutSeconds=1"
                        + "&fieldSelector=metadata.name%3Dwatched");
        try (BufferedReader reader =
                new BufferedReader(new InputStreamReader(connection.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = reader.readLine()) != null) {
                lines.add(line);
            }
        }
        assertFalse(lines.isEmpty(), "no event before the timeout ended the stream");
        Map<?, ?> first = Serialization.unmarshal(lines.get(0), Map.class);
        assertEquals("ADDED", first.get("type"));
        assertEquals("watched", ((Map<?, ?>) ((Map<?, ?>) first.get("object")).get("metadata")).get("name"));
    }

    @Test
    void objectsLiveOnlyInNamespacesThatExist() {
        KubernetesClientException missing = assertThrows(
                KubernetesClientException.class,
                () -> sandbox.client()
                        .configMaps()
                        .inNamespace("nowhere")
                        .resource(new ConfigMapBuilder()
                                .withNewMetadata()
                                .withName("c")
                                .endMetadata()
                                .build())
                        .create());
        assertEquals(404, missing.getCode());
        assertEquals("namespaces \"nowhere\" not found", missing.getStatus().getMessage());
        sandbox.createNamespace("somewhere");
        sandbox.client()
                .configMaps()
                .inNamespace("somewhere")
                .resource(new ConfigMapBuilder()
                        .withNewMetadata()
                        .withName("c")
                        .endMetadata()
                        .build())
                .create();
    }

    /** RFC 7386, as kube-apiserver applies it to any kind: a list in the patch replaces the stored one, a null removes. */
    @Test
    void aMergePatchReplacesListsAndRemovesKeysWithNull() {
        var configMaps = sandbox.client().configMaps().inNamespace("default");
        configMaps
                .resource(new ConfigMapBuilder()
                        .withNewMetadata()
                        .withName("merged")
                        .withFinalizers("example.com/first")
                        .addToLabels(Map.of("a", "1", "b", "2"))
                        .endMetadata()
                        .build())
                .create();
        var patched = configMaps
                .withName("merged")
                .patch(
                        PatchContext.of(PatchType.JSON_MERGE),
                        "{\"metadata\": {\"finalizers\": [\"example.com/second\"], \"labels\": {\"a\": null}}}");
        assertEquals(List.of("example.com/second"), patched.getMetadata().getFinalizers());
        assertEquals(Map.of("b", "2"), patched.getMetadata().getLabels());
        assertEquals(
                patched.getMetadata().getFinalizers(),
                configMaps.withName("merged").get().getMetadata().getFinalizers());
        configMaps
                .withName("merged")
                .patch(PatchContext.of(PatchType.JSON_MERGE), "{\"metadata\": {\"finalizers\": null}}");
        configMaps.withName("merged").delete();
    }

    @Test
    void listsComeInTheApiServersOrderByNamespaceThenName() {
        List<String> names = sandbox
                .client()
                .genericKubernetesResources("trainer.kubeflow.org/v1alpha1", "ClusterTrainingRuntime")
                .list()
                .getItems()
                .stream()
                .map(r -> r.getMetadata().getName())
                .toList();
        assertEquals(names.stream().sorted().toList(), names);
        assertEquals(TrainerSandbox.DEFAULT_RUNTIMES.size(), names.size());
    }

    /**
     * The runtimes as the release's runtimes overlay installs them (kubectl apply -k, as testcluster/up.sh does): the
     * Trainer's own images at the release's tag, every runtime labelled for no webhook validation; the data cache's
     * runtime, which the overlay does not install, absent.
     */
    @Test
    void theRuntimesAreInstalledAsTheReleasesOverlayInstallsThem() {
        var runtimes =
                sandbox.client().genericKubernetesResources("trainer.kubeflow.org/v1alpha1", "ClusterTrainingRuntime");
        GenericKubernetesResource deepspeed =
                runtimes.withName("deepspeed-distributed").get();
        String json = Serialization.asJson(deepspeed);
        assertTrue(
                json.contains("\"image\":\"ghcr.io/kubeflow/trainer/deepspeed-runtime:v2.3.0\"")
                        && !json.contains("\"image\":\"ghcr.io/kubeflow/trainer/deepspeed-runtime\""),
                json);
        assertEquals("disabled", deepspeed.getMetadata().getLabels().get("trainer.kubeflow.org/webhook-validation"));
        // stored with the CRD's defaults, as kube-apiserver stores the overlay's runtimes
        assertTrue(json.contains("\"groupName\":\"default\"") && json.contains("\"replicas\":1"), json);
        // an image the overlay does not name keeps its own tag
        assertTrue(Serialization.asJson(runtimes.withName("torch-distributed").get())
                .contains("\"image\":\"pytorch/pytorch:2.13.0-cuda13.0-cudnn9-runtime\""));
        assertEquals(null, runtimes.withName("torch-distributed-with-cache").get());
    }

    @Test
    void theTrainerIsInstalledAsOnACluster() {
        assertNotNull(sandbox.client().namespaces().withName("kubeflow-system").get());
        assertNotNull(sandbox.client().namespaces().withName("default").get());
        assertEquals(
                TrainerSandbox.TRAINER_VERSION,
                sandbox.client()
                        .configMaps()
                        .inNamespace("kubeflow-system")
                        .withName("kubeflow-trainer-public")
                        .get()
                        .getData()
                        .get("kubeflow_trainer_version"));
    }

    private static List<Pod> awaitPods(String job, int count) {
        Eventually.until(() -> podsOf(job).size() == count);
        return podsOf(job);
    }

    private static List<Pod> podsOf(String job) {
        return sandbox.client()
                .pods()
                .inNamespace("default")
                .withLabel("jobset.sigs.k8s.io/jobset-name", job)
                .list()
                .getItems();
    }

    private static void awaitDone(String job) {
        trainJobs
                .inNamespace("default")
                .withName(job)
                .waitUntilCondition(j -> condition(j, "Complete") != null, 30, TimeUnit.SECONDS);
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> condition(GenericKubernetesResource job, String type) {
        Object status = job.getAdditionalProperties().get("status");
        Object conditions = status instanceof Map<?, ?> map ? map.get("conditions") : null;
        if (conditions instanceof List<?> list) {
            for (Object c : list) {
                if (type.equals(((Map<String, Object>) c).get("type"))
                        && "True".equals(((Map<String, Object>) c).get("status"))) {
                    return (Map<String, Object>) c;
                }
            }
        }
        return null;
    }

    record HttpAnswer(int code, String body) {
        /** The admin's GET of a path of the sandbox's API. */
        static HttpAnswer get(TrainerSandbox sandbox, String path) {
            try {
                HttpResponse<String> response = AdminRequests.client(sandbox)
                        .send(AdminRequests.request(sandbox, path).build(), HttpResponse.BodyHandlers.ofString());
                return new HttpAnswer(response.statusCode(), response.body());
            } catch (IOException e) {
                throw new IllegalStateException(e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }
    }
}
