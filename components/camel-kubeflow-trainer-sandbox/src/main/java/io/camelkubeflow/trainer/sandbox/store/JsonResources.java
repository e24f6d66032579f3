package io.camelkubeflow.trainer.sandbox.store;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

/**
 * The CRDs and runtimes the sandbox installs at start, as compact JSON. Their YAML stays as copied from upstream; the
 * build writes each one's JSON beside it ({@code mvn process-classes} runs {@link #main}), because a start reads
 * 3.2 MB of CRDs: as YAML that took ~280 ms of a cold JVM's CPU, as JSON (357 KB for the largest) ~45 ms.
 */
public final class JsonResources {
    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
    /** The folders of the class path whose YAML files the sandbox installs. */
    static final List<String> FOLDERS = List.of("kubeflow-trainer", "jobset");
    /** The TrainJob CRD, whose schema and rules admit every TrainJob write. */
    public static final String TRAINJOBS_CRD = "/kubeflow-trainer/crds/trainer.kubeflow.org_trainjobs.yaml";
    /** JobSet's CRD (v0.12.0, the release Trainer v2.3.0 builds on): the Trainer makes a JobSet per TrainJob. */
    public static final String JOBSET_CRD = "/jobset/crds/jobset.x-k8s.io_jobsets.yaml";

    private JsonResources() {}

    /**
     * The compact JSON of a YAML resource of one object: the file the build wrote beside it, or (in a build that
     * skipped that step, such as an IDE's) converted now.
     */
    public static String read(String yamlResource) {
        String jsonResource = jsonName(yamlResource);
        try (InputStream json = JsonResources.class.getResourceAsStream(jsonResource)) {
            if (json != null) {
                return new String(json.readAllBytes(), StandardCharsets.UTF_8);
            }
            try (InputStream yaml = JsonResources.class.getResourceAsStream(yamlResource)) {
                if (yaml == null) {
                    throw new IllegalStateException("missing sandbox resource " + yamlResource);
                }
                return toJson(yaml);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static String toJson(InputStream yaml) throws IOException {
        return YAML.readTree(yaml).toString();
    }

    private static String jsonName(String yamlName) {
        return yamlName.substring(0, yamlName.length() - ".yaml".length()) + ".json";
    }

    /** At build time: writes the JSON beside every YAML file under {@link #FOLDERS} of the classes folder args[0]. */
    public static void main(String[] args) throws IOException {
        Path classes = Path.of(args[0]);
        for (String folder : FOLDERS) {
            try (Stream<Path> files = Files.walk(classes.resolve(folder))) {
                for (Path yaml :
                        files.filter(file -> file.toString().endsWith(".yaml")).toList()) {
                    try (InputStream in = Files.newInputStream(yaml)) {
                        Files.writeString(
                                yaml.resolveSibling(jsonName(yaml.getFileName().toString())), toJson(in));
                    }
                }
            }
        }
    }
}
