package io.camelkubeflow.trainer.sandbox.store;

import io.fabric8.kubernetes.api.model.APIGroup;
import io.fabric8.kubernetes.api.model.APIGroupBuilder;
import io.fabric8.kubernetes.api.model.APIGroupListBuilder;
import io.fabric8.kubernetes.api.model.APIResource;
import io.fabric8.kubernetes.api.model.APIResourceBuilder;
import io.fabric8.kubernetes.api.model.APIResourceListBuilder;
import io.fabric8.kubernetes.api.model.APIVersionsBuilder;
import io.fabric8.kubernetes.api.model.GroupVersionForDiscoveryBuilder;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ServerAddressByClientCIDR;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinitionList;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;

/**
 * What a kube-apiserver tells clients about itself: {@code /version}, the legacy discovery documents ({@code /api},
 * {@code /api/v1}, {@code /apis}, {@code /apis/<group>/<version>}) listing the built-in resources the sandbox serves
 * and every stored CustomResourceDefinition's, and the OpenAPI v3 documents of the CRDs' group versions (what
 * {@code kubectl explain} and field validation read). Clients asking for aggregated discovery get the legacy
 * documents, which they accept, as from an API server older than 1.30.
 */
public final class Discovery {
    public static final String KUBERNETES_VERSION = "v1.33.0";
    public static final String CRDS = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";
    private static final List<String> READ_WRITE =
            List.of("create", "delete", "deletecollection", "get", "list", "patch", "update", "watch");

    /** group/version → its built-in resources. */
    private static final Map<String, List<APIResource>> BUILT_IN = new LinkedHashMap<>();

    static {
        BUILT_IN.put(
                "v1",
                List.of(
                        resource("configmaps", "ConfigMap", true, READ_WRITE, "cm"),
                        resource("events", "Event", true, READ_WRITE, "ev"),
                        resource(
                                "namespaces",
                                "Namespace",
                                false,
                                List.of("create", "delete", "get", "list", "patch", "update", "watch"),
                                "ns"),
                        resource("pods", "Pod", true, READ_WRITE, "po"),
                        resource("pods/log", "Pod", true, List.of("get")),
                        resource("pods/status", "Pod", true, List.of("get", "patch", "update")),
                        resource("secrets", "Secret", true, READ_WRITE),
                        resource("serviceaccounts", "ServiceAccount", true, READ_WRITE, "sa"),
                        resource("services", "Service", true, READ_WRITE, "svc")));
        BUILT_IN.put(
                "apiextensions.k8s.io/v1",
                List.of(resource(
                        "customresourcedefinitions", "CustomResourceDefinition", false, READ_WRITE, "crd", "crds")));
        BUILT_IN.put(
                "authentication.k8s.io/v1", List.of(resource("tokenreviews", "TokenReview", false, List.of("create"))));
        BUILT_IN.put(
                "authorization.k8s.io/v1",
                List.of(resource("subjectaccessreviews", "SubjectAccessReview", false, List.of("create"))));
        BUILT_IN.put(
                "batch/v1",
                List.of(
                        resource("jobs", "Job", true, READ_WRITE),
                        resource("jobs/status", "Job", true, List.of("get", "patch", "update"))));
        BUILT_IN.put("coordination.k8s.io/v1", List.of(resource("leases", "Lease", true, READ_WRITE)));
        BUILT_IN.put(
                "rbac.authorization.k8s.io/v1",
                List.of(
                        resource("clusterrolebindings", "ClusterRoleBinding", false, READ_WRITE),
                        resource("clusterroles", "ClusterRole", false, READ_WRITE),
                        resource("rolebindings", "RoleBinding", true, READ_WRITE),
                        resource("roles", "Role", true, READ_WRITE)));
    }

    private final Function<String, String> stored;

    /** @param stored the JSON the store holds at a path, null when none */
    Discovery(Function<String, String> stored) {
        this.stored = stored;
    }

    /**
     * {@code /openapi/v2} as kube-apiserver negotiates it: JSON to a client that accepts JSON (or anything), a 406
     * without a body to one that accepts neither JSON nor protobuf; to one that accepts protobuf only (kubectl, when
     * the v3 documents lack what it needs) a 406 too, where kube-apiserver answers in protobuf: the sandbox has no
     * encoder of the gnostic OpenAPI v2 messages, and kubectl goes on without the document (e2e/DIFFERENCES.md).
     */
    private MockResponse swagger(String accept) {
        boolean json = accept == null
                || accept.isBlank()
                || Arrays.stream(accept.split(","))
                        .map(type -> type.split(";")[0].trim())
                        .anyMatch(type ->
                                type.equals("application/json") || type.equals("application/*") || type.equals("*/*"));
        return json
                ? json(OpenApiDocuments.swagger(BUILT_IN, customResources()))
                : new MockResponse().setResponseCode(406);
    }

