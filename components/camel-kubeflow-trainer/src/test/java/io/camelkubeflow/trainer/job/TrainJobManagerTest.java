package io.camelkubeflow.trainer.job;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.camelkubeflow.trainer.access.Access;
import io.camelkubeflow.trainer.api.TrainJob;
import io.camelkubeflow.trainer.api.TrainJobNotFoundException;
import io.camelkubeflow.trainer.api.TrainJobStatus;
import io.camelkubeflow.trainer.sandbox.TrainerSandbox;
import io.camelkubeflow.trainer.support.ApiRetry;
import io.camelkubeflow.trainer.support.InvalidOptionException;
import io.camelkubeflow.trainer.testing.TrainerApiServer;
import io.camelkubeflow.trainer.watch.StoredWorkloads;
import io.fabric8.kubernetes.api.model.DeletionPropagation;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Operations on existing TrainJobs (list, suspend, delete, the log-captured mark) and the TTL sweep, against the
 * sandbox's API server; job states are written straight into its store, so nothing waits.
 */
class TrainJobManagerTest {
    static TrainerSandbox sandbox;
    static KubernetesClient client;
    static TrainJobManager jobs;

    @BeforeAll
    static void start() {
        sandbox = TrainerSandbox.start();
        TrainerApiServer.createNamespaces(sandbox);
        client = sandbox.client();
        jobs = new TrainJobManager(client, ApiRetry.DEFAULT);
    }

    @AfterAll
    static void stop() {
        sandbox.close();
    }

    /** A job as stored, with labels and annotations; finished (Complete at {@code end}) when end is not null. */
    private static TrainJob job(String namespace, String name, String labels, String annotations, Instant end) {
        TrainJob created = client.resources(TrainJob.class)
                .inNamespace(namespace)
                .resource(Serialization.unmarshal("""
                apiVersion: trainer.kubeflow.org/v1alpha1
                kind: TrainJob
                metadata: {name: %s, labels: {%s}, annotations: {%s}}
                spec: {runtimeRef: {name: torch-distributed}}
                """.formatted(name, labels, annotations), TrainJob.class))
                .create();
        if (end == null) {
            return created;
        }
        created.setStatus(Serialization.unmarshal("""
                conditions: [{type: Complete, status: "True", reason: AllJobsCompleted, message: jobset completed successfully,
                              lastTransitionTime: "%s"}]
                """.formatted(end), TrainJobStatus.class));
        return client.resources(TrainJob.class)
                .inNamespace(namespace)
                .resource(created)
                .updateStatus();
    }

    private static List<String> names(List<TrainJob> list) {
        return list.stream()
                .map(j -> j.getMetadata().getNamespace() + "/" + j.getMetadata().getName())
                .sorted()
                .toList();
    }

    @Test
    void listIsScopedByNamespaceAndLabelSelector() {
        job("list-a", "one", "team: vision", "", null);
        job("list-a", "two", "team: nlp", "", null);
        job("list-b", "three", "team: vision", "", null);
        assertEquals(List.of("list-a/one", "list-a/two"), names(jobs.list("list-a", null)));
        assertEquals(List.of("list-a/one", "list-a/two"), names(jobs.list("list-a", " ")));
        assertEquals(List.of("list-a/one"), names(jobs.list("list-a", "team=vision")));
        assertEquals(List.of("list-a/one", "list-b/three"), names(jobs.list(null, "team=vision")));
    }

    @Test
    void suspendAndResumeSetTheSpecAndAMissingJobIsNamed() {
        job("suspend", "s", "", "", null);
        assertEquals(true, jobs.setSuspended("suspend", "s", true).getSpec().suspend());
        assertEquals(false, jobs.setSuspended("suspend", "s", false).getSpec().suspend());
        TrainJobNotFoundException missing =
                assertThrows(TrainJobNotFoundException.class, () -> jobs.setSuspended("suspend", "nope", true));
        assertTrue(missing.getMessage().contains("TrainJob suspend/nope does not exist"), missing.getMessage());
    }

