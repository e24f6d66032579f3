package io.camelkubeflow.trainer.e2e;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import io.camelkubeflow.trainer.KubeflowTrainerConstants;
import io.camelkubeflow.trainer.api.TrainJob;
import io.camelkubeflow.trainer.testing.Eventually;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.fabric8.kubernetes.client.utils.Serialization;
import org.apache.camel.Exchange;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

/**
 * The component's jobs under the real Kueue (up.sh's TESTCLUSTER_KUEUE: its release manifests, its manager and
 * webhooks, TrainJob integration on): the queue and priorityClass options reach Kueue as its labels, a job beyond the
 * queue's quota is held suspended with Kueue's reason until the one before it ends, and both complete.
 */
class KueueIT {
    private static final String GROUP = "kueue.x-k8s.io";
    private static final ResourceDefinitionContext WORKLOADS = new ResourceDefinitionContext.Builder()
            .withGroup(GROUP).withVersion("v1beta2").withPlural("workloads").withNamespaced(true).build();
    /** One CPU for the queue, one CPU per job: a second job waits for the first. */
    private static final String ONE_CPU_JOB = "kubeflow-trainer:train?runtime=torch-distributed&cpu=1&queue=team"
            + "&command=python3 -c \"import time; time.sleep(8)\"";
    private static RealCluster cluster;
    private static String clusterQueue;

    @BeforeAll
    static void start() throws Exception {
        // Kueue's webhook adds its runtime patch to every TrainJob of the cluster, queued or not, which the rest of
        // the suite (DifferentialIT, PodOptionsIT) compares exactly: Kueue runs only in a cluster started for it
        try (var admin = RealCluster.client(RealCluster.adminKubeconfig())) {
            Assumptions.assumeTrue(admin.apiextensions().v1().customResourceDefinitions()
                    .withName("workloads.kueue.x-k8s.io").get() != null,
                    "Kueue is not installed: start the cluster with TESTCLUSTER_KUEUE=1 (docs/testing.md)");
        }
        cluster = RealCluster.start(KueueIT.class);
        clusterQueue = cluster.namespace;
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
                kind: ClusterQueue
                metadata: {name: %s}
                spec:
                  namespaceSelector: {matchLabels: {kubernetes.io/metadata.name: %s}}
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
            cluster.admin.genericKubernetesResources("kueue.x-k8s.io/v1beta2", "ClusterQueue").withName(clusterQueue)
                    .delete();
            cluster.close();
        }
    }

    private static void apply(String yaml) {
        cluster.admin.resource(Serialization.unmarshal(yaml, GenericKubernetesResource.class)).serverSideApply();
    }

    /** The Workload Kueue made for a job (labelled with the job's uid), or null before it exists. */
    private static GenericKubernetesResource workloadOf(TrainJob job) {
        return cluster.admin.genericKubernetesResources(WORKLOADS).inNamespace(cluster.namespace)
                .withLabel(GROUP + "/job-uid", job.getMetadata().getUid()).list().getItems().stream().findFirst()
                .orElse(null);
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> condition(GenericKubernetesResource workload, String type) {
        Object status = workload == null ? null : workload.getAdditionalProperties().get("status");
        List<Map<String, Object>> conditions = status == null ? List.of()
                : (List<Map<String, Object>>) ((Map<String, Object>) status).getOrDefault("conditions", List.of());
        return conditions.stream().filter(c -> type.equals(c.get("type"))).findFirst().orElse(null);
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
        Eventually.await(Duration.ofSeconds(60), () -> condition(workloadOf(queued), "QuotaReserved") != null,
                () -> "no Workload for " + queued.getMetadata().getName() + ": " + workloadOf(queued));
        Map<String, Object> reserved = condition(workloadOf(queued), "QuotaReserved");
        assertEquals("False", reserved.get("status"), String.valueOf(reserved));
        assertEquals("Pending", reserved.get("reason"));
        assertEquals(true, cluster.admin.resources(TrainJob.class).inNamespace(cluster.namespace)
                .withName(queued.getMetadata().getName()).get().getSpec().suspend());

        cluster.then("kubeflow-trainer:delete", first);
        Exchange done = cluster.then("kubeflow-trainer:wait?waitFor=Complete&waitTimeout=120s", second);
        assertEquals("Complete", done.getMessage().getHeader(KubeflowTrainerConstants.STATUS));
        assertEquals("True", condition(workloadOf(queued), "Admitted").get("status"));
    }

    @Test
    @Timeout(120)
    void thePriorityClassReachesTheWorkload() throws Exception {
        Exchange trained = cluster.request(ONE_CPU_JOB.replace("time.sleep(8)", "print(1)")
                + "&priorityClass=kueueit-high", null);
        TrainJob job = body(trained);
        assertEquals("kueueit-high", job.getMetadata().getLabels().get(GROUP + "/priority-class"));
        Eventually.await(Duration.ofSeconds(60), () -> workloadOf(job) != null, () -> "no Workload");
        @SuppressWarnings("unchecked")
        Map<String, Object> spec = (Map<String, Object>) workloadOf(job).getAdditionalProperties().get("spec");
        assertEquals(1000, ((Number) spec.get("priority")).intValue(), String.valueOf(spec));
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
        assertEquals(body(first).getMetadata().getUid(), body(again).getMetadata().getUid());
    }
}
