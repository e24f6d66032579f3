package io.camelkubeflow.trainer.sandbox.store;

import static io.camelkubeflow.trainer.sandbox.store.TrainerAdmission.isTrainJobPath;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.NamespaceList;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesAttributesExtractor;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.server.mock.crud.KubernetesCrudDispatcherException;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.fabric8.mockwebserver.crud.AttributeSet;
import io.fabric8.mockwebserver.dsl.HttpMethod;
import io.fabric8.mockwebserver.http.Buffer;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.Field;
import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiConsumer;
import java.util.function.Supplier;

/**
 * The CRUD dispatcher: fabric8's store, read through {@link StoreIndex}, answering as the API server does (its
 * refusals, its namespace strategy, its garbage collector, the objects it keeps without a generation); Trainer objects
 * admitted by {@link TrainerAdmission}, token and access reviews answered by {@link AccessReviews}, planned watch
 * faults by {@link WatchFaults}.
 */
public final class ObservingCrudDispatcher extends KubernetesCrudDispatcher {
    private static final String NAMESPACES = "/api/v1/namespaces";
    private final StoreIndex index = new StoreIndex();
    /** The store's resourceVersion counter, which lists report. */
    private final AtomicLong resourceVersion = storeResourceVersion();

    private final Discovery discovery = new Discovery(this::stored);
    private final AccessReviews accessReviews = new AccessReviews(this::stored);
    private final TrainerAdmission admission = new TrainerAdmission();
    private final WatchFaults watchFaults = new WatchFaults(this);
    /** The namespaces that exist: a write into any other is refused, as on a cluster. */
    private final Set<String> namespaces = ConcurrentHashMap.newKeySet();

    private final GarbageCollector garbageCollector;

    public ObservingCrudDispatcher(BiConsumer<String, String> podDeleted, Supplier<KubernetesClient> client) {
        this.garbageCollector = new GarbageCollector(this, podDeleted, client);
        learnCrdsFromServedFacts();
    }

    /** What the server serves, learnt from the stored CRDs. */
    public Discovery discovery() {
        return discovery;
    }

    /** The tokens and access reviews, decided by the stored RBAC objects. */
    public AccessReviews accessReviews() {
        return accessReviews;
    }

    public TrainerAdmission admission() {
        return admission;
    }

    public WatchFaults watchFaults() {
        return watchFaults;
    }

    /** Whether the store holds this namespace. */
    public boolean namespaceExists(String name) {
        return namespaces.contains(name);
    }

    /**
     * Puts {@link ServedCrd.Processor} where fabric8's store keeps its CRD processor, which it makes itself and
     * offers no way to replace: the installation writes four CRDs, and fabric8's own processor parses each into
     * the typed model.
     */
    private void learnCrdsFromServedFacts() {
        ServedCrd.Processor processor = new ServedCrd.Processor();
        try {
            Field field = KubernetesCrudDispatcher.class.getDeclaredField("crdProcessor");
            field.setAccessible(true);
            field.set(this, processor);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("this fabric8 mock server version hides its CRD processor", e);
        }
        ((KubernetesAttributesExtractor) attributeExtractor).setCustomResourceDefinitionProcessor(processor);
    }

    private AtomicLong storeResourceVersion() {
        try {
            Field field = KubernetesCrudDispatcher.class.getDeclaredField("resourceVersion");
            field.setAccessible(true);
            return (AtomicLong) field.get(this);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("this fabric8 mock server version hides its resourceVersion", e);
        }
    }

    /** A JSON merge patch of any kind, applied as RFC 7386 says (see {@link ObjectPatches}). */
    @Override
    public JsonNode merge(JsonNode stored, String patch) throws KubernetesCrudDispatcherException {
        try {
            return ObjectPatches.mergeIntoObject(
                    stored, Serialization.jsonMapper().readTree(patch));
        } catch (JsonProcessingException e) {
            throw new KubernetesCrudDispatcherException(e.getMessage(), 422);
        } catch (ObjectPatches.UndecodablePatch e) {
            throw new KubernetesCrudDispatcherException(e.getMessage(), 400);
        }
    }