    /** The answer to a discovery, version, health or OpenAPI request; null for any other path. */
    public MockResponse answer(RecordedRequest request) {
        String path = request.getPath();
        int query = path.indexOf('?');
        String bare = query < 0 ? path : path.substring(0, query);
        if (bare.endsWith("/") && bare.length() > 1) {
            bare = bare.substring(0, bare.length() - 1);
        }
        switch (bare) {
            case "/version":
                return json(Map.of(
                        "major",
                        "1",
                        "minor",
                        "33",
                        "gitVersion",
                        KUBERNETES_VERSION,
                        "gitTreeState",
                        "clean",
                        "goVersion",
                        "go1.24",
                        "compiler",
                        "gc",
                        "platform",
                        "linux/amd64",
                        "buildDate",
                        "2026-01-01T00:00:00Z",
                        "gitCommit",
                        "trainer-sandbox"));
            case "/api":
                return json(new APIVersionsBuilder()
                        .withVersions("v1")
                        .withServerAddressByClientCIDRs(new ServerAddressByClientCIDR("0.0.0.0/0", "localhost"))
                        .build());
            case "/apis":
                return json(new APIGroupListBuilder().withGroups(groups()).build());
            case "/openapi/v3":
                return json(OpenApiDocuments.index(BUILT_IN, customResources()));
            case "/openapi/v2":
                return swagger(request.getHeader("Accept"));
            case "/healthz", "/livez", "/readyz":
                // what kube-apiserver answers; answered here, they never reach the store, which would list all it holds
                return new MockResponse()
                        .setResponseCode(200)
                        .setHeader("Content-Type", "text/plain; charset=utf-8")
                        .setBody("ok");
            default:
                break;
        }
        if (bare.startsWith("/openapi/v3/api/") || bare.startsWith("/openapi/v3/apis/")) {
            String groupVersion = bare.substring(bare.indexOf('/', "/openapi/v3/".length()) + 1);
            Map<String, Object> document = BUILT_IN.containsKey(groupVersion)
                    ? OpenApiDocuments.builtInGroupVersion(groupVersion, BUILT_IN.get(groupVersion))
                    : OpenApiDocuments.groupVersion(customResources(), groupVersion);
            return document == null ? null : json(document);
        }
        String groupVersion = bare.equals("/api/v1")
                ? "v1"
                : bare.matches("/apis/[^/]+/[^/]+") ? bare.substring("/apis/".length()) : null;
        if (groupVersion == null) {
            return null;
        }
        List<APIResource> resources = resources().get(groupVersion);
        if (resources == null) {
            // as kube-apiserver answers for a group version it does not serve (a CRD's unserved version too)
            return new MockResponse()
                    .setResponseCode(404)
                    .setHeader("Content-Type", "text/plain; charset=utf-8")
                    .setBody("404 page not found\n");
        }
        return json(new APIResourceListBuilder()
                .withGroupVersion(groupVersion)
                .withResources(resources)
                .build());
    }

    /**
     * The stored CRDs' typed model (for their OpenAPI documents only) and the resources served, read again after a CRD
     * write (a CRD's JSON is large to parse).
     */
    private volatile List<CustomResourceDefinition> crds;

    private volatile Map<String, List<APIResource>> served;

    /** A CustomResourceDefinition was written: what is served may have changed. */
    void crdsChanged() {
        crds = null;
        served = null;
    }

    /**
     * The apiVersion and kind of a list answer for a collection path (["v1", "PodList"]), or null when the path is
     * not a served collection.
     */
    public String[] listType(String path) {
        ResourcePath resource = ResourcePath.of(path);
        if (resource == null || resource.plural() == null || resource.name() != null) {
            return null;
        }
        String groupVersion = resource.groupVersion();
        String plural = resource.plural();
        for (APIResource candidate : resources().getOrDefault(groupVersion, List.of())) {
            if (candidate.getName().equals(plural)) {
                return new String[] {groupVersion, candidate.getKind() + "List"};
            }
        }
        return null;
    }

