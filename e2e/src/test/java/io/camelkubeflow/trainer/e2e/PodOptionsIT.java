package io.camelkubeflow.trainer.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.camelkubeflow.trainer.api.TrainJob;
import io.camelkubeflow.trainer.sandbox.TrainerSandbox;
import io.camelkubeflow.trainer.support.InvalidOptionException;
import io.camelkubeflow.trainer.testing.Eventually;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.ServiceAccountBuilder;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.camel.Exchange;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Pod options on the real control plane: the Trainer's webhook admits the component's one runtime patch (an inline
 * script and the pod options of the same replicated job), the Trainer and JobSet render every option into the pods,
 * the node agent mounts the ConfigMap and runs the code as the ServiceAccount and user asked for, and the training
 * code reads them; the in-process sandbox renders the same pod specs; a job the runtime lacks is refused with nothing
 * written.
 */
class PodOptionsIT {
    /** Node labels the node agent registers its node with: the pods must still be scheduled. */
    private static final String OPTIONS = "&nodeSelector.kubernetes.io/os=linux&nodeAffinity=kubernetes.io/arch=amd64"
            + "&tolerations=nvidia.com/gpu=present:NoSchedule&serviceAccountName=trainer&imagePullSecrets=registry-pull"
            + "&volumes=configMap:settings:/etc/settings:ro,emptyDir:scratch:/scratch"
            + "&podSecurityContext.runAsGroup=1000&securityContext.runAsUser=1000"
            + "&securityContext.allowPrivilegeEscalation=false&securityContext.dropCapabilities=ALL";

    private static RealCluster cluster;

    @BeforeAll
    static void start() throws Exception {
        cluster = RealCluster.start(PodOptionsIT.class);
        cluster.admin
                .configMaps()
                .inNamespace(cluster.namespace)
                .resource(new ConfigMapBuilder()
                        .withNewMetadata()
                        .withName("settings")
                        .endMetadata()
                        .addToData("greeting.txt", "hello from a configmap\n")
                        .build())
                .create();
        cluster.admin
                .serviceAccounts()
                .inNamespace(cluster.namespace)
                .resource(new ServiceAccountBuilder()
                        .withNewMetadata()
                        .withName("trainer")
                        .endMetadata()
                        .build())
                .create();
    }

    @AfterAll
    static void stop() {
        cluster.close();
    }

    @Test
    @Timeout(180)
    void theRealWebhookAdmitsThemThePodsCarryThemAndTheCodeSeesTheVolumeTheAccountAndTheUser() throws Exception {
        String script = String.join(
                "\n",
                "import base64, json, os",
                "token = open('/var/run/secrets/kubernetes.io/serviceaccount/token').read().split('.')[1]",
                "claims = json.loads(base64.urlsafe_b64decode(token + '=' * (-len(token) % 4)))",
                "print('greeting', open('/etc/settings/greeting.txt').read().strip(), 'as', claims['sub'],",
                "      'uid', os.getuid(), 'gid', os.getgid(), 'scratch', os.path.isdir('/scratch'))",
                "");
        Exchange trained = send(
                "kubeflow-trainer:train?runtime=torch-distributed&numNodes=2" + OPTIONS,
                Map.of("CamelKubeflowTrainerScript", script));
        String job = trained.getMessage().getHeader("CamelKubeflowTrainerJobName", String.class);
        Exchange logs = cluster.then("kubeflow-trainer:logs?follow=true&logStep=all", trained);
        Exchange done = cluster.then("kubeflow-trainer:wait?waitFor=Complete&waitTimeout=120s", trained);
        assertEquals("Complete", done.getMessage().getHeader("CamelKubeflowTrainerStatus"));
        String output = logs.getMessage().getBody(String.class);
        String seen = "greeting hello from a configmap as system:serviceaccount:" + cluster.namespace
                + ":trainer uid 1000 gid 1000 scratch True";
        assertEquals(2, output.lines().filter(line -> line.contains(seen)).count(), output);

        TrainJob stored = cluster.admin
                .resources(TrainJob.class)
                .inNamespace(cluster.namespace)
                .withName(job)
                .get();
        assertEquals(1, stored.getSpec().runtimePatches().size(), "the script and the pod options: one patch");
        assertEveryOption(jobSetPodSpec(cluster.admin, cluster.namespace, job, "node"));
        List<Pod> pods = cluster.admin
                .pods()
                .inNamespace(cluster.namespace)
                .withLabel("jobset.sigs.k8s.io/jobset-name", job)
                .list()
                .getItems();
        assertEquals(2, pods.size());
        pods.forEach(pod -> assertEveryOption(pod.getSpec()));
    }