    /**
     * A job Kueue holds, as Kueue documents: suspended by deactivating its Workload, resumed by activating it; resumed
     * while Kueue queues it, or acted on before Kueue made its Workload, it is refused with nothing written.
     */
    @Test
    @SuppressWarnings("unchecked")
    void aJobKueueHoldsIsSuspendedAndResumedThroughItsWorkloadAndNeverResumedWhileQueued() {
        StoredWorkloads.serveWorkloads(client);
        TrainJob queued = job("suspend", "kq", "kueue.x-k8s.io/queue-name: team", "", null);
        long mark = sandbox.requestCount();
        TrainJobHeldByKueueException early =
                assertThrows(TrainJobHeldByKueueException.class, () -> jobs.setSuspended(queued, true, () -> {}));
        assertTrue(early.getMessage().contains("Kueue has not made its Workload yet"), early.getMessage());
        assertEquals(List.of(), writesSince(mark), "refused before any write");
        GenericKubernetesResource workload = new StoredWorkloads(client, "suspend").createFor(queued, "team");
        mark = sandbox.requestCount();
        TrainJobHeldByKueueException held =
                assertThrows(TrainJobHeldByKueueException.class, () -> jobs.setSuspended(queued, false, () -> {}));
        assertTrue(
                held.getMessage().contains("TrainJob suspend/kq is held by Kueue: it is in LocalQueue team"),
                held.getMessage());
        assertEquals(List.of(), writesSince(mark), "refused before any write");

        var workloads = client.genericKubernetesResources(KueueWorkloads.WORKLOADS)
                .inNamespace("suspend")
                .withName(workload.getMetadata().getName());
        assertFalse(
                Boolean.TRUE.equals(
                        jobs.setSuspended(queued, true, () -> {}).getSpec().suspend()),
                "the job is Kueue's to suspend");
        assertEquals(
                false,
                ((Map<String, Object>) workloads.get().getAdditionalProperties().get("spec")).get("active"));
        jobs.setSuspended(queued, false, () -> {});
        assertEquals(
                true,
                ((Map<String, Object>) workloads.get().getAdditionalProperties().get("spec")).get("active"));
    }

    private static List<String> writesSince(long mark) {
        return sandbox.requestsSince(mark).stream()
                .filter(r -> !"GET".equals(r.getMethod()))
                .map(r -> r.getMethod() + " " + r.getPath())
                .toList();
    }

    @Test
    void deleteSaysWhetherThereWasAJob() {
        job("delete", "d", "", "", null);
        assertTrue(jobs.delete("delete", "d", DeletionPropagation.BACKGROUND));
        assertFalse(jobs.delete("delete", "d", DeletionPropagation.BACKGROUND));
        assertNull(jobs.find("delete", "d"));
    }

    @Test
    void onlyAFinishedJobWithATtlIsMarkedAsItsLogRead() {
        String ttl = TrainJobMetadata.TTL_LABEL + ": \"true\"";
        job("marks", "finished-ttl", ttl, "", Instant.now());
        job("marks", "running-ttl", ttl, "", null);
        job("marks", "finished-no-ttl", "", "", Instant.now());
        for (String name : List.of("finished-ttl", "running-ttl", "finished-no-ttl", "missing")) {
            jobs.markLogsCaptured("marks", name);
        }
        assertNotNull(annotation("finished-ttl"));
        assertNull(annotation("running-ttl"));
        assertNull(annotation("finished-no-ttl"));
    }

    private static String annotation(String name) {
        var annotations = jobs.find("marks", name).getMetadata().getAnnotations();
        return annotations == null ? null : annotations.get(TrainJobMetadata.LOGS_CAPTURED_ANNOTATION);
    }

