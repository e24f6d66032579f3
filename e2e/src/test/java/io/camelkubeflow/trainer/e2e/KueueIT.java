package io.camelkubeflow.trainer.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.camelkubeflow.trainer.KubeflowTrainerConstants;
import io.camelkubeflow.trainer.api.TrainJob;
import io.camelkubeflow.trainer.job.KueueWorkloads;
import io.camelkubeflow.trainer.job.RequestPolicy;
import io.camelkubeflow.trainer.job.TrainJobHeldByKueueException;
import io.camelkubeflow.trainer.testing.Eventually;
import io.camelkubeflow.trainer.watch.ReportedStatus;
import io.camelkubeflow.trainer.watch.TrainJobQueueTimeoutException;
import io.camelkubeflow.trainer.watch.TrainJobWaitTimeoutException;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.camel.Exchange;
import org.apache.camel.builder.RouteBuilder;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The component's jobs under the real Kueue, on a control plane of their own (up.sh's TESTCLUSTER_KUEUE: its release
 * manifests, its manager and webhooks, TrainJob integration on; the build starts it beside the suite's, whose TrainJobs
 * Kueue's webhook would patch): the queue and priorityClass options reach Kueue as its labels, a job beyond the
 * queue's quota is held suspended with Kueue's reason until the one before it ends, and both complete.
 */
class KueueIT {
    private static final String GROUP = "kueue.x-k8s.io";
    private static final ResourceDefinitionContext WORKLOADS = new ResourceDefinitionContext.Builder()
            .withGroup(GROUP)
            .withVersion("v1beta2")
            .withPlural("workloads")
            .withNamespaced(true)
            .build();
    /** One CPU for the queue, one CPU per job: a second job waits for the first. */
    private static final String ONE_CPU_JOB = "kubeflow-trainer:train?runtime=torch-distributed&cpu=1&queue=team"
            + "&command=python3 -c \"import time; time.sleep(8)\"";

    private static RealCluster cluster;
    private static final Map<String, List<String>> EVENTS = new ConcurrentHashMap<>();
    private static String clusterQueue;

    @BeforeAll
    static void start() throws Exception {
        cluster = RealCluster.start(KueueIT.class, RealCluster.kueueKubeconfig());
        clusterQueue = cluster.namespace;
        // what a route of events hears of each job: its status and reason, in order
        cluster.camel.addRoutes(new RouteBuilder() {
            @Override
            public void configure() {
                from("kubeflow-trainer:events?namespace=" + cluster.namespace)
                        .process(e -> EVENTS.computeIfAbsent(
                                        e.getMessage().getHeader(KubeflowTrainerConstants.JOB_NAME, String.class),
                                        name -> new CopyOnWriteArrayList<>())
                                .add(e.getMessage().getHeader(KubeflowTrainerConstants.EVENT, String.class) + " ("
                                        + e.getMessage().getHeader(KubeflowTrainerConstants.REASON, String.class)
                                        + ")"));
            }
        });
        // what a platform team sets up once: a flavor, a ClusterQueue with its quota, a LocalQueue per namespace
        apply("""
                apiVersion: kueue.x-k8s.io/v1beta2
                kind: ResourceFlavor
                metadata: {name: kueueit-flavor}
                """);
        apply("""
                apiVersion: kueue.x-k8s.io/v1beta2
                kind: WorkloadPriorityClass
                metadata: {name: kueueit-high}
                value: 1000
                """);
        apply("""
                apiVersion: kueue.x-k8s.io/v1beta2
                kind: WorkloadPriorityClass
                metadata: {name: kueueit-low}
                value: 10
                """);
        apply("""
                apiVersion: kueue.x-k8s.io/v1beta2
                kind: ClusterQueue
                metadata: {name: %s}
                spec:
                  namespaceSelector: {matchLabels: {kubernetes.io/metadata.name: %s}}
                  preemption: {withinClusterQueue: LowerPriority}
                  resourceGroups:
                  - coveredResources: [cpu]
                    flavors:
                    - name: kueueit-flavor
                      resources: [{name: cpu, nominalQuota: 1}]
                """.formatted(clusterQueue, cluster.namespace));
        apply("""
                apiVersion: kueue.x-k8s.io/v1beta2
                kind: LocalQueue
                metadata: {name: team, namespace: %s}
                spec: {clusterQueue: %s}
                """.formatted(cluster.namespace, clusterQueue));
    }