    @Test
    @Timeout(120)
    void underMpiTheRealWebhookAdmitsThemInTheLauncherAndTheNodesAndTheSandboxRendersTheSame() throws Exception {
        Exchange trained = send(
                "kubeflow-trainer:train?runtime=deepspeed-distributed&suspend=true&pythonFile=/t.py" + OPTIONS,
                Map.of());
        String job = trained.getMessage().getHeader("CamelKubeflowTrainerJobName", String.class);
        for (String replicatedJob : List.of("launcher", "node")) {
            PodSpec spec = jobSetPodSpec(cluster.admin, cluster.namespace, job, replicatedJob);
            assertEveryOption(spec);
            // a strategic merge into the runtime's own pod security context: its fsGroup stays
            assertEquals(1000L, spec.getSecurityContext().getFsGroup(), replicatedJob);
        }

        // the TrainJob as stored, written unchanged into an in-process sandbox: the same pod options rendered
        TrainJob stored = cluster.admin
                .resources(TrainJob.class)
                .inNamespace(cluster.namespace)
                .withName(job)
                .get();
        GenericKubernetesResource copy =
                Serialization.unmarshal(Serialization.asJson(stored), GenericKubernetesResource.class);
        copy.getMetadata().setResourceVersion(null);
        copy.getMetadata().setUid(null);
        copy.getMetadata().setManagedFields(null);
        copy.getMetadata().setCreationTimestamp(null);
        copy.getAdditionalProperties().remove("status");
        try (TrainerSandbox sandbox = TrainerSandbox.start(
                TrainerSandbox.Options.defaults().withController(Duration.ofMillis(200), Duration.ofSeconds(60)))) {
            KubernetesClient emulated = sandbox.client();
            emulated.namespaces()
                    .resource(new NamespaceBuilder()
                            .withNewMetadata()
                            .withName(cluster.namespace)
                            .endMetadata()
                            .build())
                    .create();
            emulated.genericKubernetesResources("trainer.kubeflow.org/v1alpha1", "TrainJob")
                    .inNamespace(cluster.namespace)
                    .resource(copy)
                    .create();
            for (String replicatedJob : List.of("launcher", "node")) {
                assertEquals(
                        podOptions(jobSetPodSpec(cluster.admin, cluster.namespace, job, replicatedJob)),
                        podOptions(jobSetPodSpec(emulated, cluster.namespace, job, replicatedJob)),
                        "the pod options the real control plane and the sandbox render into " + replicatedJob);
            }
        }
    }

    @Test
    @Timeout(60)
    void aJobTheRuntimeLacksIsRefusedNamingItWithNothingWritten() throws Exception {
        long mark = cluster.auditMark();
        Exchange refused = cluster.template.request(
                "kubeflow-trainer:train?runtime=torch-distributed&pythonFile=/t.py"
                        + "&podJobs=launcher&nodeSelector.kubernetes.io/os=linux&namespace=" + cluster.namespace,
                e -> {});
        InvalidOptionException invalid = assertInstanceOf(InvalidOptionException.class, refused.getException());
        assertEquals("podJobs", invalid.getField());
        assertTrue(invalid.getMessage().contains("'launcher' is not a replicated job"), invalid.getMessage());
        assertEquals(List.of(), cluster.writesSince(mark, RealCluster.ADMIN_USER));
    }

