package io.camelkubeflow.trainer.sandbox;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.HashMap;
import java.util.Map;

/**
 * How the Trainer's release installs its default runtimes: its {@code manifests/overlays/runtimes} kustomization, as
 * copied from upstream, whose {@code images} give the Trainer's own images their release tag and whose {@code labels}
 * mark every runtime. Applied to each runtime the sandbox installs, as {@code kubectl apply -k} applies them to the
 * base runtimes on a cluster (only these two transformers: the overlay uses no other).
 */
final class RuntimesOverlay {
    static final String RESOURCE = "/kubeflow-trainer/overlays/runtimes/kustomization.yaml";
    private static final ObjectMapper JSON = new ObjectMapper();

    /** Image name (no tag) → the tag the overlay gives it. */
    private final Map<String, String> tags;

    private final Map<String, String> labels;

    private RuntimesOverlay(Map<String, String> tags, Map<String, String> labels) {
        this.tags = tags;
        this.labels = labels;
    }

    static RuntimesOverlay release() {
        try (InputStream yaml = RuntimesOverlay.class.getResourceAsStream(RESOURCE)) {
            JsonNode kustomization = new ObjectMapper(new YAMLFactory()).readTree(yaml);
            Map<String, String> tags = new HashMap<>();
            kustomization
                    .path("images")
                    .forEach(image -> tags.put(
                            image.path("name").asText(), image.path("newTag").asText()));
            Map<String, String> labels = new HashMap<>();
            kustomization
                    .path("labels")
                    .forEach(entry -> entry.path("pairs")
                            .fields()
                            .forEachRemaining(pair ->
                                    labels.put(pair.getKey(), pair.getValue().asText())));
            return new RuntimesOverlay(tags, labels);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The runtime's JSON with the overlay applied: its labels added, each image it names given its tag. */
    String apply(String runtimeJson) {
        try {
            ObjectNode runtime = (ObjectNode) JSON.readTree(runtimeJson);
            ObjectNode metadata = (ObjectNode) runtime.path("metadata");
            ObjectNode metadataLabels =
                    metadata.get("labels") instanceof ObjectNode present ? present : metadata.putObject("labels");
            labels.forEach(metadataLabels::put);
            retag(runtime);
            return runtime.toString();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Gives every container image of the overlay's its tag (kustomize's images transformer, by image name). */
    private void retag(JsonNode node) {
        if (node instanceof ObjectNode object) {
            JsonNode image = object.get("image");
            if (image != null && image.isTextual()) {
                String name = withoutTag(image.asText());
                if (tags.containsKey(name)) {
                    object.put("image", name + ":" + tags.get(name));
                }
            }
            object.forEach(this::retag);
        } else if (node.isArray()) {
            node.forEach(this::retag);
        }
    }

    private static String withoutTag(String image) {
        int digest = image.indexOf('@');
        String name = digest < 0 ? image : image.substring(0, digest);
        int colon = name.lastIndexOf(':');
        return colon > name.lastIndexOf('/') ? name.substring(0, colon) : name;
    }
}
