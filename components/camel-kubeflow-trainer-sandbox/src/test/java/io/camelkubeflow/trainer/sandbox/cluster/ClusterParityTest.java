package io.camelkubeflow.trainer.sandbox.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.camelkubeflow.trainer.sandbox.AdminRequests;
import io.camelkubeflow.trainer.sandbox.Eventually;
import io.camelkubeflow.trainer.sandbox.TrainerSandbox;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceList;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ResourceRequirementsBuilder;
import io.fabric8.kubernetes.api.model.Status;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.MixedOperation;
import io.fabric8.kubernetes.client.dsl.Resource;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.IOException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * What e2e's DifferentialIT found the sandbox answering otherwise than kube-apiserver 1.36 with the Trainer v2.3.0
 * controller, JobSet and the Job controller, and now answers as they do: each expectation here is what the real control
 * plane answered to the same request.
 */
class ClusterParityTest {
    private static TrainerSandbox sandbox;

    @BeforeAll
    static void start() {
        sandbox = TrainerSandbox.start(
                TrainerSandbox.Options.defaults().withController(Duration.ofMillis(50), Duration.ofSeconds(30)));
    }

    @AfterAll
    static void stop() {
        sandbox.close();
    }

    private static MixedOperation<
                    GenericKubernetesResource, GenericKubernetesResourceList, Resource<GenericKubernetesResource>>
            trainJobs() {
        return sandbox.client().genericKubernetesResources("trainer.kubeflow.org/v1alpha1", "TrainJob");
    }

    private static GenericKubernetesResource job(String name, String specFields) {
        return Serialization.unmarshal("""
                {"apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "TrainJob",
                 "metadata": {"name": "%s", "namespace": "default"},
                 "spec": {"runtimeRef": {"name": "torch-distributed"}, %s}}""".formatted(name, specFields), GenericKubernetesResource.class);
    }

