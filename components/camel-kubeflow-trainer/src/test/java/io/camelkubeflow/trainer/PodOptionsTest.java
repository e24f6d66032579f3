package io.camelkubeflow.trainer;

import static io.camelkubeflow.trainer.KubeflowTrainerConstants.*;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.camelkubeflow.trainer.api.RuntimePatch;
import io.camelkubeflow.trainer.api.TrainJob;
import io.camelkubeflow.trainer.job.TrainJobMetadata;
import io.camelkubeflow.trainer.sandbox.cluster.TrainJobControllerEmulation;
import io.camelkubeflow.trainer.support.InvalidOptionException;
import io.camelkubeflow.trainer.testing.Eventually;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Toleration;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeMount;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.camel.Exchange;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Pod options: typed settings of the pods, in the component's one runtime patch, in the replicated jobs the runtime's
 * launcher runs code in (or those podJobs names); the TrainJob the CRD accepts and the pods the sandbox renders from
 * it carry each of them; a setting outside its form, or a job the runtime lacks, is refused before anything is written.
 */
class PodOptionsTest extends TrainerRouteTestSupport {
    private static final String TRAIN = "kubeflow-trainer:train?namespace=pods&pythonFile=/a.py";
    /** Every pod option, as endpoint options. */
    private static final String EVERY_OPTION = "&nodeSelector.accelerator=a100&tolerations=nvidia.com/gpu=present:"
            + "NoSchedule,spot&nodeAffinity=topology.kubernetes.io/zone=zone-a|zone-b,!maintenance"
            + "&volumes=pvc:datasets:/data:ro,configMap:settings:/etc/settings,secret:hf-token:/var/hf,"
            + "emptyDir:scratch:/scratch&serviceAccountName=trainer&imagePullSecrets=registry-pull"
            + "&podSecurityContext.runAsGroup=2000&podSecurityContext.seccompProfile=RuntimeDefault"
            + "&securityContext.runAsUser=1001&securityContext.allowPrivilegeEscalation=false"
            + "&securityContext.dropCapabilities=ALL";
    /** Keeps the emulated pods running while the test reads them. */
    private static final Map<String, Object> RUNNING =
            Map.of(ANNOTATIONS, Map.of(TrainJobControllerEmulation.RUN_MILLIS_ANNOTATION, "60000"));

    @Test
    void aTorchJobsNodePodsCarryEveryPodOptionBesideTheScriptInOnePatch() {
        Exchange trained = send(
                "kubeflow-trainer:train?namespace=pods&runtime=torch-distributed&numNodes=2" + EVERY_OPTION,
                null,
                Map.of(SCRIPT, "print('hi')", ANNOTATIONS, RUNNING.get(ANNOTATIONS)));
        TrainJob job = trainJob(trained);
        RuntimePatch patch = onlyPatch(job);
        assertEquals(List.of("node"), jobsPatched(patch), "torch runs the code in the node job only");
        assertEquals(Map.of("train.py", "print('hi')"), stagedScript(job), "the script is in the same patch");

        List<Pod> pods = pods(job, "node");
        assertEquals(2, pods.size());
        for (Pod pod : pods) {
            PodSpec spec = pod.getSpec();
            assertEquals("a100", spec.getNodeSelector().get("accelerator"));
            assertEquals(
                    List.of(
                            new Toleration("NoSchedule", "nvidia.com/gpu", "Equal", null, "present"),
                            new Toleration(null, "spot", "Exists", null, null)),
                    spec.getTolerations());
            var requirements = spec.getAffinity()
                    .getNodeAffinity()
                    .getRequiredDuringSchedulingIgnoredDuringExecution()
                    .getNodeSelectorTerms()
                    .get(0)
                    .getMatchExpressions();
            assertEquals(
                    "topology.kubernetes.io/zone In [zone-a, zone-b]",
                    requirements.get(0).getKey() + " " + requirements.get(0).getOperator() + " "
                            + requirements.get(0).getValues());
            assertEquals(
                    "maintenance DoesNotExist",
                    requirements.get(1).getKey() + " " + requirements.get(1).getOperator());
            assertEquals("trainer", spec.getServiceAccountName());
            assertEquals("registry-pull", spec.getImagePullSecrets().get(0).getName());
            assertEquals(2000L, spec.getSecurityContext().getRunAsGroup());
            assertEquals(
                    "RuntimeDefault",
                    spec.getSecurityContext().getSeccompProfile().getType());
            assertEquals(
                    "datasets",
                    volume(spec, "pvc-datasets").getPersistentVolumeClaim().getClaimName());
            assertEquals(
                    "settings",
                    volume(spec, "configmap-settings").getConfigMap().getName());
            assertEquals("hf-token", volume(spec, "secret-hf-token").getSecret().getSecretName());
            assertTrue(volume(spec, "emptydir-scratch").getEmptyDir() != null);
            Container node = spec.getContainers().stream()
                    .filter(c -> c.getName().equals("node"))
                    .findFirst()
                    .orElseThrow();
            assertEquals(
                    List.of("/opt/camel-kubeflow-trainer", "/data", "/etc/settings", "/var/hf", "/scratch"),
                    node.getVolumeMounts().stream()
                            .map(VolumeMount::getMountPath)
                            .toList());
            assertEquals(Boolean.TRUE, node.getVolumeMounts().get(1).getReadOnly(), "pvc:datasets:/data:ro");
            assertEquals(1001L, node.getSecurityContext().getRunAsUser());
            assertEquals(Boolean.FALSE, node.getSecurityContext().getAllowPrivilegeEscalation());
            assertEquals(
                    List.of("ALL"), node.getSecurityContext().getCapabilities().getDrop());
        }
    }

