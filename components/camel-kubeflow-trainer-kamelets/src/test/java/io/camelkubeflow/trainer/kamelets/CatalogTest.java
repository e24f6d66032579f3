package io.camelkubeflow.trainer.kamelets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.camel.catalog.CamelCatalog;
import org.apache.camel.catalog.DefaultCamelCatalog;
import org.apache.camel.catalog.EndpointValidationResult;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.snakeyaml.engine.v2.api.Load;
import org.snakeyaml.engine.v2.api.LoadSettings;

/**
 * Camel's tooling (the catalog behind Camel's IDE plugins, Kaoto and camel-jbang) knows the component from the JSON in
 * its jar: loaded into a CamelCatalog it accepts every kubeflow-trainer URI this project ships or documents (YAML DSL
 * routes, Kamelets, README and docs/) and rejects a misspelt option or a wrong type.
 */
class CatalogTest {
    static final Path PROJECT = Path.of("../..");
    static CamelCatalog catalog;

    @BeforeAll
    static void loadTheComponentIntoTheCatalog() throws IOException {
        catalog = new DefaultCamelCatalog();
        try (InputStream json =
                CatalogTest.class.getResourceAsStream("/META-INF/io/camelkubeflow/trainer/kubeflow-trainer.json")) {
            catalog.addComponent(
                    "kubeflow-trainer",
                    "io.camelkubeflow.trainer.KubeflowTrainerComponent",
                    new String(json.readAllBytes(), StandardCharsets.UTF_8));
        }
    }

    @Test
    void everyShippedAndDocumentedUriIsValid() throws IOException {
        List<String> uris = new ArrayList<>();
        try (Stream<Path> yaml = Stream.of(
                        "examples/yaml",
                        "examples/kamelet",
                        "routes/src/main/resources/routes",
                        "components/camel-kubeflow-trainer-kamelets/src/main/resources/kamelets")
                .map(PROJECT::resolve)
                .flatMap(CatalogTest::yamlFiles)) {
            for (Path file : yaml.toList()) {
                for (Object document :
                        new Load(LoadSettings.builder().build()).loadAllFromString(Files.readString(file))) {
                    collect(document, uris);
                }
            }
        }
        // quoted URIs, not the names of data types (new DataType("kubeflow-trainer:application-cloudevents"))
        List<Path> docs = new ArrayList<>(List.of(PROJECT.resolve("README.md")));
        try (Stream<Path> pages = Files.list(PROJECT.resolve("docs"))) {
            pages.filter(page -> page.toString().endsWith(".md")).sorted().forEach(docs::add);
        }
        for (Path doc : docs) {
            Matcher quoted = Pattern.compile("(?<!DataType\\()\"(kubeflow-trainer:[^\"\\s]+)\"")
                    .matcher(Files.readString(doc));
            while (quoted.find()) {
                uris.add(quoted.group(1));
            }
        }
        assertTrue(uris.size() >= 15, "URIs found: " + uris);
        List<String> invalid = new ArrayList<>();
        for (String uri : uris) {
            EndpointValidationResult result = catalog.validateEndpointProperties(uri);
            if (!result.isSuccess()) {
                invalid.add(uri + ": " + result.summaryErrorMessage(false));
            }
        }
        assertEquals(List.of(), invalid);
    }

    @Test
    void aMisspeltOptionOrAWrongTypeIsCaught() {
        EndpointValidationResult misspelt =
                catalog.validateEndpointProperties("kubeflow-trainer:train?runtme=torch-distributed");
        assertFalse(misspelt.isSuccess());
        assertTrue(misspelt.getUnknown().contains("runtme"), misspelt.summaryErrorMessage(false));
        EndpointValidationResult wrongType = catalog.validateEndpointProperties("kubeflow-trainer:train?numNodes=two");
        assertFalse(wrongType.isSuccess(), wrongType.summaryErrorMessage(false));
        EndpointValidationResult unknownOperation = catalog.validateEndpointProperties("kubeflow-trainer:retrain");
        assertFalse(unknownOperation.isSuccess(), "operation is an enum of the catalog");
    }

    /**
     * An app with the component (this module's test classpath: the component and Camel, no camel-kubernetes) has no
     * camel-kubernetes: its secrets dev console fails while camel.vault.kubernetes.secrets is unset, and Camel JBang's
     * {@code camel ps} then lists nothing.
     */
    @Test
    void theComponentDoesNotBringCamelKubernetes() {
        assertThrows(
                ClassNotFoundException.class,
                () -> Class.forName("org.apache.camel.component.kubernetes.KubernetesConfiguration"));
    }

    private static Stream<Path> yamlFiles(Path folder) {
        try {
            return Files.list(folder)
                    .filter(f -> f.toString().endsWith(".yaml"))
                    .sorted();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Every {uri: kubeflow-trainer:..., parameters: {...}} in a YAML document, as one URI. */
    private static void collect(Object node, List<String> uris) {
        if (node instanceof Map<?, ?> map) {
            if (map.get("uri") instanceof String uri && uri.startsWith("kubeflow-trainer:")) {
                Map<?, ?> parameters = map.get("parameters") instanceof Map<?, ?> p ? p : Map.of();
                uris.add(
                        parameters.isEmpty()
                                ? uri
                                : uri
                                        + (uri.contains("?") ? "&" : "?")
                                        + parameters.entrySet().stream()
                                                .map(e -> e.getKey() + "=" + e.getValue())
                                                .collect(Collectors.joining("&")));
            }
            map.values().forEach(value -> collect(value, uris));
        } else if (node instanceof List<?> list) {
            list.forEach(item -> collect(item, uris));
        }
    }
}
