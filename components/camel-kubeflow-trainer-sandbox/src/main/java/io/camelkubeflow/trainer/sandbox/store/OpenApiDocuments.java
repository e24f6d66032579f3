package io.camelkubeflow.trainer.sandbox.store;

import io.fabric8.kubernetes.api.model.APIResource;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinitionVersion;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * The OpenAPI v3 documents a kube-apiserver publishes: one per group version, built-in or a CustomResourceDefinition's,
 * a schema per kind (a CRD's structural schema, tagged with its group-version-kind) and the paths that read and write
 * it, whose write operations accept {@code fieldValidation} (so kubectl validates on the server, as it does on a
 * cluster).
 */
final class OpenApiDocuments {
    private static final List<Map<String, Object>> WRITE_PARAMETERS =
            List.of(query("dryRun"), query("fieldManager"), query("fieldValidation"));

    private OpenApiDocuments() {}

    /** {@code /openapi/v3}: where each group version's document is, the built-in ones' and the CRDs'. */
    static Map<String, Object> index(Map<String, List<APIResource>> builtIn, List<CustomResourceDefinition> crds) {
        Map<String, Object> paths = new TreeMap<>();
        builtIn.forEach((groupVersion, resources) -> paths.put(
                documentPath(groupVersion),
                Map.of(
                        "serverRelativeURL",
                        "/openapi/v3/" + documentPath(groupVersion) + "?hash="
                                + Integer.toHexString(builtInGroupVersion(groupVersion, resources)
                                        .hashCode()))));
        for (CustomResourceDefinition crd : crds) {
            for (CustomResourceDefinitionVersion version : crd.getSpec().getVersions()) {
                String groupVersion = crd.getSpec().getGroup() + "/" + version.getName();
                paths.put(
                        documentPath(groupVersion),
                        Map.of(
                                "serverRelativeURL",
                                "/openapi/v3/apis/" + groupVersion + "?hash="
                                        + Integer.toHexString(
                                                groupVersion(crds, groupVersion).hashCode())));
            }
        }
        return Map.of("paths", paths);
    }

    /**
     * {@code /openapi/v2}: the same kinds and paths as the v3 documents, all in one Swagger 2.0 document (in JSON,
     * as kube-apiserver serves it to a client that accepts JSON): each kind a definition, each write a body parameter.
     */
    @SuppressWarnings("unchecked")
    static Map<String, Object> swagger(Map<String, List<APIResource>> builtIn, List<CustomResourceDefinition> crds) {
        List<Map<String, Object>> documents = new ArrayList<>();
        builtIn.forEach((groupVersion, resources) -> documents.add(builtInGroupVersion(groupVersion, resources)));
        crds.stream()
                .flatMap(crd -> crd.getSpec().getVersions().stream()
                        .map(version -> crd.getSpec().getGroup() + "/" + version.getName()))
                .distinct()
                .map(groupVersion -> groupVersion(crds, groupVersion))
                .filter(Objects::nonNull)
                .forEach(documents::add);
        Map<String, Object> paths = new TreeMap<>();
        Map<String, Object> definitions = new TreeMap<>();
        for (Map<String, Object> document : documents) {
            definitions.putAll((Map<String, Object>) ((Map<String, Object>) document.get("components")).get("schemas"));
            ((Map<String, Map<String, Map<String, Object>>>) document.get("paths")).forEach((path, operations) -> {
                Map<String, Object> converted = new TreeMap<>();
                operations.forEach((method, operation) -> converted.put(method, swaggerOperation(operation)));
                paths.put(path, converted);
            });
        }
        Map<String, Object> swagger = new LinkedHashMap<>();
        swagger.put("swagger", "2.0");
        swagger.put("info", Map.of("title", "Kubernetes", "version", Discovery.KUBERNETES_VERSION));
        swagger.put("paths", paths);
        swagger.put("definitions", definitions);
        return swagger;
    }

    /** An operation of a v3 document as Swagger 2.0 says it: query parameters typed inline, the body a parameter. */
    @SuppressWarnings("unchecked")
    private static Map<String, Object> swaggerOperation(Map<String, Object> operation) {
        Map<String, Object> converted = new LinkedHashMap<>();
        converted.put("operationId", operation.get("operationId"));
        converted.put("x-kubernetes-group-version-kind", operation.get("x-kubernetes-group-version-kind"));
        List<Map<String, Object>> parameters = new ArrayList<>();
        for (Map<String, Object> parameter : (List<Map<String, Object>>) operation.get("parameters")) {
            Map<String, Object> inline = new LinkedHashMap<>((Map<String, Object>) parameter.get("schema"));
            inline.put("name", parameter.get("name"));
            inline.put("in", parameter.get("in"));
            parameters.add(inline);
        }
        if (operation.get("requestBody") instanceof Map<?, ?> body) {
            Map<String, Map<String, Object>> content = (Map<String, Map<String, Object>>) body.get("content");
            Map<String, Object> schema =
                    (Map<String, Object>) content.values().iterator().next().get("schema");
            String definition = ((String) schema.get("$ref")).replace("#/components/schemas/", "#/definitions/");
            parameters.add(
                    Map.of("name", "body", "in", "body", "required", true, "schema", Map.of("$ref", definition)));
            converted.put("consumes", List.copyOf(content.keySet()));
        }
        converted.put("produces", List.of("application/json"));
        converted.put("parameters", parameters);
        converted.put("responses", operation.get("responses"));
        return converted;
    }

    /** Where a group version's document is under /openapi/v3/: "api/v1", "apis/batch/v1". */
    static String documentPath(String groupVersion) {
        return (groupVersion.contains("/") ? "apis/" : "api/") + groupVersion;
    }

    /**
     * The document of a built-in group version: its kinds' read and write paths, the writes accepting
     * {@code fieldValidation}, so that kubectl validates a built-in object (a Namespace, a ConfigMap) on the server as
     * on a cluster, instead of asking for the OpenAPI v2 document in protobuf. Each kind's schema is an open object:
     * the sandbox does not hold the built-in types' schemas.
     */
    static Map<String, Object> builtInGroupVersion(String groupVersion, List<APIResource> resources) {
        Map<String, Object> schemas = new TreeMap<>();
        Map<String, Object> paths = new TreeMap<>();
        int slash = groupVersion.indexOf('/');
        String group = slash < 0 ? "" : groupVersion.substring(0, slash);
        String version = groupVersion.substring(slash + 1);
        for (APIResource resource : resources) {
            if (resource.getName().contains("/") || !resource.getVerbs().contains("create")) {
                continue;
            }
            Map<String, Object> gvk = Map.of("group", group, "version", version, "kind", resource.getKind());
            String schemaName = "io.k8s.api." + (group.isEmpty() ? "core" : group.split("\\.")[0]) + "." + version + "."
                    + resource.getKind();
            schemas.put(schemaName, Map.of("type", "object", "x-kubernetes-group-version-kind", List.of(gvk)));
            addPaths(
                    paths,
                    gvk,
                    schemaName,
                    "/" + documentPath(groupVersion) + (resource.getNamespaced() ? "/namespaces/{namespace}/" : "/")
                            + resource.getName());
        }
        return document(paths, schemas);
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
                Map<String, Object> gvk =
                        Map.of("group", crd.getSpec().getGroup(), "version", version.getName(), "kind", kind);
                String schemaName = schemaName(crd.getSpec().getGroup(), version.getName(), kind);
                @SuppressWarnings("unchecked")
                Map<String, Object> schema = new LinkedHashMap<>(Serialization.jsonMapper()
                        .convertValue(version.getSchema().getOpenAPIV3Schema(), Map.class));
                schema.put("x-kubernetes-group-version-kind", List.of(gvk));
                schemas.put(schemaName, schema);
                addPaths(
                        paths,
                        gvk,
                        schemaName,
                        "/apis/" + groupVersion
                                + ("Namespaced".equals(crd.getSpec().getScope()) ? "/namespaces/{namespace}/" : "/")
                                + crd.getSpec().getNames().getPlural());
            }
        }
        return schemas.isEmpty() ? null : document(paths, schemas);
    }

    /**
     * The patches a kind's document says it takes. Without a strategic merge patch among them, even for a built-in
     * kind: kubectl would then build its apply patch from the document's schema, which here is an open object for a
     * built-in kind; without it, kubectl builds it from its own copy of the built-in types.
     */
    private static final List<String> PATCHES =
            List.of("application/apply-patch+yaml", "application/json-patch+json", "application/merge-patch+json");

    /** The collection's and the object's operations of a kind, whose writes take its schema. */
    private static void addPaths(Map<String, Object> paths, Map<String, Object> gvk, String schemaName, String base) {
        String kind = (String) gvk.get("kind");
        Map<String, Object> schema = Map.of("schema", Map.of("$ref", "#/components/schemas/" + schemaName));
        Map<String, Object> ref = Map.of("content", Map.of("application/json", schema));
        Map<String, Object> patches = new TreeMap<>();
        PATCHES.forEach(type -> patches.put(type, schema));
        paths.put(
                base,
                Map.of(
                        "get", operation("list" + kind, gvk, List.of(), null),
                        "post", operation("create" + kind, gvk, WRITE_PARAMETERS, ref)));
        paths.put(
                base + "/{name}",
                Map.of(
                        "get", operation("read" + kind, gvk, List.of(), null),
                        "put", operation("replace" + kind, gvk, WRITE_PARAMETERS, ref),
                        "patch", operation("patch" + kind, gvk, WRITE_PARAMETERS, Map.of("content", patches)),
                        "delete", operation("delete" + kind, gvk, List.of(), null)));
    }

    private static Map<String, Object> document(Map<String, Object> paths, Map<String, Object> schemas) {
        return Map.of(
                "openapi",
                "3.0.0",
                "info",
                Map.of("title", "Kubernetes", "version", Discovery.KUBERNETES_VERSION),
                "paths",
                paths,
                "components",
                Map.of("schemas", schemas));
    }

    /** As a kube-apiserver names a CRD's schema: the group reversed, then version and kind. */
    static String schemaName(String group, String version, String kind) {
        List<String> parts = new ArrayList<>(List.of(group.split("\\.")));
        Collections.reverse(parts);
        return String.join(".", parts) + "." + version + "." + kind;
    }

    private static Map<String, Object> operation(
            String id, Map<String, Object> gvk, List<Map<String, Object>> parameters, Map<String, Object> body) {
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