    /** Sends to the train URI with these headers in the test's namespace, and fails on an exception. */
    private static Exchange send(String uri, Map<String, Object> headers) {
        Exchange exchange = cluster.template.request(
                uri + "&namespace=" + cluster.namespace, e -> e.getMessage().setHeaders(new HashMap<>(headers)));
        if (exchange.getException() != null) {
            throw new AssertionError(uri + " failed", exchange.getException());
        }
        return exchange;
    }

    private static void assertEveryOption(PodSpec spec) {
        assertEquals("linux", spec.getNodeSelector().get("kubernetes.io/os"));
        var requirement = spec.getAffinity()
                .getNodeAffinity()
                .getRequiredDuringSchedulingIgnoredDuringExecution()
                .getNodeSelectorTerms()
                .get(0)
                .getMatchExpressions()
                .get(0);
        assertEquals(
                "kubernetes.io/arch In [amd64]",
                requirement.getKey() + " " + requirement.getOperator() + " " + requirement.getValues());
        assertTrue(
                spec.getTolerations().stream()
                        .anyMatch(t -> "nvidia.com/gpu".equals(t.getKey())
                                && "present".equals(t.getValue())
                                && "NoSchedule".equals(t.getEffect())),
                spec.getTolerations().toString());
        assertEquals("trainer", spec.getServiceAccountName());
        assertEquals("registry-pull", spec.getImagePullSecrets().get(0).getName());
        assertEquals(1000L, spec.getSecurityContext().getRunAsGroup());
        assertTrue(
                spec.getVolumes().stream()
                        .anyMatch(v -> v.getConfigMap() != null
                                && "settings".equals(v.getConfigMap().getName())),
                spec.getVolumes().toString());
        Container node = spec.getContainers().stream()
                .filter(c -> c.getName().equals("node"))
                .findFirst()
                .orElseThrow();
        List<String> mounts =
                node.getVolumeMounts().stream().map(VolumeMount::getMountPath).toList();
        assertTrue(mounts.containsAll(List.of("/etc/settings", "/scratch")), mounts.toString());
        assertEquals(1000L, node.getSecurityContext().getRunAsUser());
        assertEquals(Boolean.FALSE, node.getSecurityContext().getAllowPrivilegeEscalation());
        assertEquals(List.of("ALL"), node.getSecurityContext().getCapabilities().getDrop());
    }

    /** The pod spec of one replicated job of the JobSet made for a TrainJob, once it exists. */
    private static PodSpec jobSetPodSpec(KubernetesClient client, String namespace, String job, String replicatedJob)
            throws InterruptedException {
        var jobSets = client.genericKubernetesResources("jobset.x-k8s.io/v1alpha2", "JobSet")
                .inNamespace(namespace)
                .withName(job);
        Eventually.await(Duration.ofSeconds(60), () -> jobSets.get() != null, () -> "no JobSet " + job);
        LaunchersIT.JobSet jobSet =
                Serialization.unmarshal(Serialization.asJson(jobSets.get()), LaunchersIT.JobSet.class);
        return jobSet.podSpec(replicatedJob);
    }

    /** What the pod options touch in a pod spec, normalized for comparison. */
    private static String podOptions(PodSpec spec) {
        JsonNode tree = Normalized.tree(Serialization.asJson(spec));
        ObjectNode kept = Serialization.jsonMapper().createObjectNode();
        for (String field : List.of(
                "nodeSelector",
                "affinity",
                "tolerations",
                "serviceAccountName",
                "imagePullSecrets",
                "securityContext",
                "volumes")) {
            if (tree.has(field)) {
                kept.set(field, tree.get(field));
            }
        }
        List<JsonNode> containers = new ArrayList<>();
        for (JsonNode container : tree.path("containers")) {
            ObjectNode c = Serialization.jsonMapper().createObjectNode();
            for (String field : List.of("name", "volumeMounts", "securityContext")) {
                if (container.has(field)) {
                    c.set(field, container.get(field));
                }
            }
            containers.add(c);
        }
        kept.putArray("containers").addAll(containers);
        return Normalized.text(kept);
    }
}
