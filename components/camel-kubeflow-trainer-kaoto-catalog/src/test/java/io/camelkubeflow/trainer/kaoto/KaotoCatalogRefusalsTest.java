package io.camelkubeflow.trainer.kaoto;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveOutputStream;
import org.apache.commons.compress.compressors.gzip.GzipCompressorOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the build will not write: a definition Kaoto's catalog does not have, or an entry that would replace one of
 * Kaoto's (its catalog naming a {@code kubeflow-trainer} of its own one day). Each on a small package made here in
 * the npm package's layout.
 */
class KaotoCatalogRefusalsTest {
    static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path work;

    @Test
    void aDefinitionKaotosCatalogDoesNotHaveIsRefusedNamingThoseItHas() throws IOException {
        KaotoPackage base = pack(Map.of());
        IOException refused = assertThrows(
                IOException.class, () -> catalog(base).write(List.of("Camel Main 4.17.0"), work.resolve("out")));
        assertTrue(
                refused.getMessage().contains("no definition 'Camel Main 4.17.0'")
                        && refused.getMessage().contains("[Camel Main 1.0.0]"),
                refused.getMessage());
        assertFalse(Files.exists(work.resolve("out")), "nothing written");
    }

    @Test
    void aComponentKaotosCatalogAlreadyHasIsNotReplaced() throws IOException {
        KaotoPackage base = pack(Map.of("kubeflow-trainer", Map.of("component", Map.of("title", "Kaoto's own"))));
        IOException refused = assertThrows(
                IOException.class, () -> catalog(base).write(List.of("Camel Main 1.0.0"), work.resolve("out")));
        assertTrue(
                refused.getMessage().contains("components already have one named kubeflow-trainer"),
                refused.getMessage());
    }

    private static KaotoCatalog catalog(KaotoPackage base) throws IOException {
        ObjectNode component = (ObjectNode) JSON.readTree("""
                {"component": {"name": "kubeflow-trainer", "version": "0.1.0"}, "properties": {}}""");
        JsonNode kamelet = JSON.readTree("""
                {"metadata": {"name": "kubeflow-trainer-action"}, "spec": {"definition": {"title": "A"}}}""");
        return new KaotoCatalog(base, component, List.of(kamelet));
    }

    /** A package of one definition, Camel Main 1.0.0, whose components are the given ones. */
    private KaotoPackage pack(Map<String, Object> components) throws IOException {
        Path tarball = work.resolve("kaoto-camel-catalog-test.tgz");
        Map<String, Object> files = Map.of(
                "index.json",
                        Map.of(
                                "version",
                                3,
                                "name",
                                "test",
                                "definitions",
                                List.of(Map.of(
                                        "name",
                                        "Camel Main 1.0.0",
                                        "runtime",
                                        "Main",
                                        "version",
                                        "1.0.0",
                                        "fileName",
                                        "camel-main/1.0.0/index-1.json"))),
                "camel-main/1.0.0/index-1.json",
                        Map.of(
                                "name",
                                "Camel Main 1.0.0",
                                "catalogs",
                                Map.of(
                                        "components", Map.of("name", "components", "file", "components-1.json"),
                                        "kamelets", Map.of("name", "kamelets", "file", "kamelets-1.json"))),
                "camel-main/1.0.0/components-1.json", components,
                "camel-main/1.0.0/kamelets-1.json", Map.of());
        try (OutputStream file = Files.newOutputStream(tarball);
                TarArchiveOutputStream tar = new TarArchiveOutputStream(new GzipCompressorOutputStream(file))) {
            for (Map.Entry<String, Object> entry : files.entrySet()) {
                byte[] content = JSON.writeValueAsString(entry.getValue()).getBytes(StandardCharsets.UTF_8);
                TarArchiveEntry tarEntry = new TarArchiveEntry(KaotoPackage.CATALOG_ROOT + entry.getKey());
                tarEntry.setSize(content.length);
                tar.putArchiveEntry(tarEntry);
                tar.write(content);
                tar.closeArchiveEntry();
            }
        }
        return KaotoPackage.at(tarball);
    }
}