    @Test
    void aSweepDeletesTheExpiredJobsOfTheNamespacesItLooksAfterAndCountsThem() {
        String ttl = TrainJobMetadata.TTL_LABEL + ": \"true\"";
        String oneMinute = TrainJobMetadata.TTL_ANNOTATION + ": \"60\"";
        Instant longAgo = Instant.now().minusSeconds(3600);
        job("reap", "expired", ttl, oneMinute, longAgo);
        job("reap", "fresh", ttl, oneMinute, Instant.now());
        job("reap", "running", ttl, oneMinute, null);
        job("reap-elsewhere", "expired", ttl, oneMinute, longAgo);
        try (TrainJobReaper reaper = new TrainJobReaper(client, ApiRetry.DEFAULT, Duration.ofHours(1))) {
            assertEquals(0, reaper.sweep(), "no namespace looked after yet");
            reaper.watchNamespace("reap");
            assertEquals(1, reaper.sweep());
            assertEquals(0, reaper.sweep());
        }
        assertEquals(
                List.of("reap-elsewhere/expired", "reap/fresh", "reap/running"),
                names(jobs.list(null, TrainJobMetadata.TTL_LABEL + "=true")).stream()
                        .filter(n -> n.startsWith("reap"))
                        .toList());
    }

    @Test
    void handledMarksAreShortLowercaseNames() {
        assertEquals("camelkubeflow.io/handled-results", TrainJobMetadata.handledAnnotation("results"));
        assertEquals("camelkubeflow.io/handled-" + "a".repeat(55), TrainJobMetadata.handledAnnotation("a".repeat(55)));
        for (String bad : new String[] {null, "", "a".repeat(56), "-a", "a-", "Results", "a_b"}) {
            InvalidOptionException error =
                    assertThrows(InvalidOptionException.class, () -> TrainJobMetadata.handledAnnotation(bad));
            assertEquals("handledMark", error.getField());
        }
    }

    @Test
    void aTtlIsTheLabelSaysSo() {
        assertTrue(TrainJobMetadata.hasTtl(job("ttl", "with", TrainJobMetadata.TTL_LABEL + ": \"true\"", "", null)));
        assertFalse(TrainJobMetadata.hasTtl(job("ttl", "other", TrainJobMetadata.TTL_LABEL + ": \"false\"", "", null)));
        assertFalse(TrainJobMetadata.hasTtl(job("ttl", "without", "", "", null)));
    }

    @Test
    void aJobNeedsTheRightToCreateItAndToReadEverySecretAndConfigMapItsPodsGet() {
        TrainJob job = Serialization.unmarshal("""
                apiVersion: trainer.kubeflow.org/v1alpha1
                kind: TrainJob
                metadata: {name: j, namespace: ml}
                spec:
                  runtimeRef: {name: torch-distributed}
                  trainer:
                    env:
                      - {name: A, value: plain}
                      - {name: B, valueFrom: {secretKeyRef: {name: api, key: token}}}
                      - {name: C, valueFrom: {configMapKeyRef: {name: settings, key: lr}}}
                      - {name: D, valueFrom: {fieldRef: {fieldPath: metadata.name}}}
                  initializer:
                    dataset: {storageUri: "s3://d", secretRef: {name: s3-creds}}
                    model: {storageUri: "hf://m"}
                """, TrainJob.class);
        assertEquals(
                List.of(
                        Access.trainJobs("create", "ml", null),
                        Access.readSecret("ml", "api"),
                        Access.readConfigMap("ml", "settings"),
                        Access.readSecret("ml", "s3-creds")),
                TrainJobAccess.required(new PreparedTrainJob(job, null, null, null, null)));
        TrainJob bare = Serialization.unmarshal("""
                kind: TrainJob
                metadata: {name: j, namespace: ml}
                spec: {runtimeRef: {name: torch-distributed}, initializer: {model: {storageUri: "hf://m"}}}
                """, TrainJob.class);
        assertEquals(
                List.of(Access.trainJobs("create", "ml", null)),
                TrainJobAccess.required(new PreparedTrainJob(bare, null, null, null, null)));
    }
}
