package io.camelkubeflow.trainer.sandbox.store;

import static io.camelkubeflow.trainer.sandbox.store.ObservingCrudDispatcher.withBody;

import com.fasterxml.jackson.core.JsonProcessingException;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * What the Trainer's CRDs admit into the store: a TrainJob write shown to the listeners, then refused with 422 as the
 * CRD's schema or CEL rules would, or stored as the API server would store it; a runtime stored with its CRD's
 * defaults; and TrainJob creates refused as planned (fault injection).
 */
public final class TrainerAdmission {
    private static final String TRAINJOBS_PREFIX = "/apis/trainer.kubeflow.org/v1alpha1/namespaces/";
    private final List<Consumer<String>> trainJobWriteListeners = new CopyOnWriteArrayList<>();
    /** Set by the installation, which every request waits for. */
    private volatile CrdSchemaValidator trainJobSchema;
    /** The runtime kinds' schemas, by plural: a runtime is stored with their defaults, as the API server stores it. */
    private final Map<String, CrdSchemaValidator> runtimeSchemas = new ConcurrentHashMap<>();

    private final AtomicInteger refusedCreates = new AtomicInteger();
    private volatile int refusedCreateCode;

    TrainerAdmission() {}

    /** TrainJob writes are admitted by this schema (the TrainJob CRD's), from now on. */
    public void admitTrainJobsBy(CrdSchemaValidator schema) {
        trainJobSchema = schema;
    }

    /** Runtimes of this plural are stored with the defaults of this schema (their CRD's), from now on. */
    public void defaultRuntimesBy(String plural, CrdSchemaValidator schema) {
        runtimeSchemas.put(plural, schema);
    }

    /** Calls {@code listener} with the JSON body of every TrainJob create or replace, before it is stored. */
    public void onTrainJobWrite(Consumer<String> listener) {
        trainJobWriteListeners.add(listener);
    }

    /** Refuses the next {@code count} TrainJob creates with {@code code}, before anything is stored. */
    public void refuseNextTrainJobCreates(int count, int code) {
        refusedCreates.set(count);
        refusedCreateCode = code;
    }

    /** The refusal of a TrainJob create, when one is planned (using it up); null otherwise. */
    MockResponse plannedRefusal() {
        if (refusedCreates.getAndUpdate(n -> Math.max(n - 1, 0)) > 0) {
            return StatusAnswers.failure(refusedCreateCode, null, "refused by the sandbox (fault injection)");
        }
        return null;
    }

    static boolean isTrainJobPath(String path) {
        return path.startsWith(TRAINJOBS_PREFIX) && path.contains("/trainjobs");
    }

    /**
     * A write of a runtime with its CRD's defaults applied (a replicated job's replicas and groupName, a numNodes),
     * as the API server stores and serves it; the runtime's schema is not enforced.
     */
    RecordedRequest withRuntimeDefaults(RecordedRequest request) {
        ResourcePath resource = ResourcePath.of(request.getPath());
        CrdSchemaValidator schema = resource == null
                        || resource.plural() == null
                        || !"trainer.kubeflow.org/v1alpha1".equals(resource.groupVersion())
                ? null
                : runtimeSchemas.get(resource.plural());
        return schema == null || request.getBody() == null
                ? request
                : withBody(
                        request,
                        schema.withDefaults(new String(request.getBody().getBytes(), StandardCharsets.UTF_8)));
    }

    /**
     * Shows a TrainJob write to the listeners, then refuses it with 422 as the CRD's schema or CEL rules would
     * (against {@code stored}, the object it updates, or null for a create), or lets {@code store} store what the
     * API server would store. (Stricter than a real server in one way: unknown
     * fields are refused, not pruned, so a setting cannot vanish unnoticed.)
     */
    MockResponse writeTrainJob(RecordedRequest request, String stored, Function<RecordedRequest, MockResponse> store) {
        String body = request.getUtf8Body();
        trainJobWriteListeners.forEach(listener -> listener.accept(body));
        if (ResourcePath.isStatus(request.getPath())) {
            return store.apply(withBody(request, body));
        }
        CrdSchemaValidator.Admission admission = trainJobSchema.admit(body, stored);
        if (!admission.violations().isEmpty()) {
            return StatusAnswers.invalid(
                    "trainer.kubeflow.org", "TrainJob", trainJobName(body, request), admission.violations());
        }
        return store.apply(withBody(request, admission.stored()));
    }

    /** The name a TrainJob write is about: its body's, else its path's (a patch names none in its body). */
    private String trainJobName(String body, RecordedRequest request) {
        try {
            String named = Serialization.jsonMapper()
                    .readTree(body)
                    .path("metadata")
                    .path("name")
                    .asText("");
            if (!named.isEmpty()) {
                return named;
            }
        } catch (JsonProcessingException e) {
            // not JSON: the path names it, if anything does
        }
        ResourcePath path = ResourcePath.of(request.getPath());
        return path.name() == null ? "" : path.name();
    }
}
