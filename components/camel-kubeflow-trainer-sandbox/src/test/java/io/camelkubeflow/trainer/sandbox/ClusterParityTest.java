package io.camelkubeflow.trainer.sandbox;

import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Status;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.utils.Serialization;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What e2e's DifferentialIT found the sandbox answering otherwise than kube-apiserver 1.36 with the Trainer v2.3.0
 * controller, JobSet and the Job controller, and now answers as they do: each expectation here is what the real control
 * plane answered to the same request.
 */
class ClusterParityTest {
    private static TrainerSandbox sandbox;

    @BeforeAll
    static void start() {
        sandbox = TrainerSandbox.start(TrainerSandbox.Options.defaults()
                .withController(Duration.ofMillis(50), Duration.ofSeconds(30)));
    }

    @AfterAll
    static void stop() {
        sandbox.close();
    }

    private static io.fabric8.kubernetes.client.dsl.MixedOperation<GenericKubernetesResource,
            io.fabric8.kubernetes.api.model.GenericKubernetesResourceList,
            io.fabric8.kubernetes.client.dsl.Resource<GenericKubernetesResource>> trainJobs() {
        return sandbox.client().genericKubernetesResources("trainer.kubeflow.org/v1alpha1", "TrainJob");
    }

    private static GenericKubernetesResource job(String name, String specFields) {
        return Serialization.unmarshal("""
                {"apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "TrainJob",
                 "metadata": {"name": "%s", "namespace": "default"},
                 "spec": {"runtimeRef": {"name": "torch-distributed"}, %s}}""".formatted(name, specFields),
                GenericKubernetesResource.class);
    }

    private static HttpResponse<String> send(String method, String path, String contentType, String body) {
        try {
            HttpRequest.Builder request = AdminRequests.request(sandbox, path).method(method,
                    body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
            if (contentType != null) {
                request.header("Content-Type", contentType);
            }
            return AdminRequests.client(sandbox).send(request.build(), HttpResponse.BodyHandlers.ofString());
        } catch (java.io.IOException e) {
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
        trainJobs().inNamespace("default").resource(job("taken", "\"suspend\": true")).create();
        var duplicate = assertThrows(KubernetesClientException.class,
                () -> trainJobs().inNamespace("default").resource(job("taken", "\"suspend\": true")).create());
        assertEquals(409, duplicate.getCode());
        assertEquals("AlreadyExists", duplicate.getStatus().getReason());
        assertEquals("trainjobs.trainer.kubeflow.org \"taken\" already exists", duplicate.getStatus().getMessage());
        assertEquals("trainer.kubeflow.org", duplicate.getStatus().getDetails().getGroup());
        assertEquals("trainjobs", duplicate.getStatus().getDetails().getKind());
        assertEquals("taken", duplicate.getStatus().getDetails().getName());

        GenericKubernetesResource stale = trainJobs().inNamespace("default").withName("taken").get();
        trainJobs().inNamespace("default").withName("taken").edit(job -> {
            job.getMetadata().setLabels(Map.of("edited", "first"));
            return job;
        });
        stale.getMetadata().setLabels(Map.of("edited", "stale"));
        var conflict = assertThrows(KubernetesClientException.class,
                () -> trainJobs().inNamespace("default").resource(stale).update());
        assertEquals(409, conflict.getCode());
        assertEquals("Conflict", conflict.getStatus().getReason());
        assertEquals("Operation cannot be fulfilled on trainjobs.trainer.kubeflow.org \"taken\": the object has been"
                + " modified; please apply your changes to the latest version and try again",
                conflict.getStatus().getMessage());

        sandbox.client().configMaps().inNamespace("default").resource(new ConfigMapBuilder().withNewMetadata()
                .withName("taken").endMetadata().build()).create();
        var core = assertThrows(KubernetesClientException.class, () -> sandbox.client().configMaps()
                .inNamespace("default").resource(new ConfigMapBuilder().withNewMetadata().withName("taken")
                        .endMetadata().build()).create());
        assertEquals("configmaps \"taken\" already exists", core.getStatus().getMessage());
        assertNull(core.getStatus().getDetails().getGroup(), "the core group is named by no group");
    }

    @Test
    void aMissingObjectIsNotFoundByItsResourceAndName() {
        Status missing = status(send("GET", "apis/trainer.kubeflow.org/v1alpha1/namespaces/default/trainjobs/none",
                null, null).body());
        assertEquals(404, missing.getCode());
        assertEquals("NotFound", missing.getReason());
        assertEquals("trainjobs.trainer.kubeflow.org \"none\" not found", missing.getMessage());
        assertEquals("trainjobs", missing.getDetails().getKind());
        assertEquals("none", missing.getDetails().getName());
    }

    @Test
    void aDeleteAnswersAStatusUnlessTheKindReturnsTheDeletedObject() {
        ConfigMap created = sandbox.client().configMaps().inNamespace("default").resource(new ConfigMapBuilder()
                .withNewMetadata().withName("deleted").endMetadata().build()).create();
        Status deleted = status(send("DELETE", "api/v1/namespaces/default/configmaps/deleted", null, null).body());
        assertEquals("Success", deleted.getStatus());
        assertEquals("configmaps", deleted.getDetails().getKind());
        assertEquals(created.getMetadata().getUid(), deleted.getDetails().getUid());
        sandbox.createNamespace("deleted");
        String namespace = send("DELETE", "api/v1/namespaces/deleted", null, null).body();
        assertEquals("Namespace", Serialization.unmarshal(namespace, GenericKubernetesResource.class).getKind());
    }

    @Test
    void aBodyThatIsNotJsonIsABadRequestNamingTheKindExpected() {
        HttpResponse<String> answer = send("POST", "api/v1/namespaces/default/configmaps", "application/json",
                "{not json");
        assertEquals(400, answer.statusCode());
        Status refused = status(answer.body());
        assertEquals("BadRequest", refused.getReason());
        assertTrue(refused.getMessage().startsWith("the object provided is unrecognized (must be of type ConfigMap):"
                + " couldn't get version/kind; json parse error: "), refused.getMessage());
        assertTrue(refused.getMessage().endsWith(" ({not json)"), refused.getMessage());
    }

    @Test
    void onlyKindsWithATrackedSpecHaveAGeneration() {
        ConfigMap configMap = sandbox.client().configMaps().inNamespace("default").resource(new ConfigMapBuilder()
                .withNewMetadata().withName("generationless").endMetadata().addToData("a", "1").build()).create();
        assertNull(configMap.getMetadata().getGeneration());
        configMap.getData().put("a", "2");
        assertNull(sandbox.client().configMaps().inNamespace("default").resource(configMap).update().getMetadata()
                .getGeneration());
        assertNull(sandbox.client().configMaps().inNamespace("default").withName("generationless").get()
                .getMetadata().getGeneration());
        assertEquals(1L, trainJobs().inNamespace("default").resource(job("generational", "\"suspend\": true"))
                .create().getMetadata().getGeneration());
    }

    @Test
    void theOpenApiV2DocumentIsNotServedFromTheStore() {
        assertEquals(404, send("GET", "openapi/v2", null, null).statusCode());
    }
}
