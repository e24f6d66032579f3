package io.camelkubeflow.trainer.sandbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.camelkubeflow.trainer.sandbox.store.Discovery;
import io.camelkubeflow.trainer.sandbox.store.JsonResources;
import io.camelkubeflow.trainer.sandbox.store.ServedCrd;
import io.fabric8.kubernetes.api.model.APIResource;
import io.fabric8.kubernetes.api.model.APIResourceList;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.client.dsl.base.CustomResourceDefinitionContext;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * The store and discovery learn a CRD from its served facts ({@link ServedCrd}) instead of its typed model: what they
 * learn must be what the typed model says.
 */
class ServedCrdTest {
    /** Two versions: the older one has a status subresource, the one of highest priority (v1) has none. */
    private static final String WIDGETS_CRD = """
            {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
             "metadata": {"name": "widgets.example.com"},
             "spec": {"group": "example.com", "scope": "Cluster",
              "names": {"plural": "widgets", "singular": "widget", "kind": "Widget", "shortNames": ["wd"],
                        "categories": ["all"]},
              "versions": [
               {"name": "v1alpha1", "served": true, "storage": false, "subresources": {"status": {}},
                "schema": {"openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}}},
               {"name": "v1", "served": true, "storage": true,
                "schema": {"openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}}}]}}
            """;

    private static final String GADGETS_CRD = """
            {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
             "metadata": {"name": "gadgets.example.com"},
             "spec": {"group": "example.com", "scope": "Namespaced",
              "names": {"plural": "gadgets", "singular": "gadget", "kind": "Gadget", "shortNames": ["gd"],
                        "categories": ["toys"]},
              "versions": [
               {"name": "v1", "served": true, "storage": true, "subresources": {"status": {}},
                "schema": {"openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}}},
               {"name": "v0", "served": false, "storage": false,
                "schema": {"openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}}}]}}
            """;

    @Test
    void theContextOfEveryInstalledCrdAndOfMultiVersionCrdsIsTheOneFabric8MakesFromTheTypedModel() {
        List<String> crds = new ArrayList<>(List.of(WIDGETS_CRD, GADGETS_CRD));
        for (String crd : List.of(
                "trainer.kubeflow.org_trainjobs.yaml",
                "trainer.kubeflow.org_trainingruntimes.yaml",
                "trainer.kubeflow.org_clustertrainingruntimes.yaml")) {
            crds.add(JsonResources.read(TrainerSandbox.CRDS + crd));
        }
        crds.add(JsonResources.read(JsonResources.JOBSET_CRD));
        for (String json : crds) {
            CustomResourceDefinitionContext expected = CustomResourceDefinitionContext.fromCrd(
                    Serialization.unmarshal(json, CustomResourceDefinition.class));
            CustomResourceDefinitionContext served = ServedCrd.of(json).context();
            assertEquals(facts(expected), facts(served), expected.getName());
        }
        assertEquals(
                List.of("example.com", "v1", "Cluster", "widgets.example.com", "widgets", "Widget", false),
                facts(ServedCrd.of(WIDGETS_CRD).context()));
    }

    @Test
    void aCrdCreatedOverTheApiIsDiscoveredAndACreatesStatusIsDroppedOnlyUnderAStatusSubresource() throws Exception {
        try (TrainerSandbox sandbox = TrainerSandbox.start()) {
            HttpClient http = AdminRequests.client(sandbox);
            for (String crd : List.of(WIDGETS_CRD, GADGETS_CRD)) {
                assertEquals(
                        201,
                        http.send(
                                        AdminRequests.request(sandbox, Discovery.CRDS.substring(1))
                                                .header("Content-Type", "application/json")
                                                .POST(HttpRequest.BodyPublishers.ofString(crd))
                                                .build(),
                                        HttpResponse.BodyHandlers.ofString())
                                .statusCode());
            }
            APIResourceList v1 = Serialization.unmarshal(
                    http.send(
                                    AdminRequests.request(sandbox, "apis/example.com/v1")
                                            .build(),
                                    HttpResponse.BodyHandlers.ofString())
                            .body(),
                    APIResourceList.class);
            Map<String, APIResource> byName = new TreeMap<>();
            v1.getResources().forEach(resource -> byName.put(resource.getName(), resource));
            assertEquals(List.of("gadgets", "gadgets/status", "widgets"), List.copyOf(byName.keySet()));
            APIResource gadgets = byName.get("gadgets");
            assertEquals(
                    List.of(true, "Gadget", "gadget", List.of("gd"), List.of("toys")),
                    List.of(
                            gadgets.getNamespaced(),
                            gadgets.getKind(),
                            gadgets.getSingularName(),
                            gadgets.getShortNames(),
                            gadgets.getCategories()));
            assertFalse(byName.get("widgets").getNamespaced());
            // v0 is not served; v1alpha1 is, with its status subresource
            assertEquals(
                    404,
                    http.send(
                                    AdminRequests.request(sandbox, "apis/example.com/v0")
                                            .build(),
                                    HttpResponse.BodyHandlers.ofString())
                            .statusCode());
            assertEquals(
                    List.of("widgets", "widgets/status"),
                    Serialization.unmarshal(
                                    http.send(
                                                    AdminRequests.request(sandbox, "apis/example.com/v1alpha1")
                                                            .build(),
                                                    HttpResponse.BodyHandlers.ofString())
                                            .body(),
                                    APIResourceList.class)
                            .getResources()
                            .stream()
                            .map(APIResource::getName)
                            .toList());

            // a create's status is dropped where the storage version has a status subresource, kept where it has none
            GenericKubernetesResource gadget = sandbox.client()
                    .genericKubernetesResources("example.com/v1", "Gadget")
                    .inNamespace("default")
                    .resource(Serialization.unmarshal("""
                            {"apiVersion": "example.com/v1", "kind": "Gadget", "metadata": {"name": "g"},
                             "status": {"phase": "Set by the client"}}""", GenericKubernetesResource.class))
                    .create();
            assertNull(gadget.getAdditionalProperties().get("status"));
            GenericKubernetesResource widget = sandbox.client()
                    .genericKubernetesResources("example.com/v1", "Widget")
                    .resource(Serialization.unmarshal("""
                            {"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"},
                             "status": {"phase": "Set by the client"}}""", GenericKubernetesResource.class))
                    .create();
            assertEquals(
                    Map.of("phase", "Set by the client"),
                    widget.getAdditionalProperties().get("status"));
        }
    }

    private static List<Object> facts(CustomResourceDefinitionContext context) {
        return List.of(
                context.getGroup(),
                context.getVersion(),
                context.getScope(),
                context.getName(),
                context.getPlural(),
                context.getKind(),
                context.isStatusSubresource());
    }
}