    @Test
    void underMpiTheOptionsGoToTheLauncherAndTheNodesItsMpirunReaches() {
        TrainJob job = trainJob(send(
                TRAIN + "&runtime=deepspeed-distributed&nodeSelector.accelerator=a100"
                        + "&podSecurityContext.runAsGroup=2000",
                null,
                RUNNING));
        assertEquals(
                List.of("launcher", "node"),
                jobsPatched(onlyPatch(job)).stream().sorted().toList());
        for (String replicatedJob : List.of("launcher", "node")) {
            for (Pod pod : pods(job, replicatedJob)) {
                assertEquals("a100", pod.getSpec().getNodeSelector().get("accelerator"), replicatedJob);
                // merged into the runtime's own pod security context (fsGroup 1000), as a strategic merge patch is
                assertEquals(2000L, pod.getSpec().getSecurityContext().getRunAsGroup(), replicatedJob);
                assertEquals(1000L, pod.getSpec().getSecurityContext().getFsGroup(), replicatedJob);
            }
        }
    }

    @Test
    void podJobsSendsTheOptionsToAnInitializerAndItsOwnContainer() {
        TrainJob job = trainJob(send(
                "kubeflow-trainer:train?namespace=pods&runtime=torchtune-llama3.2-1b"
                        + "&args=epochs=1&podJobs=dataset-initializer"
                        + "&volumes=pvc:hf-cache:/cache&tolerations=spot",
                null,
                Map.of()));
        RuntimePatch patch = onlyPatch(job);
        assertEquals(List.of("dataset-initializer"), jobsPatched(patch));
        RuntimePatch.PodSpecPatch pod = patch.podSpecs().get(0);
        assertEquals("dataset-initializer", pod.containers().get(0).name());
        assertEquals("/cache", pod.containers().get(0).volumeMounts().get(0).getMountPath());
        assertEquals("spot", pod.tolerations().get(0).getKey());
    }