    @AfterAll
    static void stop() {
        if (cluster != null) {
            cluster.admin
                    .genericKubernetesResources("kueue.x-k8s.io/v1beta2", "ClusterQueue")
                    .withName(clusterQueue)
                    .delete();
            cluster.close();
        }
    }

    private static void apply(String yaml) {
        cluster.admin
                .resource(Serialization.unmarshal(yaml, GenericKubernetesResource.class))
                .serverSideApply();
    }

    /** The Workload Kueue made for a job (labelled with the job's uid), or null before it exists. */
    private static GenericKubernetesResource workloadOf(TrainJob job) {
        return cluster
                .admin
                .genericKubernetesResources(WORKLOADS)
                .inNamespace(cluster.namespace)
                .withLabel(GROUP + "/job-uid", job.getMetadata().getUid())
                .list()
                .getItems()
                .stream()
                .findFirst()
                .orElse(null);
    }

    private static Map<String, Object> condition(GenericKubernetesResource workload, String type) {
        return KueueWorkloads.condition(workload, type).orElse(null);
    }

    private static TrainJob body(Exchange exchange) {
        return exchange.getMessage().getBody(TrainJob.class);
    }

    @Test
    @Timeout(240)
    void aJobBeyondTheQueuesQuotaWaitsSuspendedWithKueuesReasonUntilTheQuotaIsFree() throws Exception {
        Exchange first = cluster.request(ONE_CPU_JOB.replace("time.sleep(8)", "time.sleep(600)"), null);
        cluster.then("kubeflow-trainer:wait?waitFor=Running&waitTimeout=120s", first);
        Exchange second = cluster.request(ONE_CPU_JOB, null);
        TrainJob queued = body(second);
        assertEquals("team", queued.getMetadata().getLabels().get(GROUP + "/queue-name"));

        // the first holds the queue's one CPU for ten minutes: Kueue keeps the second suspended and says why
        Eventually.await(
                Duration.ofSeconds(60),
                () -> condition(workloadOf(queued), "QuotaReserved") != null,
                () -> "no Workload for " + queued.getMetadata().getName() + ": " + workloadOf(queued));
        Map<String, Object> reserved = condition(workloadOf(queued), "QuotaReserved");
        assertEquals("False", reserved.get("status"), String.valueOf(reserved));
        assertEquals("Pending", reserved.get("reason"));
        assertEquals(
                true,
                cluster.admin
                        .resources(TrainJob.class)
                        .inNamespace(cluster.namespace)
                        .withName(queued.getMetadata().getName())
                        .get()
                        .getSpec()
                        .suspend());
        // get says so, with Kueue's words: not Suspended, Queued for want of quota
        Exchange got = cluster.then("kubeflow-trainer:get", second);
        assertEquals("Queued", got.getMessage().getHeader(KubeflowTrainerConstants.STATUS));
        assertEquals("Pending", got.getMessage().getHeader(KubeflowTrainerConstants.REASON));
        assertTrue(
                got.getMessage()
                        .getHeader(KubeflowTrainerConstants.MESSAGE, String.class)
                        .contains("insufficient unused quota for cpu"),
                got.getMessage().getHeaders().toString());
        // a wait that bounds the time in the queue ends at that bound, saying what Kueue says
        Exchange impatient =
                cluster.template.send("kubeflow-trainer:wait?waitFor=Complete&queueTimeout=3s", second.copy());
        TrainJobQueueTimeoutException queuedTooLong =
                assertInstanceOf(TrainJobQueueTimeoutException.class, impatient.getException());
        assertTrue(
                queuedTooLong.getMessage().contains("(Queued in LocalQueue team: Pending: couldn't assign flavors"),
                queuedTooLong.getMessage());

        // so does a wait that ends at its waitTimeout, in its message and in the headers its error handler reads
        Exchange brief = cluster.template.send("kubeflow-trainer:wait?waitFor=Complete&waitTimeout=2s", second.copy());
        TrainJobWaitTimeoutException timedOut =
                assertInstanceOf(TrainJobWaitTimeoutException.class, brief.getException());
        assertTrue(
                timedOut.getMessage().contains("(last seen Queued: Pending: couldn't assign flavors"),
                timedOut.getMessage());
        assertEquals("Queued", brief.getMessage().getHeader(KubeflowTrainerConstants.STATUS));
        assertEquals("Pending", brief.getMessage().getHeader(KubeflowTrainerConstants.REASON));
        // and list, for each job, with one read of the namespace's Workloads
        Exchange listed = cluster.template.send("kubeflow-trainer:list?namespace=" + cluster.namespace, e -> {});
        @SuppressWarnings("unchecked")
        Map<String, ReportedStatus> statuses =
                listed.getMessage().getHeader(KubeflowTrainerConstants.STATUSES, Map.class);
        assertEquals(
                "Queued",
                statuses.get(cluster.namespace + "/" + queued.getMetadata().getName())
                        .status(),
                String.valueOf(statuses));
        assertEquals(
                "Running",
                statuses.get(cluster.namespace + "/" + body(first).getMetadata().getName())
                        .status());

        cluster.then("kubeflow-trainer:delete", first);
        Exchange done = cluster.then("kubeflow-trainer:wait?waitFor=Complete&waitTimeout=120s", second);
        assertEquals("Complete", done.getMessage().getHeader(KubeflowTrainerConstants.STATUS));
        assertEquals("True", condition(workloadOf(queued), "Admitted").get("status"));
        // the events consumer watches the Workloads: Kueue's reason is heard when Kueue writes it
        assertInOrder(queued.getMetadata().getName(), "Queued (Pending)", "Admitted (Admitted)", "Running", "Complete");
    }

