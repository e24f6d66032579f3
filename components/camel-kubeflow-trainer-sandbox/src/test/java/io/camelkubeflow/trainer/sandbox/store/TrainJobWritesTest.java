package io.camelkubeflow.trainer.sandbox.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.camelkubeflow.trainer.sandbox.AdminRequests;
import io.camelkubeflow.trainer.sandbox.TrainerSandbox;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceList;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.MixedOperation;
import io.fabric8.kubernetes.client.dsl.Resource;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Every write of a TrainJob is admitted as the API server admits it, whichever verb makes it: a PATCH is applied and
 * the object it makes checked against the CRD's schema and its transition rules (immutable fields), like a PUT; map
 * lists' keys are unique; labels and annotations are checked as for any object; a strategic merge patch, which custom
 * resources do not take, is 415. Nothing refused is stored.
 */
class TrainJobWritesTest {
    private static TrainerSandbox sandbox;
    private static MixedOperation<
                    GenericKubernetesResource, GenericKubernetesResourceList, Resource<GenericKubernetesResource>>
            trainJobs;

    @BeforeAll
    static void start() {
        sandbox = TrainerSandbox.start(TrainerSandbox.Options.defaults());
        trainJobs = sandbox.client().genericKubernetesResources("trainer.kubeflow.org/v1alpha1", "TrainJob");
    }

    @AfterAll
    static void stop() {
        sandbox.close();
    }

    private static GenericKubernetesResource create(String name, String metadata, String trainer) {
        return trainJobs
                .inNamespace("default")
                .resource(Serialization.unmarshal(
                        """
                apiVersion: trainer.kubeflow.org/v1alpha1
                kind: TrainJob
                metadata: {name: %s, namespace: default%s}
                spec:
                  runtimeRef: {name: torch-distributed}
                  trainer: %s
                """.formatted(name, metadata, trainer), GenericKubernetesResource.class))
                .create();
    }

    private static KubernetesClientException refusedPatch(String name, PatchType type, String patch) {
        String before = Serialization.asJson(
                trainJobs.inNamespace("default").withName(name).get());
        KubernetesClientException refused = assertThrows(
                KubernetesClientException.class,
                () -> trainJobs.inNamespace("default").withName(name).patch(PatchContext.of(type), patch));
        assertEquals(
                before,
                Serialization.asJson(
                        trainJobs.inNamespace("default").withName(name).get()),
                "a refused patch changed the stored TrainJob");
        return refused;
    }

    @Test
    void aPatchThatBreaksTheSchemaIsRefusedAsAnUpdateWouldBe() {
        create("schema-patch", "", "{numNodes: 1}");
        KubernetesClientException refused = refusedPatch(
                "schema-patch", PatchType.JSON_MERGE, "{\"spec\": {\"trainer\": {\"numNodes\": \"two\"}}}");
        assertEquals(422, refused.getCode());
        assertTrue(refused.getMessage().contains("spec.trainer.numNodes: must be integer"), refused.getMessage());
        refused = refusedPatch(
                "schema-patch", PatchType.JSON, "[{\"op\": \"add\", \"path\": \"/spec/nonsense\", \"value\": 1}]");
        assertEquals(422, refused.getCode());
    }

    @Test
    void immutableFieldsCannotBeChangedByAPatchOrAPut() {
        create("immutable", "", "{numNodes: 1}");
        KubernetesClientException refused = refusedPatch(
                "immutable",
                PatchType.JSON_MERGE,
                "{\"spec\": {\"runtimeRef\": {\"name\": \"deepspeed-distributed\"}}}");
        assertEquals(422, refused.getCode());
        assertTrue(refused.getMessage().contains("spec.runtimeRef: field is immutable"), refused.getMessage());
        GenericKubernetesResource changed =
                trainJobs.inNamespace("default").withName("immutable").get();
        ((Map<String, Object>)
                        ((Map<String, Object>) changed.getAdditionalProperties().get("spec")).get("trainer"))
                .put("numNodes", 3);
        KubernetesClientException put = assertThrows(
                KubernetesClientException.class,
                () -> trainJobs.inNamespace("default").resource(changed).update());
        assertTrue(put.getMessage().contains("spec.trainer: field is immutable"), put.getMessage());
        // suspend is not immutable: the patch the component sends for suspend goes through
        trainJobs
                .inNamespace("default")
                .withName("immutable")
                .patch(PatchContext.of(PatchType.JSON_MERGE), "{\"spec\": {\"suspend\": true}}");
        assertEquals(
                true,
                ((Map<?, ?>) trainJobs
                                .inNamespace("default")
                                .withName("immutable")
                                .get()
                                .getAdditionalProperties()
                                .get("spec"))
                        .get("suspend"));
    }