    /** The JSON the store holds at a path (an object or a list), read in process; null when there is none. */
    String stored(String path) {
        MockResponse answer = handleGet(path);
        return answer.code() == 200 ? answer.getBody().readUtf8() : null;
    }

    /** Reads of one object or one collection from the index; watches as the store serves them. */
    @Override
    public MockResponse handleGet(String path) {
        if (path.contains("watch=true")) {
            return super.handleGet(path);
        }
        AttributeSet query = getKey(path);
        Map.Entry<AttributeSet, String> found = index.find(query);
        if (found == null) {
            return new MockResponse().setResponseCode(404);
        }
        if (found != StoreIndex.UNINDEXED) {
            return new MockResponse().setResponseCode(200).setBody(found.getValue());
        }
        if (query.getAttribute(KubernetesAttributesExtractor.PLURAL) == null) {
            return super.handleGet(path);
        }
        return new MockResponse()
                .setResponseCode(200)
                .setBody("{\"apiVersion\":\"v1\",\"kind\":\"List\","
                        + " \"items\": [" + String.join(",", index.list(query))
                        + "], \"metadata\": {\"resourceVersion\": \""
                        + resourceVersion.get() + "\", \"selfLink\": \"\"}}");
    }

    /** The writes find the object they change from the index. */
    @Override
    public Map.Entry<AttributeSet, String> findResource(AttributeSet attributes) {
        Map.Entry<AttributeSet, String> found = index.find(attributes);
        return found == StoreIndex.UNINDEXED ? super.findResource(attributes) : found;
    }

    /** Every change of the store, kept in the index under the key the store gives it. */
    @Override
    public void processEvent(
            String path,
            AttributeSet pathAttributes,
            AttributeSet oldAttributes,
            GenericKubernetesResource resource,
            String stored) {
        String newState = withoutGeneration(ResourcePath.of(path), stored);
        super.processEvent(path, pathAttributes, oldAttributes, resource, newState);
        AttributeSet newAttributes = null;
        if (newState != null) {
            var extractor = (KubernetesAttributesExtractor) attributeExtractor;
            newAttributes = resource != null ? extractor.extract(resource) : extractor.fromResource(newState);
            if (!newAttributes.containsKey(KubernetesAttributesExtractor.PLURAL)) {
                newAttributes = AttributeSet.merge(pathAttributes, newAttributes);
            }
        }
        index.changed(oldAttributes, newAttributes, newState);
    }