    /**
     * suspend and resume as Kueue documents them: a running job is suspended by deactivating its Workload (Kueue
     * evicts it, and the job queued behind it is admitted), resumed by activating it again (queued, then admitted
     * once the quota is free); resume of a job Kueue still queues is refused, with nothing written.
     */
    @Test
    @Timeout(300)
    void suspendAndResumeOfAJobKueueHoldsGoThroughItsWorkload() throws Exception {
        awaitNoJobHoldingTheQuota();
        Exchange running = cluster.request(ONE_CPU_JOB.replace("time.sleep(8)", "time.sleep(600)"), null);
        try {
            suspendAndResume(running);
        } finally {
            // its ten minutes would hold the quota for the tests after this one
            cluster.then("kubeflow-trainer:delete", running);
        }
    }

    private static void suspendAndResume(Exchange running) throws Exception {
        cluster.then("kubeflow-trainer:wait?waitFor=Running&waitTimeout=120s", running);
        Exchange queued = cluster.request(ONE_CPU_JOB, null);
        Eventually.await(
                Duration.ofSeconds(60),
                () -> condition(workloadOf(body(queued)), "QuotaReserved") != null,
                () -> "Kueue has not looked at " + body(queued).getMetadata().getName());

        long mark = cluster.auditMark();
        Exchange resumed = cluster.template.send("kubeflow-trainer:resume", queued.copy());
        TrainJobHeldByKueueException held =
                assertInstanceOf(TrainJobHeldByKueueException.class, resumed.getException());
        assertTrue(
                held.getMessage().contains("is in LocalQueue team, and Kueue resumes it when it admits it"),
                held.getMessage());
        assertEquals(List.of(), cluster.writesSince(mark, RealCluster.ADMIN_USER), "resume refused before any write");

        Exchange suspended = cluster.then("kubeflow-trainer:suspend", running);
        assertEquals(false, spec(workloadOf(body(running))).get("active"));
        Eventually.await(
                Duration.ofSeconds(60),
                () -> "Suspended"
                        .equals(cluster.then("kubeflow-trainer:get", suspended)
                                .getMessage()
                                .getHeader(KubeflowTrainerConstants.STATUS)),
                () -> "not Suspended");
        // its quota is free: the job queued behind it is admitted and completes
        assertEquals(
                "Complete",
                cluster.then("kubeflow-trainer:wait?waitFor=Complete&waitTimeout=120s", queued)
                        .getMessage()
                        .getHeader(KubeflowTrainerConstants.STATUS));

        cluster.then("kubeflow-trainer:resume", running);
        assertEquals(true, spec(workloadOf(body(running))).get("active"));
        cluster.then("kubeflow-trainer:wait?waitFor=Running&waitTimeout=120s", running);
        assertInOrder(
                body(running).getMetadata().getName(),
                "Running",
                "Suspended",
                "Queued",
                "Admitted (Admitted)",
                "Running");
    }

