package io.camelkubeflow.trainer.sandbox.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.camelkubeflow.trainer.sandbox.TrainerSandbox;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** The CRDs and runtimes the sandbox installs, also as the JSON the build writes beside their YAML. */
class JsonResourcesTest {
    @Test
    void everyYamlFileTheSandboxInstallsIsOnTheClassPathAlsoAsTheSameJson() throws IOException {
        ObjectMapper yaml = new ObjectMapper(new YAMLFactory());
        Path classes = Path.of("target/classes");
        int compared = 0;
        for (String folder : JsonResources.FOLDERS) {
            try (Stream<Path> files = Files.walk(classes.resolve(folder))) {
                for (Path file :
                        files.filter(f -> f.toString().endsWith(".yaml")).toList()) {
                    String resource = "/" + classes.relativize(file).toString().replace('\\', '/');
                    String jsonResource = resource.replace(".yaml", ".json");
                    try (InputStream json = getClass().getResourceAsStream(jsonResource)) {
                        assertNotNull(json, "the build wrote no " + jsonResource);
                    }
                    assertEquals(
                            yaml.readTree(file.toFile()),
                            new ObjectMapper().readTree(JsonResources.read(resource)),
                            resource);
                    compared++;
                }
            }
        }
        assertTrue(compared >= 4 + TrainerSandbox.DEFAULT_RUNTIMES.size(), compared + " files compared");
    }
}