    @Override
    public MockResponse dispatch(RecordedRequest request) {
        String path = request.getPath();
        boolean write = !"GET".equals(request.getMethod());
        ResourcePath resource = ResourcePath.of(path);
        String namespace = resource == null || resource.plural() == null ? null : resource.namespace();
        if (write && !"DELETE".equals(request.getMethod()) && namespace != null && !namespaces.contains(namespace)) {
            return StatusAnswers.notFound(ResourcePath.of(NAMESPACES), namespace);
        }
        // the body as sent, read before the store consumes it: is it JSON at all, what name does a create ask for
        byte[] sent = request.getBody() == null ? null : request.getBody().getBytes();
        String contentType = String.valueOf(request.getHeader("Content-Type"));
        if (sent != null
                && resource != null
                && resource.plural() != null
                && contentType.contains("json")
                && ("POST".equals(request.getMethod()) || "PUT".equals(request.getMethod()))) {
            try {
                JsonNode object = Serialization.jsonMapper().readTree(sent);
                if (object == null || !object.isObject()) {
                    // JSON, but no object: as Go's decoder says of it
                    return unrecognized(
                            path,
                            resource,
                            sent,
                            "cannot unmarshal "
                                    + (object == null
                                            ? "nothing"
                                            : object.getNodeType().name().toLowerCase(Locale.ROOT))
                                    + " into Go value of type struct");
                }
            } catch (JsonProcessingException notJson) {
                return unrecognized(path, resource, sent, notJson.getOriginalMessage());
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        boolean namespaceCreate = "POST".equals(request.getMethod())
                && sent != null
                && resource != null
                && "v1".equals(resource.groupVersion())
                && "namespaces".equals(resource.plural())
                && resource.name() == null;
        if (namespaceCreate) {
            try {
                request = withBody(request, asTheNamespaceStrategyMakesIt(sent));
            } catch (RuntimeException notANamespace) {
                // JSON, but not of a Namespace's shape ([], {"metadata": "x"}, {"spec": 5})
                return unrecognized(path, resource, sent, String.valueOf(notANamespace.getMessage()));
            }
        }
        Optional<DuplicateOwnerReferences.Rewrite> deduplicated =
                withoutDuplicateOwners(request, resource, contentType);
        if (deduplicated.isPresent()) {
            request = withBody(request, deduplicated.get().body());
        }
        try {
            MockResponse response = super.dispatch(request);
            if ("PATCH".equals(request.getMethod()) && response != null && response.code() == 202) {
                // fabric8's store answers a patch 202 Accepted; the API server answers 200 with the object
                response.setResponseCode(200);
            }
            if (deduplicated.isPresent() && response != null && response.code() < 300) {
                response.addHeader("Warning", deduplicated.get().warning());
            }
            if ("DELETE".equals(request.getMethod()) && response != null && response.code() == 200) {
                garbageCollector.collect(request, response);
            }
            if (response == null || resource == null || resource.plural() == null) {
                return response;
            }
            if ("DELETE".equals(request.getMethod())
                    && response.code() == 200
                    && resource.name() != null
                    && !RETURN_DELETED_OBJECT.contains(resource.plural())) {
                GenericKubernetesResource gone =
                        Serialization.unmarshal(response.getBody().readUtf8(), GenericKubernetesResource.class);
                return StatusAnswers.deleted(
                        resource, resource.name(), gone.getMetadata().getUid());
            }
            if (write && response.code() < 300 && response.getBody() != null) {
                response.setBody(withoutGeneration(resource, response.getBody().readUtf8()));
            }
            return inApiServerWords(request, sent, resource, response);
        } finally {
            if (write && path.startsWith(Discovery.CRDS)) {
                discovery.crdsChanged();
            } else if (write && path.startsWith(NAMESPACES)) {
                refreshNamespaces();
            }
        }
    }

    /** The write without the duplicate owner references the API server would drop from what it stores. */
    private Optional<DuplicateOwnerReferences.Rewrite> withoutDuplicateOwners(
            RecordedRequest request, ResourcePath resource, String contentType) {
        if (request.getBody() == null || resource == null || resource.plural() == null) {
            return Optional.empty();
        }
        String body = new String(request.getBody().getBytes(), StandardCharsets.UTF_8);
        if (!body.contains("ownerReferences")) {
            // every stored object is without duplicates: only a write that names owners can add one (a status
            // write of the controller never parses, nor applies a patch twice)
            return Optional.empty();
        }
        return switch (request.getMethod()) {
            case "POST", "PUT" ->
                contentType.contains("json") ? DuplicateOwnerReferences.inObject(body) : Optional.empty();
            case "PATCH" ->
                resource.name() == null
                        ? Optional.empty()
                        : DuplicateOwnerReferences.inPatch(
                                stored(request.getPath().split("\\?")[0]), body, contentType);
            default -> Optional.empty();
        };
    }

    /**
     * A namespace as the API server's namespace strategy stores it: labelled with its name
     * (kubernetes.io/metadata.name), with the "kubernetes" finalizer its controller removes, and Active.
     */
    private static String asTheNamespaceStrategyMakesIt(byte[] sent) {
        var namespace = (ObjectNode) Serialization.unmarshal(new String(sent, StandardCharsets.UTF_8), JsonNode.class);
        var metadata = namespace.withObjectProperty("metadata");
        if (metadata.hasNonNull("name")) {
            metadata.withObjectProperty("labels")
                    .put("kubernetes.io/metadata.name", metadata.get("name").asText());
        }
        var spec = namespace.withObjectProperty("spec");
        if (!spec.has("finalizers")) {
            spec.putArray("finalizers").add("kubernetes");
        }
        namespace.withObjectProperty("status").put("phase", "Active");
        return Serialization.asJson(namespace);
    }

    /** The kinds whose registry answers a delete with the deleted object (ReturnDeletedObject), not a Status. */
    private static final Set<String> RETURN_DELETED_OBJECT =
            Set.of("pods", "namespaces", "services", "serviceaccounts");

    /**
     * An object as the API server keeps it: fabric8's store gives every object a metadata.generation, which the
     * API server sets only for kinds with a spec it tracks (pods, jobs, custom resources), never for these.
     */
    private static final Set<String> WITHOUT_GENERATION = Set.of(
            "configmaps",
            "events",
            "namespaces",
            "secrets",
            "serviceaccounts",
            "services",
            "leases",
            "clusterroles",
            "clusterrolebindings",
            "roles",
            "rolebindings");

    /**
     * fabric8's store copies the stored object's generation into its update, and fails on an object without one:
     * it gets one to copy, which the update loses again before it is stored or answered.
     */
    @Override
    public void preserveMetadata(JsonNode current, JsonNode updated) {
        if (current.get("metadata") instanceof ObjectNode metadata && !metadata.has("generation")) {
            metadata.put("generation", 0);
        }
        super.preserveMetadata(current, updated);
    }

    private static String withoutGeneration(ResourcePath resource, String json) {
        if (json == null
                || resource == null
                || !WITHOUT_GENERATION.contains(resource.plural())
                || !json.contains("\"generation\"")) {
            return json;
        }
        var object = (ObjectNode) Serialization.unmarshal(json, JsonNode.class);
        if (object.get("metadata") instanceof ObjectNode metadata) {
            metadata.remove("generation");
        }
        return Serialization.asJson(object);
    }

    /**
     * The store's refusals as the API server words them: it answers a missing object with a bare 404 and a taken
     * name or a stale resourceVersion with a 409 of its own words and reason "Invalid".
     */
    private MockResponse inApiServerWords(
            RecordedRequest request, byte[] sent, ResourcePath resource, MockResponse response) {
        boolean bare = response.getBody() == null || response.getBody().size() == 0;
        if (response.code() == 404 && bare && resource.name() != null) {
            return StatusAnswers.notFound(resource, resource.name());
        }
        if (response.code() != 409) {
            return response;
        }
        if ("POST".equals(request.getMethod())) {
            String name = Serialization.unmarshal(
                            new String(sent, StandardCharsets.UTF_8), GenericKubernetesResource.class)
                    .getMetadata()
                    .getName();
            return StatusAnswers.alreadyExists(resource, name);
        }
        return StatusAnswers.conflict(resource, resource.name());
    }

    /** The API server's refusal of a body that is not JSON: the kind it expected, why the body is not, the body. */
    private MockResponse unrecognized(String path, ResourcePath resource, byte[] sent, String parseError) {
        String bare = path.contains("?") ? path.substring(0, path.indexOf('?')) : path;
        String[] listType =
                discovery.listType(resource.name() == null ? bare : bare.substring(0, bare.lastIndexOf('/')));
        String kind = listType == null ? "Unknown" : listType[1].substring(0, listType[1].length() - "List".length());
        return StatusAnswers.failure(
                400,
                "BadRequest",
                "the object provided is unrecognized (must be of type "
                        + kind + "): couldn't get version/kind; json parse error: " + parseError + " ("
                        + new String(sent, StandardCharsets.UTF_8) + ")");
    }

    /** The JSON of every stored object that holds this text (a uid), as the store holds them now. */
    List<String> storedHolding(String text) {
        synchronized (map) {
            return map.values().stream().filter(json -> json.contains(text)).toList();
        }
    }

    /** The namespaces the store holds, read again after a namespace was written. */
    private void refreshNamespaces() {
        Set<String> current = new HashSet<>();
        String list = stored(NAMESPACES);
        if (list != null) {
            Serialization.unmarshal(list, NamespaceList.class)
                    .getItems()
                    .forEach(n -> current.add(n.getMetadata().getName()));
        }
        namespaces.retainAll(current);
        namespaces.addAll(current);
    }

    @Override
    public MockResponse handleCreate(RecordedRequest request) {
        if (AccessReviews.isReview(request.getPath())) {
            return accessReviews.answer(request, request.getUtf8Body());
        }
        MockResponse refused = isTrainJobPath(request.getPath()) ? admission.plannedRefusal() : null;
        if (refused != null) {
            return refused;
        }
        return isTrainJobPath(request.getPath())
                ? admission.writeTrainJob(request, null, super::handleCreate)
                : super.handleCreate(admission.withRuntimeDefaults(request));
    }

    @Override
    public MockResponse handleUpdate(RecordedRequest request) {
        return isTrainJobPath(request.getPath())
                ? admission.writeTrainJob(request, stored(request.getPath().split("\\?")[0]), super::handleUpdate)
                : super.handleUpdate(admission.withRuntimeDefaults(request));
    }

    /**
     * A TrainJob patch is applied here and admitted as the update it makes, against the stored object (so the
     * CRD's schema and transition rules hold for patches too), then stored as that update. Like the API server
     * for a custom resource, a strategic merge patch is refused: CRDs have no patch strategies.
     */
    @Override
    public MockResponse handlePatch(RecordedRequest request) {
        String path = request.getPath();
        String type = String.valueOf(request.getHeader("Content-Type"));
        if (!isTrainJobPath(path) || ResourcePath.isStatus(path) || type.startsWith("application/apply-patch")) {
            return super.handlePatch(request);
        }
        if (type.startsWith("application/strategic-merge-patch+json")) {
            return StatusAnswers.failure(
                    415,
                    "UnsupportedMediaType",
                    "the body of the request was in an unknown"
                            + " format - accepted media types include: application/json-patch+json, application/merge-patch+json,"
                            + " application/apply-patch+yaml");
        }
        String old = stored(path.split("\\?")[0]);
        if (old == null) {
            return super.handlePatch(request);
        }
        String patched;
        try {
            patched = ObjectPatches.apply(old, request.getUtf8Body(), type);
        } catch (ObjectPatches.UndecodablePatch e) {
            return StatusAnswers.failure(400, "BadRequest", e.getMessage());
        } catch (IllegalArgumentException e) {
            return StatusAnswers.failure(422, "Invalid", "the patch could not be applied: " + e.getMessage());
        }
        return admission.writeTrainJob(
                new RecordedRequest(
                        request.getHttpVersion(),
                        HttpMethod.PUT,
                        path,
                        request.getHeaders(),
                        new Buffer().writeUtf8(patched)),
                old,
                super::handleUpdate);
    }

    @Override
    public MockResponse handleWatch(String path) {
        if (watchFaults.takeGoneAnswer(path)) {
            return StatusAnswers.failure(410, "Expired", "too old resource version (sandbox fault injection)");
        }
        return super.handleWatch(path);
    }

    /** The request with another body, otherwise as sent. */
    static RecordedRequest withBody(RecordedRequest request, String body) {
        return new RecordedRequest(
                request.getHttpVersion(),
                request.method(),
                request.getPath(),
                request.getHeaders(),
                new Buffer().writeUtf8(body));
    }
}
