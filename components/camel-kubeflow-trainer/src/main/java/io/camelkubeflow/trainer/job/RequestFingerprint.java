package io.camelkubeflow.trainer.job;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.cfg.JsonNodeFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import io.camelkubeflow.trainer.api.TrainJob;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * What a request made, part by part, so that a later request with the same idempotency key can be told to be the same
 * request or not (as the IETF Idempotency-Key draft and payment APIs do): a short hash of the canonical JSON of each
 * part of the TrainJob the request shapes — each field of {@code spec}, each field of {@code spec.trainer} and {@code
 * spec.initializer} on its own, the request's own runtime patches, labels and annotations, and the inline script or
 * the workspace (the component's own runtime patch, which carries or mounts it). It is computed from
 * the TrainJob to write, not from the request's wording, so a header and a body field asking the same thing agree; it
 * is recorded on the job as {@link TrainJobMetadata#REQUEST_FINGERPRINT_ANNOTATION} ({@code part=hash,...}), so the
 * parts that differ can be named.
 */
final class RequestFingerprint {
    /** The spec fields whose own fields are compared one by one. */
    private static final List<String> SPLIT = List.of("trainer", "initializer");
    /** Writes a tree with each object's properties in name order: the canonical form that is hashed. */
    private static final ObjectMapper CANONICAL =
            JsonMapper.builder().enable(JsonNodeFeature.WRITE_PROPERTIES_SORTED).build();

    private RequestFingerprint() {}

    /** Each part of the TrainJob to its hash, in name order. */
    static Map<String, String> of(TrainJob wanted) {
        Map<String, String> parts = new TreeMap<>();
        JsonNode spec = CANONICAL.valueToTree(wanted.getSpec());
        for (Iterator<Map.Entry<String, JsonNode>> fields = spec.fields(); fields.hasNext(); ) {
            Map.Entry<String, JsonNode> field = fields.next();
            if (field.getKey().equals("runtimePatches")) {
                putPatches(parts, field.getValue());
            } else if (SPLIT.contains(field.getKey()) && field.getValue().isObject()) {
                field.getValue()
                        .fields()
                        .forEachRemaining(inner ->
                                parts.put("spec." + field.getKey() + "." + inner.getKey(), hash(inner.getValue())));
            } else {
                parts.put("spec." + field.getKey(), hash(field.getValue()));
            }
        }
        putIfAny(parts, "metadata.labels", requestOwn(wanted.getMetadata().getLabels()));
        putIfAny(parts, "metadata.annotations", requestOwn(wanted.getMetadata().getAnnotations()));
        return parts;
    }

    /**
     * The request's own runtime patches as one part, the component's as the part "script" (the inline script it
     * carries) or "workspace" (the staged workspace it mounts).
     */
    private static void putPatches(Map<String, String> parts, JsonNode patches) {
        ArrayNode own = CANONICAL.createArrayNode();
        for (JsonNode patch : patches) {
            if (TrainJobMetadata.PATCH_MANAGER.equals(patch.path("manager").asText())) {
                // told apart by the volume they add, not by their text: a script may hold any words
                parts.put(
                        patch.findValuesAsText("name").contains(TrainJobFactory.WORKSPACE_VOLUME)
                                ? "workspace"
                                : "script",
                        hash(patch));
            } else {
                own.add(patch);
            }
        }
        if (!own.isEmpty()) {
            parts.put("spec.runtimePatches", hash(own));
        }
    }

    static String format(Map<String, String> parts) {
        StringBuilder text = new StringBuilder();
        parts.forEach((part, hash) -> text.append(text.length() == 0 ? "" : ",")
                .append(part)
                .append('=')
                .append(hash));
        return text.toString();
    }

    /**
     * The parts whose hashes differ between two fingerprints as {@link #format} wrote them, in name order; a part
     * present in one only differs too.
     */
    static List<String> differing(String recorded, String wanted) {
        return differing(parse(recorded), parse(wanted));
    }

    private static Map<String, String> parse(String fingerprint) {
        Map<String, String> parts = new TreeMap<>();
        for (String pair : fingerprint.split(",")) {
            int equals = pair.indexOf('=');
            if (equals > 0) {
                parts.put(pair.substring(0, equals), pair.substring(equals + 1));
            }
        }
        return parts;
    }

    private static List<String> differing(Map<String, String> before, Map<String, String> wanted) {
        TreeSet<String> names = new TreeSet<>(before.keySet());
        names.addAll(wanted.keySet());
        List<String> differing = new ArrayList<>();
        for (String name : names) {
            if (!String.valueOf(before.get(name)).equals(String.valueOf(wanted.get(name)))) {
                differing.add(name);
            }
        }
        return differing;
    }

    private static void putIfAny(Map<String, String> parts, String part, Map<String, String> values) {
        if (!values.isEmpty()) {
            parts.put(part, hash(CANONICAL.valueToTree(values)));
        }
    }

    /** The labels or annotations the request asked for: the component's own say how, not what. */
    private static Map<String, String> requestOwn(Map<String, String> values) {
        Map<String, String> own = new TreeMap<>();
        if (values != null) {
            values.forEach((key, value) -> {
                if (!TrainJobMetadata.isReserved(key)) {
                    own.put(key, value);
                }
            });
        }
        return own;
    }

    /** 16 hex digits of the SHA-256 of the canonical JSON (map keys sorted). */
    private static String hash(JsonNode value) {
        try {
            return TrainJobMetadata.sha256(CANONICAL.writeValueAsString(value)).substring(0, 16);
        } catch (JsonProcessingException impossible) {
            throw new IllegalStateException(impossible);
        }
    }
}
