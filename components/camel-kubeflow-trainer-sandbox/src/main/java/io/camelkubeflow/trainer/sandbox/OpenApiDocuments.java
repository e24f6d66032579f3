package io.camelkubeflow.trainer.sandbox;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinitionVersion;
import io.fabric8.kubernetes.client.utils.Serialization;

/**
 * The OpenAPI v3 documents a kube-apiserver publishes for CustomResourceDefinitions: one per group version, a schema
 * per kind (the CRD's structural schema, tagged with its group-version-kind) and the paths that read and write it,
 * whose write operations accept {@code fieldValidation} (so kubectl validates on the server, as it does on a cluster).
 */
final class OpenApiDocuments {
    private static final List<Map<String, Object>> WRITE_PARAMETERS = List.of(
            query("dryRun"), query("fieldManager"), query("fieldValidation"));

    private OpenApiDocuments() {
    }

    /** {@code /openapi/v3}: where each group version's document is. */
    static Map<String, Object> index(List<CustomResourceDefinition> crds) {
        Map<String, Object> paths = new TreeMap<>();
        for (CustomResourceDefinition crd : crds) {
            for (CustomResourceDefinitionVersion version : crd.getSpec().getVersions()) {
                String groupVersion = crd.getSpec().getGroup() + "/" + version.getName();
                paths.put("apis/" + groupVersion, Map.of("serverRelativeURL", "/openapi/v3/apis/" + groupVersion
                        + "?hash=" + Integer.toHexString(groupVersion(crds, groupVersion).hashCode())));
            }
        }
        return Map.of("paths", paths);
    }

    /** {@code /openapi/v3/apis/<group>/<version>}; null when no CRD serves that group version. */
    static Map<String, Object> groupVersion(List<CustomResourceDefinition> crds, String groupVersion) {
        Map<String, Object> schemas = new TreeMap<>();
        Map<String, Object> paths = new TreeMap<>();
        for (CustomResourceDefinition crd : crds) {
            for (CustomResourceDefinitionVersion version : crd.getSpec().getVersions()) {
                if (!groupVersion.equals(crd.getSpec().getGroup() + "/" + version.getName())
                        || version.getSchema() == null) {
                    continue;
                }
                String kind = crd.getSpec().getNames().getKind();
                Map<String, Object> gvk = Map.of("group", crd.getSpec().getGroup(), "version", version.getName(),
                        "kind", kind);
                String schemaName = schemaName(crd.getSpec().getGroup(), version.getName(), kind);
                @SuppressWarnings("unchecked")
                Map<String, Object> schema = new LinkedHashMap<>(Serialization.jsonMapper()
                        .convertValue(version.getSchema().getOpenAPIV3Schema(), Map.class));
                schema.put("x-kubernetes-group-version-kind", List.of(gvk));
                schemas.put(schemaName, schema);
                Map<String, Object> ref = Map.of("content", Map.of("application/json", Map.of("schema",
                        Map.of("$ref", "#/components/schemas/" + schemaName))));
                String base = "/apis/" + groupVersion + ("Namespaced".equals(crd.getSpec().getScope())
                        ? "/namespaces/{namespace}/" : "/") + crd.getSpec().getNames().getPlural();
                paths.put(base, Map.of(
                        "get", operation("list" + kind, gvk, List.of(), null),
                        "post", operation("create" + kind, gvk, WRITE_PARAMETERS, ref)));
                paths.put(base + "/{name}", Map.of(
                        "get", operation("read" + kind, gvk, List.of(), null),
                        "put", operation("replace" + kind, gvk, WRITE_PARAMETERS, ref),
                        "patch", operation("patch" + kind, gvk, WRITE_PARAMETERS, ref),
                        "delete", operation("delete" + kind, gvk, List.of(), null)));
            }
        }
        if (schemas.isEmpty()) {
            return null;
        }
        return Map.of("openapi", "3.0.0", "info", Map.of("title", "Kubernetes", "version", Discovery.KUBERNETES_VERSION),
                "paths", paths, "components", Map.of("schemas", schemas));
    }

    /** As a kube-apiserver names a CRD's schema: the group reversed, then version and kind. */
    static String schemaName(String group, String version, String kind) {
        List<String> parts = new ArrayList<>(List.of(group.split("\\.")));
        java.util.Collections.reverse(parts);
        return String.join(".", parts) + "." + version + "." + kind;
    }

    private static Map<String, Object> operation(String id, Map<String, Object> gvk,
            List<Map<String, Object>> parameters, Map<String, Object> body) {
        Map<String, Object> operation = new LinkedHashMap<>();
        operation.put("operationId", id);
        operation.put("x-kubernetes-group-version-kind", gvk);
        operation.put("parameters", parameters);
        if (body != null) {
            operation.put("requestBody", body);
        }
        operation.put("responses", Map.of("200", Map.of("description", "OK")));
        return operation;
    }

    private static Map<String, Object> query(String name) {
        return Map.of("name", name, "in", "query", "schema", Map.of("type", "string", "uniqueItems", true));
    }
}
