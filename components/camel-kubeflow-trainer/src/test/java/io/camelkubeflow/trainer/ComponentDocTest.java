package io.camelkubeflow.trainer;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The reference doc must document every option and header of the generated catalog. */
class ComponentDocTest {
    @Test
    void theAdocTablesListEveryOptionAndHeader() throws Exception {
        Map<?, ?> catalog = new ObjectMapper()
                .readValue(
                        Path.of("src/generated/resources/META-INF/io/camelkubeflow/trainer/kubeflow-trainer.json")
                                .toFile(),
                        Map.class);
        String adoc = Files.readString(Path.of("src/main/docs/kubeflow-trainer-component.adoc"));
        List<String> missing = new ArrayList<>();
        for (String section : List.of("properties", "headers")) {
            for (Object name : ((Map<?, ?>) catalog.get(section)).keySet()) {
                if (!adoc.contains("\n| " + name + " |")) {
                    missing.add(section + ": " + name);
                }
            }
        }
        assertEquals(List.of(), missing, "run python3 components/camel-kubeflow-trainer/update-doc-tables.py");
    }
}