    /** The status subresource is the segment after the name: a "/status" in the query is admitted as a main write. */
    @Test
    void aStatusInTheQueryIsNoStatusWrite() throws Exception {
        create("probe", "", "{numNodes: 1}");
        String job = "apis/trainer.kubeflow.org/v1alpha1/namespaces/default/trainjobs";
        HttpResponse<String> patch = AdminRequests.client(sandbox)
                .send(
                        AdminRequests.request(sandbox, job + "/probe?x=/status&fieldManager=a")
                                .header("Content-Type", "application/merge-patch+json")
                                .method(
                                        "PATCH",
                                        HttpRequest.BodyPublishers.ofString(
                                                "{\"spec\": {\"runtimeRef\": {\"name\": \"deepspeed-distributed\"}}}"))
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
        assertEquals(422, patch.statusCode(), patch.body());
        HttpResponse<String> post = AdminRequests.client(sandbox)
                .send(
                        AdminRequests.request(sandbox, job + "?x=/status")
                                .header("Content-Type", "application/json")
                                .POST(
                                        HttpRequest.BodyPublishers.ofString(
                                                "{\"apiVersion\": \"trainer.kubeflow.org/v1alpha1\", \"kind\": \"TrainJob\","
                                                        + " \"metadata\": {\"name\": \"unchecked\"}, \"spec\": {\"trainer\": {\"numNodes\": \"x\"}}}"))
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
        assertEquals(422, post.statusCode(), post.body());
    }

    /** A merge patch kube-apiserver cannot decode is 400 in its words, on any kind, never a 500, and stores nothing. */
    @Test
    void aMergePatchThatIsNoObjectIsABadRequest() {
        create("undecodable", "", "{numNodes: 1}");
        var configMaps = sandbox.client().configMaps().inNamespace("default");
        configMaps
                .resource(new ConfigMapBuilder()
                        .withNewMetadata()
                        .withName("undecodable")
                        .endMetadata()
                        .addToData("a", "1")
                        .build())
                .create();
        for (String body : new String[] {"[]", "5", "null", "{\"metadata\": null}"}) {
            KubernetesClientException onTrainJob = refusedPatch("undecodable", PatchType.JSON_MERGE, body);
            assertEquals(400, onTrainJob.getCode(), body + ": " + onTrainJob.getMessage());
            KubernetesClientException onConfigMap = assertThrows(
                    KubernetesClientException.class,
                    () -> configMaps.withName("undecodable").patch(PatchContext.of(PatchType.JSON_MERGE), body));
            assertEquals(400, onConfigMap.getCode(), body + ": " + onConfigMap.getMessage());
        }
        KubernetesClientException array = assertThrows(
                KubernetesClientException.class,
                () -> configMaps.withName("undecodable").patch(PatchContext.of(PatchType.JSON_MERGE), "[]"));
        assertTrue(
                array.getMessage()
                        .contains("error decoding patch: json: cannot unmarshal array into Go value of"
                                + " type map[string]interface {}"),
                array.getMessage());
        assertEquals(Map.of("a", "1"), configMaps.withName("undecodable").get().getData());
    }

    @Test
    void mapListKeysAreUnique() {
        KubernetesClientException refused = assertThrows(
                KubernetesClientException.class,
                () -> create("twice-env", "", "{env: [{name: LR, value: '0.1'}, {name: LR, value: '0.2'}]}"));
        assertEquals(422, refused.getCode());
        assertTrue(refused.getMessage().contains("[spec.trainer.env[1]: Duplicate value"), refused.getMessage());
    }

    @Test
    void labelsAndAnnotationsAreCheckedAsForAnyObject() {
        KubernetesClientException label = assertThrows(
                KubernetesClientException.class,
                () -> create("bad-label", ", labels: {'team': 'vision lab'}", "{numNodes: 1}"));
        assertEquals(422, label.getCode());
        assertTrue(label.getMessage().contains("metadata.labels"), label.getMessage());
        String huge = "x".repeat(ObjectMetadataRules.ANNOTATIONS_LIMIT);
        KubernetesClientException annotations = assertThrows(
                KubernetesClientException.class,
                () -> create("huge-annotation", ", annotations: {note: '" + huge + "'}", "{numNodes: 1}"));
        assertTrue(annotations.getMessage().contains("metadata.annotations: Too long"), annotations.getMessage());
    }

    /** The admin's request of the sandbox's API, with a JSON body; its status code. */
    private static int send(String method, String path, String contentType, String body) throws Exception {
        HttpResponse<String> response = AdminRequests.client(sandbox)
                .send(
                        AdminRequests.request(sandbox, path)
                                .method(method, HttpRequest.BodyPublishers.ofString(body))
                                .header("Content-Type", contentType)
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
        assertTrue(response.statusCode() < 500, response.body());
        return response.statusCode();
    }

    @Test
    void writesThatMakeNoObjectOrNoMapOfStringsAreRefusedNotFailed() throws Exception {
        create("shapes", "", "{numNodes: 1}");
        String job = "apis/trainer.kubeflow.org/v1alpha1/namespaces/default/trainjobs/shapes";
        // kube-apiserver: 400 "Invalid JSON Patch" (this sandbox answered 422 before it applied merge patches itself)
        assertEquals(400, send("PATCH", job, "application/merge-patch+json", "null"));
        assertEquals(400, send("PUT", job, "application/json", "[]"));
        assertEquals(
                422, send("PATCH", job, "application/merge-patch+json", "{\"metadata\": {\"labels\": {\"a\": 5}}}"));
        assertEquals(422, send("PATCH", job, "application/merge-patch+json", "{\"metadata\": {\"annotations\": []}}"));
        assertEquals(400, send("POST", "api/v1/namespaces", "application/json", "{\"metadata\": \"x\"}"));
        assertEquals(400, send("POST", "api/v1/namespaces", "application/json", "[]"));
    }

    @Test
    void aStrategicMergePatchIsNotForCustomResources() {
        create("strategic", "", "{numNodes: 1}");
        KubernetesClientException refused =
                refusedPatch("strategic", PatchType.STRATEGIC_MERGE, "{\"spec\": {\"suspend\": true}}");
        assertEquals(415, refused.getCode());
    }
}