    /** No job of another test left to take the quota or preempt: a deleted job's Workload goes a moment after it. */
    private static void awaitNoJobHoldingTheQuota() throws InterruptedException {
        Eventually.await(
                Duration.ofSeconds(60),
                () ->
                        cluster
                                .admin
                                .genericKubernetesResources(WORKLOADS)
                                .inNamespace(cluster.namespace)
                                .list()
                                .getItems()
                                .stream()
                                .allMatch(workload -> condition(workload, "Finished") != null),
                () -> "Workloads still pending");
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> spec(GenericKubernetesResource workload) {
        return (Map<String, Object>) workload.getAdditionalProperties().get("spec");
    }

    /**
     * A low-priority job runs; a high-priority one comes and Kueue preempts the first, which the events consumer
     * reports as Preempted with Kueue's reason; once the high one ends, the first is admitted again and completes.
     */
    @Test
    @Timeout(300)
    void aPreemptedJobIsReportedPreemptedThenAdmittedAgainAndCompletes() throws Exception {
        awaitNoJobHoldingTheQuota();
        Exchange low = cluster.request(
                ONE_CPU_JOB.replace("time.sleep(8)", "time.sleep(20)") + "&priorityClass=kueueit-low", null);
        cluster.then("kubeflow-trainer:wait?waitFor=Running&waitTimeout=120s", low);
        Exchange high = cluster.request(
                ONE_CPU_JOB.replace("time.sleep(8)", "time.sleep(2)") + "&priorityClass=kueueit-high", null);
        assertEquals(
                "Complete",
                cluster.then("kubeflow-trainer:wait?waitFor=Complete&waitTimeout=180s", high)
                        .getMessage()
                        .getHeader(KubeflowTrainerConstants.STATUS));
        assertEquals(
                "Complete",
                cluster.then("kubeflow-trainer:wait?waitFor=Complete&waitTimeout=180s", low)
                        .getMessage()
                        .getHeader(KubeflowTrainerConstants.STATUS));
        assertInOrder(
                body(low).getMetadata().getName(),
                "Running",
                "Preempted (Preempted)",
                "Admitted (Admitted)",
                "Running",
                "Complete");
    }

    /**
     * The job's events, in order, come to hold {@code expected} in that order (others may come between), each a
     * prefix: waited for up to 30 s, as the events consumer may tell the last a moment after the wait saw it.
     */
    private static void assertInOrder(String job, String... expected) throws InterruptedException {
        try {
            Eventually.await(
                    Duration.ofSeconds(30),
                    () -> matchedInOrder(EVENTS.getOrDefault(job, List.of()), expected) == expected.length,
                    () -> "");
        } catch (AssertionError notYet) {
            // said below, with what was heard
        }
        List<String> events = EVENTS.getOrDefault(job, List.of());
        System.out.println("events of " + job + ": " + events);
        assertEquals(
                expected.length,
                matchedInOrder(events, expected),
                "events of " + job + ": " + events + ", expected in order " + List.of(expected));
    }

    /** How many of {@code expected}, in order, the events hold in that order. */
    private static int matchedInOrder(List<String> events, String... expected) {
        int at = 0;
        for (String event : events) {
            if (at < expected.length && event.startsWith(expected[at])) {
                at++;
            }
        }
        return at;
    }

    @Test
    @Timeout(120)
    void thePriorityClassReachesTheWorkload() throws Exception {
        Exchange trained =
                cluster.request(ONE_CPU_JOB.replace("time.sleep(8)", "print(1)") + "&priorityClass=kueueit-high", null);
        TrainJob job = body(trained);
        assertEquals("kueueit-high", job.getMetadata().getLabels().get(GROUP + "/priority-class"));
        Eventually.await(Duration.ofSeconds(60), () -> workloadOf(job) != null, () -> "no Workload");
        @SuppressWarnings("unchecked")
        Map<String, Object> spec =
                (Map<String, Object>) workloadOf(job).getAdditionalProperties().get("spec");
        assertEquals(1000, ((Number) spec.get("priority")).intValue(), String.valueOf(spec));
        // a job of high priority left queued would preempt the next test's
        cluster.then("kubeflow-trainer:delete", trained);
    }

    /** What Kueue writes on a queued job (suspend, its runtime patch) is Kueue's, not a different request. */
    @Test
    @Timeout(120)
    void aRetriedRequestAdoptsItsQueuedJob() throws Exception {
        Map<String, Object> key = Map.of(KubeflowTrainerConstants.IDEMPOTENCY_KEY, "queued-order-7");
        String uri = ONE_CPU_JOB.replace("time.sleep(8)", "time.sleep(1)") + "&namespace=" + cluster.namespace;
        Exchange first = cluster.template.request(uri, e -> e.getMessage().setHeaders(new HashMap<>(key)));
        assertNull(first.getException());
        Eventually.await(Duration.ofSeconds(60), () -> workloadOf(body(first)) != null, () -> "no Workload");
        Exchange again = cluster.template.request(uri, e -> e.getMessage().setHeaders(new HashMap<>(key)));
        assertNull(again.getException());
        assertEquals(true, again.getMessage().getHeader(KubeflowTrainerConstants.ADOPTED));
        assertEquals(
                body(first).getMetadata().getUid(), body(again).getMetadata().getUid());
        cluster.then("kubeflow-trainer:delete", again);
    }

    /** A request policy that forces every job into a LocalQueue: a request that names none is queued there. */
    @Test
    @Timeout(120)
    void aPolicysDefaultQueuePutsAJobThatNamesNoneUnderKueue() throws Exception {
        cluster.camel
                .getRegistry()
                .bind(
                        "teamQueue",
                        RequestPolicy.safeDefaults()
                                .withCommandOverride(true)
                                .withQueues(Set.of("team"), "team", true));
        Exchange trained = cluster.request(
                ONE_CPU_JOB.replace("&queue=team", "").replace("time.sleep(8)", "print(1)") + "&policy=#teamQueue",
                null);
        TrainJob job = body(trained);
        assertEquals("team", job.getMetadata().getLabels().get(GROUP + "/queue-name"));
        Eventually.await(Duration.ofSeconds(60), () -> workloadOf(job) != null, () -> "no Workload");
        @SuppressWarnings("unchecked")
        Map<String, Object> spec =
                (Map<String, Object>) workloadOf(job).getAdditionalProperties().get("spec");
        assertEquals("team", spec.get("queueName"), String.valueOf(spec));
        cluster.then("kubeflow-trainer:delete", trained);
    }
}