    private static HttpResponse<String> send(String method, String path, String contentType, String body) {
        try {
            HttpRequest.Builder request = AdminRequests.request(sandbox, path)
                    .method(
                            method,
                            body == null
                                    ? HttpRequest.BodyPublishers.noBody()
                                    : HttpRequest.BodyPublishers.ofString(body));
            if (contentType != null) {
                request.header("Content-Type", contentType);
            }
            return AdminRequests.client(sandbox).send(request.build(), HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new IllegalStateException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static Status status(String json) {
        return Serialization.unmarshal(json, Status.class);
    }

    @Test
    void aTakenNameIsAlreadyExistsNamingTheResourceAndAStaleWriteAConflict() {
        trainJobs()
                .inNamespace("default")
                .resource(job("taken", "\"suspend\": true"))
                .create();
        var duplicate = assertThrows(
                KubernetesClientException.class,
                () -> trainJobs()
                        .inNamespace("default")
                        .resource(job("taken", "\"suspend\": true"))
                        .create());
        assertEquals(409, duplicate.getCode());
        assertEquals("AlreadyExists", duplicate.getStatus().getReason());
        assertEquals(
                "trainjobs.trainer.kubeflow.org \"taken\" already exists",
                duplicate.getStatus().getMessage());
        assertEquals("trainer.kubeflow.org", duplicate.getStatus().getDetails().getGroup());
        assertEquals("trainjobs", duplicate.getStatus().getDetails().getKind());
        assertEquals("taken", duplicate.getStatus().getDetails().getName());

        GenericKubernetesResource stale =
                trainJobs().inNamespace("default").withName("taken").get();
        // a merge patch names no resourceVersion: the controller's status writes do not race it
        trainJobs()
                .inNamespace("default")
                .withName("taken")
                .patch(PatchContext.of(PatchType.JSON_MERGE), "{\"metadata\": {\"labels\": {\"edited\": \"first\"}}}");
        stale.getMetadata().setLabels(Map.of("edited", "stale"));
        var conflict = assertThrows(
                KubernetesClientException.class,
                () -> trainJobs().inNamespace("default").resource(stale).update());
        assertEquals(409, conflict.getCode());
        assertEquals("Conflict", conflict.getStatus().getReason());
        assertEquals(
                "Operation cannot be fulfilled on trainjobs.trainer.kubeflow.org \"taken\": the object has been"
                        + " modified; please apply your changes to the latest version and try again",
                conflict.getStatus().getMessage());

        sandbox.client()
                .configMaps()
                .inNamespace("default")
                .resource(new ConfigMapBuilder()
                        .withNewMetadata()
                        .withName("taken")
                        .endMetadata()
                        .build())
                .create();
        var core = assertThrows(
                KubernetesClientException.class,
                () -> sandbox.client()
                        .configMaps()
                        .inNamespace("default")
                        .resource(new ConfigMapBuilder()
                                .withNewMetadata()
                                .withName("taken")
                                .endMetadata()
                                .build())
                        .create());
        assertEquals("configmaps \"taken\" already exists", core.getStatus().getMessage());
        assertNull(core.getStatus().getDetails().getGroup(), "the core group is named by no group");
    }

    @Test
    void aMissingObjectIsNotFoundByItsResourceAndName() {
        Status missing =
                status(send("GET", "apis/trainer.kubeflow.org/v1alpha1/namespaces/default/trainjobs/none", null, null)
                        .body());
        assertEquals(404, missing.getCode());
        assertEquals("NotFound", missing.getReason());
        assertEquals("trainjobs.trainer.kubeflow.org \"none\" not found", missing.getMessage());
        assertEquals("trainjobs", missing.getDetails().getKind());
        assertEquals("none", missing.getDetails().getName());
        Status noPod = status(send("GET", "api/v1/namespaces/default/pods/none/log", null, null)
                .body());
        assertEquals("pods \"none\" not found", noPod.getMessage());
        assertEquals("pods", noPod.getDetails().getKind());
    }

    @Test
    void aDeleteAnswersAStatusUnlessTheKindReturnsTheDeletedObject() {
        ConfigMap created = sandbox.client()
                .configMaps()
                .inNamespace("default")
                .resource(new ConfigMapBuilder()
                        .withNewMetadata()
                        .withName("deleted")
                        .endMetadata()
                        .build())
                .create();
        Status deleted = status(send("DELETE", "api/v1/namespaces/default/configmaps/deleted", null, null)
                .body());
        assertEquals("Success", deleted.getStatus());
        assertEquals("configmaps", deleted.getDetails().getKind());
        assertEquals(created.getMetadata().getUid(), deleted.getDetails().getUid());
        sandbox.createNamespace("deleted");
        String namespace =
                send("DELETE", "api/v1/namespaces/deleted", null, null).body();
        assertEquals(
                "Namespace",
                Serialization.unmarshal(namespace, GenericKubernetesResource.class)
                        .getKind());
    }

    @Test
    void aBodyThatIsNotJsonIsABadRequestNamingTheKindExpected() {
        HttpResponse<String> answer =
                send("POST", "api/v1/namespaces/default/configmaps", "application/json", "{not json");
        assertEquals(400, answer.statusCode());
        Status refused = status(answer.body());
        assertEquals("BadRequest", refused.getReason());
        assertTrue(
                refused.getMessage()
                        .startsWith("the object provided is unrecognized (must be of type ConfigMap):"
                                + " couldn't get version/kind; json parse error: "),
                refused.getMessage());
        assertTrue(refused.getMessage().endsWith(" ({not json)"), refused.getMessage());
    }

    @Test
    void onlyKindsWithATrackedSpecHaveAGeneration() {
        ConfigMap configMap = sandbox.client()
                .configMaps()
                .inNamespace("default")
                .resource(new ConfigMapBuilder()
                        .withNewMetadata()
                        .withName("generationless")
                        .endMetadata()
                        .addToData("a", "1")
                        .build())
                .create();
        assertNull(configMap.getMetadata().getGeneration());
        configMap.getData().put("a", "2");
        assertNull(sandbox.client()
                .configMaps()
                .inNamespace("default")
                .resource(configMap)
                .update()
                .getMetadata()
                .getGeneration());
        assertNull(sandbox.client()
                .configMaps()
                .inNamespace("default")
                .withName("generationless")
                .get()
                .getMetadata()
                .getGeneration());
        assertEquals(
                1L,
                trainJobs()
                        .inNamespace("default")
                        .resource(job("generational", "\"suspend\": true"))
                        .create()
                        .getMetadata()
                        .getGeneration());
    }

    @Test
    void aNamespaceIsStoredAsTheNamespaceStrategyMakesIt() {
        var created = Serialization.unmarshal(
                send(
                                "POST",
                                "api/v1/namespaces",
                                "application/json",
                                "{\"apiVersion\": \"v1\", \"kind\": \"Namespace\", \"metadata\": {\"name\": \"strategy\"}}")
                        .body(),
                Namespace.class);
        assertEquals(
                Map.of("kubernetes.io/metadata.name", "strategy"),
                created.getMetadata().getLabels());
        assertEquals(List.of("kubernetes"), created.getSpec().getFinalizers());
        assertEquals("Active", created.getStatus().getPhase());
    }

    @Test
    @SuppressWarnings("unchecked")
    void aSuspendedJobHasItsJobSetSuspendedAndItsJobsCountedSuspended() {
        trainJobs()
                .inNamespace("default")
                .resource(job("suspended", "\"suspend\": true"))
                .create();
        var jobSets = sandbox.client()
                .genericKubernetesResources("jobset.x-k8s.io/v1alpha2", "JobSet")
                .inNamespace("default")
                .withName("suspended");
        Eventually.until(() -> jobSets.get() != null
                && String.valueOf(trainJobs()
                                .inNamespace("default")
                                .withName("suspended")
                                .get()
                                .getAdditionalProperties()
                                .get("status"))
                        .contains("jobsStatus"));
        assertEquals(true, ((Map<?, ?>) jobSets.get().getAdditionalProperties().get("spec")).get("suspend"));
        Map<?, ?> status = (Map<?, ?>) trainJobs()
                .inNamespace("default")
                .withName("suspended")
                .get()
                .getAdditionalProperties()
                .get("status");
        assertEquals(
                List.of(Map.of("name", "node", "active", 0, "ready", 0, "succeeded", 0, "failed", 0, "suspended", 1)),
                status.get("jobsStatus"));
        assertTrue(pods("suspended").isEmpty(), "a suspended job has no pods");

        trainJobs().inNamespace("default").withName("suspended").edit(job -> {
            ((Map<String, Object>) job.getAdditionalProperties().get("spec")).put("suspend", false);
            return job;
        });
        Eventually.until(() -> !pods("suspended").isEmpty());
        assertEquals(
                false,
                ((Map<?, ?>) jobSets.get().getAdditionalProperties().get("spec")).get("suspend"),
                "resumed, the JobSet goes on");
    }

    @Test
    void theOpenApiV2DocumentIsServedInJsonAndRefusedInOtherTypesAsKubeApiserverDoes() throws Exception {
        HttpResponse<String> json = accepting("application/json");
        assertEquals(200, json.statusCode());
        var document = Serialization.jsonMapper().readTree(json.body());
        assertEquals("2.0", document.path("swagger").asText());
        var trainJob = document.path("definitions").path("org.kubeflow.trainer.v1alpha1.TrainJob");
        assertEquals(
                "TrainJob",
                trainJob.path("x-kubernetes-group-version-kind")
                        .path(0)
                        .path("kind")
                        .asText());
        assertTrue(trainJob.path("properties").path("spec").path("properties").has("runtimeRef"), "the CRD's schema");
        var create = document.path("paths")
                .path("/apis/trainer.kubeflow.org/v1alpha1/namespaces/{namespace}/trainjobs")
                .path("post");
        assertEquals(
                "#/definitions/org.kubeflow.trainer.v1alpha1.TrainJob",
                create.path("parameters").findValue("$ref").asText(),
                "a write's body is a parameter of the kind's definition");
        assertTrue(document.path("definitions").has("io.k8s.api.core.v1.ConfigMap"), "the built-in kinds too");
        assertEquals(200, accepting("*/*").statusCode());
        // kube-apiserver 1.36 answers these 406 with no body
        HttpResponse<String> yaml = accepting("application/yaml");
        assertEquals(406, yaml.statusCode());
        assertEquals("", yaml.body());
        assertEquals(406, accepting("text/html").statusCode());
    }

    private static HttpResponse<String> accepting(String type) throws Exception {
        return AdminRequests.client(sandbox)
                .send(
                        AdminRequests.request(sandbox, "openapi/v2")
                                .header("Accept", type)
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void aContainerThatHasNotStartedRefusesItsLogAsAKubeletDoes() {
        // the pod mounts a ConfigMap nobody made yet: scheduled, it waits for it
        trainJobs().inNamespace("default").resource(job("waiting", """
                "trainer": {"numNodes": 1},
                "runtimePatches": [{"manager": "example.com/test", "trainingRuntimeSpec": {"template": {"spec":
                  {"replicatedJobs": [{"name": "node", "template": {"spec": {"template": {"spec": {
                    "volumes": [{"name": "late", "configMap": {"name": "late"}}],
                    "containers": [{"name": "node", "volumeMounts": [{"name": "late", "mountPath": "/late"}]}]
                  }}}}}]}}}}]""")).create();
        Eventually.until(() -> !pods("waiting").isEmpty());
        String pod = pods("waiting").get(0).getMetadata().getName();
        HttpResponse<String> waiting = send("GET", "api/v1/namespaces/default/pods/" + pod + "/log", null, null);
        assertEquals(400, waiting.statusCode());
        assertEquals(
                "container \"node\" in pod \"" + pod + "\" is waiting to start: ContainerCreating",
                status(waiting.body()).getMessage());
        assertEquals(
                400,
                send("GET", "api/v1/namespaces/default/pods/" + pod + "/log?follow=true", null, null)
                        .statusCode(),
                "a follow is refused alike");
        sandbox.client()
                .configMaps()
                .inNamespace("default")
                .resource(new ConfigMapBuilder()
                        .withNewMetadata()
                        .withName("late")
                        .endMetadata()
                        .build())
                .create();
        Eventually.until(
                () -> "Running".equals(pods("waiting").get(0).getStatus().getPhase()));
        assertEquals(
                200,
                send("GET", "api/v1/namespaces/default/pods/" + pod + "/log", null, null)
                        .statusCode());
    }

    private static List<Pod> pods(String job) {
        return sandbox.client()
                .pods()
                .inNamespace("default")
                .withLabel("jobset.sigs.k8s.io/jobset-name", job)
                .list()
                .getItems();
    }

    @Test
    void podsOfAnIndexedJobGetTheirCompletionIndexAndVersionedFieldReferences() {
        trainJobs()
                .inNamespace("default")
                .resource(job("indexed", "\"trainer\": {\"numNodes\": 1}"))
                .create();
        Eventually.until(() -> !pods("indexed").isEmpty());
        List<EnvVar> env =
                pods("indexed").get(0).getSpec().getContainers().get(0).getEnv();
        EnvVar index = env.stream()
                .filter(var -> var.getName().equals("JOB_COMPLETION_INDEX"))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no JOB_COMPLETION_INDEX in " + env));
        assertEquals(
                "metadata.labels['batch.kubernetes.io/job-completion-index']",
                index.getValueFrom().getFieldRef().getFieldPath());
        assertFalse(
                env.stream()
                        .anyMatch(var -> var.getValueFrom() != null
                                && var.getValueFrom().getFieldRef() != null
                                && var.getValueFrom().getFieldRef().getApiVersion() == null),
                "a field reference without a version");
        assertEquals(
                "1",
                env.stream()
                        .filter(var -> var.getName().equals("PET_NPROC_PER_NODE"))
                        .findFirst()
                        .orElseThrow()
                        .getValue(),
                "no GPU, no CPU asked for: one process");
    }

    @Test
    void processesPerNodeFollowTheGpusElseTheCpusOfTheNode() {
        assertEquals("1", PodRendering.processesPerNode(null));
        assertEquals(
                "3",
                PodRendering.processesPerNode(new ResourceRequirementsBuilder()
                        .addToRequests("cpu", new Quantity("2500m"))
                        .build()),
                "CPUs requested, rounded up");
        assertEquals(
                "4",
                PodRendering.processesPerNode(new ResourceRequirementsBuilder()
                        .addToLimits("cpu", new Quantity("4"))
                        .build()),
                "CPUs limited to, without a request");
        assertEquals(
                "auto",
                PodRendering.processesPerNode(new ResourceRequirementsBuilder()
                        .addToLimits("nvidia.com/gpu", new Quantity("2"))
                        .addToRequests("cpu", new Quantity("8"))
                        .build()));
    }
}
