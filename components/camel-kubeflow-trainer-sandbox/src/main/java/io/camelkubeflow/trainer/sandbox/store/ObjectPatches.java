package io.camelkubeflow.trainer.sandbox.store;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.zjsonpatch.JsonPatch;
import io.fabric8.zjsonpatch.JsonPatchException;
import java.util.Iterator;
import java.util.Map;

/**
 * The patches the API server applies: a JSON patch (RFC 6902) or a JSON merge patch (RFC 7386), so that what a patch
 * of a TrainJob makes can be admitted as an update before anything is stored, and a merge patch of any kind replaces
 * lists and removes keys set to null as kube-apiserver does (fabric8's store merges lists and keeps the nulls).
 */
final class ObjectPatches {
    private static final ObjectMapper JSON = new ObjectMapper();

    private ObjectPatches() {}

    /**
     * A merge patch kube-apiserver cannot decode into the object it patches, which it answers with 400 BadRequest in
     * these words: a patch that is not a JSON object, or one that leaves no metadata to name the object by.
     */
    static final class UndecodablePatch extends IllegalArgumentException {
        UndecodablePatch(String message) {
            super(message);
        }
    }

    /**
     * @return the object {@code patch} makes of {@code stored}
     * @throws UndecodablePatch for a merge patch kube-apiserver answers with 400
     * @throws IllegalArgumentException when the patch is not JSON or cannot be applied (a failed {@code test}, a path
     *                                  that is not there)
     */
    static String apply(String stored, String patch, String contentType) {
        try {
            JsonNode object = JSON.readTree(stored);
            JsonNode changes = JSON.readTree(patch);
            JsonNode patched = contentType.startsWith("application/json-patch+json")
                    ? JsonPatch.apply(changes, object)
                    : mergeIntoObject(object, changes);
            return JSON.writeValueAsString(patched);
        } catch (JsonProcessingException | JsonPatchException e) {
            throw new IllegalArgumentException(e.getMessage(), e);
        }
    }

    /**
     * A merge patch applied to a stored object as kube-apiserver applies it: RFC 7386 ({@link #merge}), the patch a
     * JSON object and what it makes an object with metadata.
     *
     * @throws UndecodablePatch otherwise, in kube-apiserver's words
     */
    static JsonNode mergeIntoObject(JsonNode stored, JsonNode patch) {
        if (patch.isNull()) {
            throw new UndecodablePatch("Invalid JSON Patch");
        }
        if (!patch.isObject()) {
            throw new UndecodablePatch("error decoding patch: json: cannot unmarshal "
                    + (patch.isArray() ? "array" : patch.isNumber() ? "number" : patch.isTextual() ? "string" : "bool")
                    + " into Go value of type map[string]interface {}");
        }
        JsonNode merged = merge(stored, patch);
        if (!merged.path("metadata").isObject()) {
            throw new UndecodablePatch("the name of the object ("
                    + stored.path("metadata").path("name").asText()
                    + " based on URL) was undeterminable: name must be provided");
        }
        return merged;
    }

    /** RFC 7386: an object merges key by key, a null removes its key, anything else replaces. */
    private static JsonNode merge(JsonNode target, JsonNode patch) {
        if (!patch.isObject()) {
            return patch;
        }
        ObjectNode result =
                target != null && target.isObject() ? (ObjectNode) target.deepCopy() : JSON.createObjectNode();
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
