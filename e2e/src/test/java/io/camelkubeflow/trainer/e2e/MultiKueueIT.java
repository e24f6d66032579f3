package io.camelkubeflow.trainer.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.camelkubeflow.trainer.KubeflowTrainerConstants;
import io.camelkubeflow.trainer.api.TrainJob;
import io.camelkubeflow.trainer.job.KueueWorkloads;
import io.camelkubeflow.trainer.testing.Eventually;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.nio.file.Files;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import org.apache.camel.Exchange;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * MultiKueue on two control planes on one machine, set up as Kueue's docs set it up: the Kueue control plane (the
 * manager; KueueIT's) holds a ClusterQueue whose admission check is MultiKueue's, with one MultiKueueCluster, the
 * worker (a third control plane with the Trainer, JobSet and Kueue, started by the build), reached through a Secret
 * holding its kubeconfig. A TrainJob the component creates on the manager in that queue is defaulted by Kueue's webhook
 * to {@code managedBy: kueue.x-k8s.io/multikueue} (the manager's Trainer leaves it alone), dispatched to the worker,
 * runs there; the component's wait on the manager sees it end (MultiKueue copies the worker's status back), and its
 * logs are read from the worker's pods through a client of the worker's kubeconfig.
 */
class MultiKueueIT {
    private static final String GROUP = "kueue.x-k8s.io";
    private static final String NAME = "mkit";
    private static RealCluster manager;
    private static KubernetesClient worker;

    @BeforeAll
    static void start() throws Exception {
        manager = RealCluster.start(MultiKueueIT.class, RealCluster.kueueKubeconfig());
        worker = RealCluster.client(RealCluster.kueueWorkerKubeconfig());
        // the worker: the same namespace, a ClusterQueue with its quota and the same LocalQueue (as Kueue's docs ask)
        worker.namespaces()
                .resource(new NamespaceBuilder()
                        .withNewMetadata()
                        .withName(manager.namespace)
                        .endMetadata()
                        .build())
                .serverSideApply();
        Eventually.await(
                Duration.ofSeconds(30),
                () -> worker.serviceAccounts()
                                .inNamespace(manager.namespace)
                                .withName("default")
                                .get()
                        != null,
                () -> "no default service account on the worker");
        apply(worker, """
                {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ResourceFlavor", "metadata": {"name": "mkit"}}
                """);
        apply(worker, clusterQueue(null));
        apply(worker, localQueue());
        // the manager: the worker's kubeconfig in a Secret of Kueue's namespace, a MultiKueueCluster of it, a
        // MultiKueueConfig and an AdmissionCheck of MultiKueue's, and the ClusterQueue that has that check
        manager.admin
                .secrets()
                .inNamespace("kueue-system")
                .resource(new SecretBuilder()
                        .withNewMetadata()
                        .withName(NAME + "-worker")
                        .endMetadata()
                        .addToData(
                                "kubeconfig",
                                Base64.getEncoder()
                                        .encodeToString(Files.readAllBytes(RealCluster.kueueWorkerKubeconfig())))
                        .build())
                .serverSideApply();
        apply(manager.admin, """
                {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "MultiKueueCluster", "metadata": {"name": "mkit-worker"},
                 "spec": {"clusterSource": {"kubeConfig": {"locationType": "Secret", "location": "mkit-worker"}}}}
                """);
        apply(manager.admin, """
                {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "MultiKueueConfig", "metadata": {"name": "mkit"},
                 "spec": {"clusters": ["mkit-worker"]}}
                """);
        apply(manager.admin, """
                {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "AdmissionCheck", "metadata": {"name": "mkit"},
                 "spec": {"controllerName": "kueue.x-k8s.io/multikueue",
                          "parameters": {"apiGroup": "kueue.x-k8s.io", "kind": "MultiKueueConfig", "name": "mkit"}}}
                """);
        apply(manager.admin, """
                {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ResourceFlavor", "metadata": {"name": "mkit"}}
                """);
        apply(manager.admin, clusterQueue("mkit"));
        apply(manager.admin, localQueue());
        // MultiKueue has connected to the worker and the queue takes jobs
        Eventually.await(
                Duration.ofSeconds(120),
                () -> active(manager.admin, "MultiKueueCluster", null, "mkit-worker")
                        && active(manager.admin, "AdmissionCheck", null, NAME)
                        && active(manager.admin, "ClusterQueue", null, NAME),
                () -> "MultiKueue not active: "
                        + manager.admin
                                .genericKubernetesResources(GROUP + "/v1beta2", "MultiKueueCluster")
                                .withName("mkit-worker")
                                .get());
    }

