package io.camelkubeflow.trainer.sandbox.store;

import java.util.Iterator;
import java.util.Map;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.zjsonpatch.JsonPatch;
import io.fabric8.zjsonpatch.JsonPatchException;

/**
 * The patches the API server applies: a JSON patch (RFC 6902) or a JSON merge patch (RFC 7386), so that what a patch
 * of a TrainJob makes can be admitted as an update before anything is stored, and a merge patch of any kind replaces
 * lists and removes keys set to null as kube-apiserver does (fabric8's store merges lists and keeps the nulls).
 */
final class ObjectPatches {
    private static final ObjectMapper JSON = new ObjectMapper();

    private ObjectPatches() {
    }

    /**
     * @return the object {@code patch} makes of {@code stored}
     * @throws IllegalArgumentException when the patch is not JSON or cannot be applied (a failed {@code test}, a path
     *                                  that is not there)
     */
    static String apply(String stored, String patch, String contentType) {
        try {
            JsonNode object = JSON.readTree(stored);
            JsonNode changes = JSON.readTree(patch);
            JsonNode patched = contentType.startsWith("application/json-patch+json") ? JsonPatch.apply(changes, object)
                    : merge(object, changes);
            return JSON.writeValueAsString(patched);
        } catch (JsonProcessingException | JsonPatchException e) {
            throw new IllegalArgumentException(e.getMessage(), e);
        }
    }

    /** RFC 7386: an object merges key by key, a null removes its key, anything else replaces. */
    static JsonNode merge(JsonNode target, JsonNode patch) {
        if (!patch.isObject()) {
            return patch;
        }
        ObjectNode result = target != null && target.isObject() ? (ObjectNode) target.deepCopy()
                : JSON.createObjectNode();
        for (Iterator<Map.Entry<String, JsonNode>> fields = patch.fields(); fields.hasNext(); ) {
            Map.Entry<String, JsonNode> field = fields.next();
            if (field.getValue().isNull()) {
                result.remove(field.getKey());
            } else {
                result.set(field.getKey(), merge(result.get(field.getKey()), field.getValue()));
            }
        }
        return result;
    }
}