    @Test
    void aJobTheRuntimeLacksIsRefusedNamingItAndTheJobsItHasBeforeAnyWrite() {
        Exchange refused = send(
                TRAIN + "&runtime=torch-distributed&podJobs=launcher&nodeSelector.accelerator=a100", null, Map.of());
        InvalidOptionException invalid = assertInstanceOf(InvalidOptionException.class, refused.getException());
        assertEquals("podJobs", invalid.getField());
        assertTrue(
                invalid.getMessage()
                                .contains("'launcher' is not a replicated job of ClusterTrainingRuntime"
                                        + " 'torch-distributed'")
                        && invalid.getMessage().contains("[node]"),
                invalid.getMessage());
        assertEquals(List.of(), api.writesSinceMark());
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(
            delimiter = ';',
            value = {
                "CamelKubeflowTrainerVolumes; hostPath:root:/host; hostPath volumes are never mounted",
                "CamelKubeflowTrainerVolumes; pvc:data:relative; give an absolute path",
                "CamelKubeflowTrainerVolumes; pvc:data:/opt/camel-kubeflow-trainer/x; where the component mounts",
                "CamelKubeflowTrainerVolumes; emptyDir:x:/mnt/camel-kubeflow-trainer/output; where the component mounts",
                "CamelKubeflowTrainerVolumes; emptyDir:x:/mnt; where the component mounts",
                "CamelKubeflowTrainerVolumes; emptyDir:a:/d,configMap:cfg:/d/; another volume of the request mounts at",
                "CamelKubeflowTrainerVolumes; pvc:datasets:/d,pvc:datasets:/e; another volume of the request names",
                "CamelKubeflowTrainerVolumes; pvc:Bad_Name:/data; is not a Kubernetes object name",
                "CamelKubeflowTrainerTolerations; gpu:Sometimes; has the effect 'Sometimes'",
                "CamelKubeflowTrainerNodeAffinity; zone=; is not a node requirement",
                "CamelKubeflowTrainerServiceAccountName; Admin; is not a Kubernetes object name",
                "CamelKubeflowTrainerPodJobs; Node; is not a replicated job's name"
            })
    void aSettingOutsideItsFormIsRefusedNamingTheHeaderBeforeAnyWrite(String header, String value, String reason) {
        Exchange refused = send(TRAIN + "&runtime=torch-distributed", null, Map.of(header, value));
        InvalidOptionException invalid = assertInstanceOf(InvalidOptionException.class, refused.getException());
        assertTrue(invalid.getMessage().contains(reason), invalid.getMessage());
        assertEquals(List.of(), api.writesSinceMark());
    }

    @Test
    void securitySettingsWithoutAFormAreRefusedByName() {
        Exchange privileged = send(
                TRAIN + "&runtime=torch-distributed", null, Map.of(SECURITY_CONTEXT, Map.of("privileged", "true")));
        InvalidOptionException invalid = assertInstanceOf(InvalidOptionException.class, privileged.getException());
        assertEquals(SECURITY_CONTEXT + ".privileged", invalid.getField());
        Exchange unconfined = send(
                TRAIN + "&runtime=torch-distributed",
                null,
                Map.of(POD_SECURITY_CONTEXT, Map.of("seccompProfile", "Unconfined")));
        assertTrue(assertInstanceOf(InvalidOptionException.class, unconfined.getException())
                .getMessage()
                .contains("give RuntimeDefault"));
        assertEquals(List.of(), api.writesSinceMark());
    }

    @Test
    void aRequestWithoutPodOptionsWritesNoPatchForThem() {
        TrainJob job = trainJob(send(TRAIN + "&runtime=torch-distributed&podJobs=node", null, Map.of()));
        assertNull(job.getSpec().runtimePatches());
    }

    private static RuntimePatch onlyPatch(TrainJob job) {
        assertEquals(
                1,
                job.getSpec().runtimePatches().size(),
                () -> String.valueOf(job.getSpec().runtimePatches()));
        RuntimePatch patch = job.getSpec().runtimePatches().get(0);
        assertEquals(TrainJobMetadata.PATCH_MANAGER, patch.manager());
        return patch;
    }

    private static List<String> jobsPatched(RuntimePatch patch) {
        return patch.trainingRuntimeSpec().template().spec().replicatedJobs().stream()
                .map(RuntimePatch.ReplicatedJobPatch::name)
                .toList();
    }

    private static Volume volume(PodSpec spec, String name) {
        return spec.getVolumes().stream()
                .filter(v -> v.getName().equals(name))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no volume " + name + " in " + spec.getVolumes()));
    }

    /** The pods the sandbox renders for one replicated job of a TrainJob, once they all exist. */
    private static List<Pod> pods(TrainJob job, String replicatedJob) {
        try {
            return awaitPods(job, replicatedJob);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    private static List<Pod> awaitPods(TrainJob job, String replicatedJob) throws InterruptedException {
        List<List<Pod>> found = new ArrayList<>(List.of(List.of()));
        Eventually.await(
                Duration.ofSeconds(20),
                () -> !(found.set(
                                        0,
                                        api.client()
                                                .pods()
                                                .inNamespace("pods")
                                                .withLabel(
                                                        "jobset.sigs.k8s.io/jobset-name",
                                                        job.getMetadata().getName())
                                                .withLabel("jobset.sigs.k8s.io/replicatedjob-name", replicatedJob)
                                                .list()
                                                .getItems()))
                                .isEmpty()
                        && found.get(0).size() >= expectedPods(job, replicatedJob),
                () -> "no pods of " + replicatedJob + " for "
                        + job.getMetadata().getName());
        return found.get(0);
    }

    private static int expectedPods(TrainJob job, String replicatedJob) {
        return "node".equals(replicatedJob)
                        && job.getSpec().trainer() != null
                        && job.getSpec().trainer().numNodes() != null
                ? job.getSpec().trainer().numNodes()
                : 1;
    }
}