    private static String clusterQueue(String admissionCheck) {
        return """
                {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ClusterQueue", "metadata": {"name": "mkit"},
                 "spec": {"namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": "%s"}},
                          %s
                          "resourceGroups": [{"coveredResources": ["cpu"], "flavors": [{"name": "mkit",
                              "resources": [{"name": "cpu", "nominalQuota": 4}]}]}]}}
                """.formatted(manager.namespace, admissionCheck == null ? "" : """
                "admissionChecksStrategy": {"admissionChecks": [{"name": "%s"}]},""".formatted(admissionCheck));
    }

    private static String localQueue() {
        return """
                {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "LocalQueue",
                 "metadata": {"name": "mk", "namespace": "%s"}, "spec": {"clusterQueue": "mkit"}}
                """.formatted(manager.namespace);
    }

    private static void apply(KubernetesClient client, String json) {
        client.resource(Serialization.unmarshal(json, GenericKubernetesResource.class))
                .serverSideApply();
    }

    /** Whether the Kueue object's Active condition is True. */
    private static boolean active(KubernetesClient client, String kind, String namespace, String name) {
        var resources = client.genericKubernetesResources(GROUP + "/v1beta2", kind);
        GenericKubernetesResource object = namespace == null
                ? resources.withName(name).get()
                : resources.inNamespace(namespace).withName(name).get();
        return KueueWorkloads.trueCondition(object, "Active").isPresent();
    }

    @AfterAll
    static void stop() {
        if (manager != null) {
            for (String kind : List.of(
                    "ClusterQueue", "AdmissionCheck", "MultiKueueConfig", "MultiKueueCluster", "ResourceFlavor")) {
                manager.admin
                        .genericKubernetesResources(GROUP + "/v1beta2", kind)
                        .withName(kind.equals("MultiKueueCluster") ? "mkit-worker" : NAME)
                        .delete();
            }
            manager.admin
                    .secrets()
                    .inNamespace("kueue-system")
                    .withName(NAME + "-worker")
                    .delete();
            manager.close();
        }
        if (worker != null) {
            worker.genericKubernetesResources(GROUP + "/v1beta2", "ClusterQueue")
                    .withName(NAME)
                    .delete();
            worker.genericKubernetesResources(GROUP + "/v1beta2", "ResourceFlavor")
                    .withName(NAME)
                    .delete();
            worker.close();
        }
    }

    @Test
    @Timeout(300)
    void aJobCreatedOnTheManagerRunsOnTheWorkerAndItsEndIsSeenOnTheManager() throws Exception {
        Exchange trained = manager.request(
                "kubeflow-trainer:train?runtime=torch-distributed&cpu=1&queue=mk"
                        + "&command=python3 -c \"import time; print('trained on the worker', flush=True); time.sleep(5)\"",
                null);
        TrainJob job = trained.getMessage().getBody(TrainJob.class);
        String name = job.getMetadata().getName();
        // Kueue's webhook gave the job to MultiKueue: the manager's Trainer does not run it
        assertEquals("kueue.x-k8s.io/multikueue", job.getSpec().managedBy(), "managedBy as the manager stored it");

        // dispatched: the worker has the same job, which its Trainer runs
        Eventually.await(
                Duration.ofSeconds(120),
                () -> worker.resources(TrainJob.class)
                                .inNamespace(manager.namespace)
                                .withName(name)
                                .get()
                        != null,
                () -> "not dispatched to the worker");
        // its log, read from the worker's pods while it runs, through a client of the worker's kubeconfig
        manager.camel.getRegistry().bind("worker", worker);
        Exchange log = manager.template.send(
                "kubeflow-trainer:logs?kubernetesClient=#worker&follow=true" + "&logStartTimeout=120s", trained.copy());
        assertNull(log.getException());
        assertTrue(
                log.getMessage().getBody(String.class).contains("trained on the worker"),
                log.getMessage().getBody(String.class));

        // the wait on the manager sees it end
        Exchange done = manager.then("kubeflow-trainer:wait?waitFor=Complete&waitTimeout=180s", trained);
        assertEquals("Complete", done.getMessage().getHeader(KubeflowTrainerConstants.STATUS));
        // and nothing of it ran on the manager
        assertEquals(
                List.of(),
                manager.admin.pods().inNamespace(manager.namespace).list().getItems().stream()
                        .map(pod -> pod.getMetadata().getName())
                        .toList(),
                "pods on the manager");
    }
}
