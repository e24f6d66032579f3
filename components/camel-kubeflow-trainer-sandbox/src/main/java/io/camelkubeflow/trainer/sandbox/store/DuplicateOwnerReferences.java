package io.camelkubeflow.trainer.sandbox.store;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * What kube-apiserver does with an owner reference listed twice in an object it stores (apiserver's
 * dedupOwnerReferencesAndAddWarning, seen on kube-apiserver 1.36): it keeps the first of identical entries (entries
 * that only share a uid all stay), stores the object without the others and answers with a warning listing each
 * dropped entry's uid. On a create or an update it looks at the object sent; on a patch, at what the patch made.
 */
final class DuplicateOwnerReferences {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String SENT = ".metadata.ownerReferences contains duplicate entries; ";
    private static final String PATCHED =
            ".metadata.ownerReferences contains duplicate entries after mutating" + " admission happens; ";
    private static final String REST = "API server dedups owner references in 1.20+, and may reject such requests as"
            + " early as 1.24; please fix your requests; duplicate UID(s) observed: ";

    /** A request rewritten to store no duplicate: its new body and the {@code Warning} header to answer with. */
    record Rewrite(String body, String warning) {}

    private DuplicateOwnerReferences() {}

    /** A create's or an update's object without its duplicate owner references; empty when it has none. */
    static Optional<Rewrite> inObject(String body) {
        JsonNode object = read(body);
        if (!(object instanceof ObjectNode)) {
            return Optional.empty();
        }
        List<String> dropped = dropDuplicates(object);
        return dropped.isEmpty()
                ? Optional.empty()
                : Optional.of(new Rewrite(object.toString(), warning(SENT, dropped)));
    }

    /**
     * A JSON patch or merge patch of {@code stored} that also leaves out the duplicate owner references the patch would
     * make; empty when it makes none, or when the patch cannot be applied (the store refuses it then).
     */
    static Optional<Rewrite> inPatch(String stored, String patch, String contentType) {
        boolean jsonPatch = contentType.startsWith("application/json-patch+json");
        if (stored == null || !jsonPatch && !contentType.startsWith("application/merge-patch+json")) {
            return Optional.empty();
        }
        JsonNode patched;
        try {
            patched = read(ObjectPatches.apply(stored, patch, contentType));
        } catch (IllegalArgumentException notApplicable) {
            return Optional.empty();
        }
        if (!(patched instanceof ObjectNode)) {
            return Optional.empty();
        }
        List<String> dropped = dropDuplicates(patched);
        if (dropped.isEmpty()) {
            return Optional.empty();
        }
        JsonNode kept = patched.path("metadata").path("ownerReferences");
        JsonNode changes = read(patch);
        if (jsonPatch && changes instanceof ArrayNode operations) {
            operations
                    .addObject()
                    .put("op", "replace")
                    .put("path", "/metadata/ownerReferences")
                    .set("value", kept);
        } else if (changes instanceof ObjectNode merge) {
            merge.withObjectProperty("metadata").set("ownerReferences", kept);
        } else {
            return Optional.empty();
        }
        return Optional.of(new Rewrite(changes.toString(), warning(PATCHED, dropped)));
    }

    /** Drops from the object each owner reference equal to one before it; the dropped ones' uids, in order. */
    private static List<String> dropDuplicates(JsonNode object) {
        List<String> dropped = new ArrayList<>();
        if (!(object.path("metadata").get("ownerReferences") instanceof ArrayNode references)) {
            return dropped;
        }
        // JSON trees compare by value: a set keeps the first of equal references, in order, at one lookup each
        Set<JsonNode> kept = new LinkedHashSet<>();
        for (JsonNode reference : references) {
            if (!kept.add(reference)) {
                dropped.add(reference.path("uid").asText());
            }
        }
        references.removeAll();
        references.addAll(kept);
        return dropped;
    }

    /**
     * An RFC 7234 warning as the API server sends it: code 299, no agent, the text quoted; a control character of a
     * uid sent a space (no header may carry one; kube-apiserver's Go HTTP server writes them as spaces).
     */
    private static String warning(String start, List<String> uids) {
        String text = (start + REST + String.join(", ", uids)).replaceAll("\\p{Cntrl}", " ");
        return "299 - \"" + text.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
    }

    private static JsonNode read(String json) {
        try {
            return JSON.readTree(json);
        } catch (JsonProcessingException notJson) {
            return null;
        }
    }
}