    /** The path of a stored object, from its apiVersion, kind, namespace and name; null for a kind not served. */
    String path(HasMetadata object) {
        String collection = collectionPath(object);
        return collection == null
                ? null
                : collection + "/" + object.getMetadata().getName();
    }

    /**
     * The collection an object is created in, from its apiVersion, kind and namespace (a namespaced object without one
     * goes into "default", as kubectl's context in the sandbox's kubeconfig says); null for a kind not served.
     */
    public String collectionPath(HasMetadata object) {
        String groupVersion = object.getApiVersion();
        for (APIResource resource : resources().getOrDefault(groupVersion, List.of())) {
            if (resource.getKind().equals(object.getKind())
                    && !resource.getName().contains("/")) {
                String namespace = object.getMetadata().getNamespace();
                return (groupVersion.contains("/") ? "/apis/" : "/api/") + groupVersion
                        + (resource.getNamespaced() ? "/namespaces/" + (namespace == null ? "default" : namespace) : "")
                        + "/" + resource.getName();
            }
        }
        return null;
    }

    /** Every served group/version and its resources: the built-in ones, then the CRDs'. */
    private Map<String, List<APIResource>> resources() {
        Map<String, List<APIResource>> known = served;
        if (known == null) {
            known = computeResources();
            served = known;
        }
        return known;
    }

    private Map<String, List<APIResource>> computeResources() {
        Map<String, List<APIResource>> all = new LinkedHashMap<>(BUILT_IN);
        for (ServedCrd crd : ServedCrd.listOf(stored.apply(CRDS))) {
            ServedCrd.Names names = crd.spec().names();
            for (ServedCrd.Version version : crd.spec().versions()) {
                if (!version.served()) {
                    continue;
                }
                String groupVersion = crd.spec().group() + "/" + version.name();
                // a copy: the built-in lists are shared and unmodifiable
                List<APIResource> list = new ArrayList<>(all.getOrDefault(groupVersion, List.of()));
                list.add(new APIResourceBuilder(resource(
                                names.plural(),
                                names.kind(),
                                crd.namespaced(),
                                READ_WRITE,
                                names.shortNames() == null
                                        ? new String[0]
                                        : names.shortNames().toArray(String[]::new)))
                        .withSingularName(names.singular())
                        .withCategories(names.categories())
                        .build());
                if (version.hasStatus()) {
                    list.add(resource(
                            names.plural() + "/status",
                            names.kind(),
                            crd.namespaced(),
                            List.of("get", "patch", "update")));
                }
                all.put(groupVersion, list);
            }
        }
        return all;
    }

    private List<APIGroup> groups() {
        Map<String, List<String>> versions = new TreeMap<>();
        for (String groupVersion : resources().keySet()) {
            int slash = groupVersion.indexOf('/');
            if (slash > 0) {
                versions.computeIfAbsent(groupVersion.substring(0, slash), g -> new ArrayList<>())
                        .add(groupVersion.substring(slash + 1));
            }
        }
        List<APIGroup> groups = new ArrayList<>();
        versions.forEach((group, list) -> groups.add(new APIGroupBuilder()
                .withName(group)
                .withVersions(list.stream()
                        .map(v -> new GroupVersionForDiscoveryBuilder()
                                .withGroupVersion(group + "/" + v)
                                .withVersion(v)
                                .build())
                        .toList())
                .withPreferredVersion(new GroupVersionForDiscoveryBuilder()
                        .withGroupVersion(group + "/" + list.get(0))
                        .withVersion(list.get(0))
                        .build())
                .build()));
        return groups;
    }

    public List<CustomResourceDefinition> customResources() {
        List<CustomResourceDefinition> known = crds;
        if (known == null) {
            String list = stored.apply(CRDS);
            known = list == null
                    ? List.of()
                    : Serialization.unmarshal(list, CustomResourceDefinitionList.class)
                            .getItems();
            crds = known;
        }
        return known;
    }

    private static APIResource resource(
            String plural, String kind, boolean namespaced, List<String> verbs, String... shortNames) {
        return new APIResourceBuilder()
                .withName(plural)
                .withKind(kind)
                .withNamespaced(namespaced)
                .withSingularName(plural.contains("/") ? "" : kind.toLowerCase(Locale.ROOT))
                .withVerbs(verbs)
                .withShortNames(shortNames.length == 0 ? null : List.of(shortNames))
                .build();
    }

    private static MockResponse json(Object body) {
        return new MockResponse()
                .setResponseCode(200)
                .setHeader("Content-Type", "application/json")
                .setBody(Serialization.asJson(body));
    }
}
