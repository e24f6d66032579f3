package io.camelkubeflow.trainer.kaoto;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The catalog the build writes to {@code target/kaoto-catalog/}, loaded as Kaoto loads a catalog URL
 * ({@link KaotoLoader}): every Camel definition offers the {@code kubeflow-trainer} component with its title, its
 * endpoint form and its headers, and the project's Kamelets with their forms; the rest is Kaoto's catalog as
 * published; and the forms are made as Kaoto's generator makes them, checked on every component and Kamelet of
 * Kaoto's own catalog.
 */
class KaotoCatalogTest {
    static final Path CATALOG = Path.of(System.getProperty("kaoto.catalog.directory"));
    static final KaotoPackage BASE = KaotoPackage.at(Path.of(System.getProperty("kaoto.npm.package")));
    static final ObjectMapper JSON = new ObjectMapper();

    static KaotoLoader kaoto;
    static ObjectNode component;
    static List<JsonNode> kamelets = new ArrayList<>();
    /** The JSON files of Kaoto's published catalog for Camel Main and Quarkus, by path, read once. */
    static final Map<String, byte[]> baseFiles = new HashMap<>();

    @BeforeAll
    static void loadTheCatalogAsKaotoDoes() throws IOException {
        kaoto = new KaotoLoader(CATALOG.resolve("index.json").toUri().toString());
        try (InputStream json = KaotoCatalogTest.class.getResourceAsStream("/" + KaotoCatalogBuild.COMPONENT_JSON)) {
            component = (ObjectNode) JSON.readTree(json);
        }
        BASE.read(
                path -> path.equals("index.json")
                        || (path.endsWith(".json")
                                && (path.startsWith("camel-main/4.18.4/") || path.startsWith("camel-quarkus/3.33.1/"))),
                entry -> baseFiles.put(entry.path(), entry.content().readAllBytes()));
        for (String name : List.of("kubeflow-trainer-action", "kubeflow-trainjob-source")) {
            try (InputStream yaml = KaotoCatalogTest.class.getResourceAsStream("/kamelets/" + name + ".kamelet.yaml")) {
                kamelets.add(new YAMLMapper().readTree(yaml));
            }
        }
    }

    @Test
    void theLibraryNamesTheCamelMainAndQuarkusDefinitionsWithTheComponent() {
        String version = component.path("component").path("version").asText();
        assertEquals(
                List.of(
                        "Camel Main 4.18.4 with kubeflow-trainer " + version,
                        "Camel Quarkus 3.33.1 with kubeflow-trainer " + version,
                        "XSLT 3.0"),
                kaoto.definitionNames());
        // Kaoto opens the first definition when none is chosen
        assertEquals(
                "Main", kaoto.library.path("definitions").get(0).path("runtime").asText());
    }

    @Test
    void everyCamelDefinitionOffersTheComponentWithItsTitleFormAndHeaders() throws IOException {
        for (String name : camelDefinitions()) {
            KaotoLoader.Loaded loaded = kaoto.select(name);
            JsonNode offered = loaded.components().get("kubeflow-trainer");
            assertNotNull(offered, name + " offers no kubeflow-trainer");
            JsonNode described = offered.path("component");
            assertEquals("Kubeflow Trainer", described.path("title").asText(), name);
            assertEquals(component.path("component").path("description"), described.path("description"), name);
            assertEquals("kubeflow-trainer:operation", described.path("syntax").asText(), name);
            assertEquals(
                    "Quarkus".equals(loaded.definition().path("runtime").asText())
                            ? "camel-quarkus-kubeflow-trainer"
                            : "camel-kubeflow-trainer",
                    described.path("artifactId").asText(),
                    name);

            // the form of an endpoint: every option, with its title, description and type; the operation required
            JsonNode form = offered.path("propertiesSchema");
            List<String> options = new ArrayList<>(component
                    .path("properties")
                    .propertyStream()
                    .map(Map.Entry::getKey)
                    .toList());
            assertEquals(
                    options,
                    form.path("properties")
                            .propertyStream()
                            .map(Map.Entry::getKey)
                            .toList(),
                    name);
            for (Map.Entry<String, JsonNode> option :
                    component.path("properties").properties()) {
                JsonNode field = form.path("properties").path(option.getKey());
                assertEquals(
                        option.getValue().path("displayName").asText(),
                        field.path("title").asText(),
                        option.getKey());
                assertEquals(
                        option.getValue().path("description").asText(),
                        field.path("description").asText(),
                        option.getKey());
                assertTrue(field.path("type").isTextual(), option.getKey());
            }
            assertEquals(List.of("operation"), JSON.convertValue(form.path("required"), List.class), name);
            assertEquals(
                    component.path("properties").path("operation").path("enum"),
                    form.path("properties").path("operation").path("enum"),
                    name);
            assertEquals(
                    "password",
                    form.path("properties").path("oauthToken").path("format").asText(),
                    name);

            assertEquals(component.path("headers"), offered.path("headers"), name);
            assertTrue(offered.path("headers").has("CamelKubeflowTrainerJobName"), name);
        }
    }

    @Test
    void everyCamelDefinitionOffersTheKameletsWithTheirForms() throws IOException {
        for (String name : camelDefinitions()) {
            ObjectNode offered = kaoto.select(name).kamelets();
            for (JsonNode kamelet : kamelets) {
                String kameletName = kamelet.path("metadata").path("name").asText();
                JsonNode entry = offered.get(kameletName);
                assertNotNull(entry, name + " offers no Kamelet " + kameletName);
                JsonNode definition = kamelet.path("spec").path("definition");
                JsonNode form = entry.path("propertiesSchema");
                assertEquals(definition.path("title"), form.path("title"), kameletName);
                assertEquals(definition.path("required"), form.path("required"), kameletName);
                assertEquals(
                        definition
                                .path("properties")
                                .propertyStream()
                                .map(Map.Entry::getKey)
                                .toList(),
                        form.path("properties")
                                .propertyStream()
                                .map(Map.Entry::getKey)
                                .toList(),
                        kameletName);
                for (Map.Entry<String, JsonNode> property :
                        definition.path("properties").properties()) {
                    JsonNode field = form.path("properties").path(property.getKey());
                    assertEquals(property.getValue().path("title"), field.path("title"), property.getKey());
                    assertEquals(property.getValue().path("type"), field.path("type"), property.getKey());
                }
                // the Kamelet itself, as Kaoto writes it into a route or Pipe: its template and dependencies
                assertEquals(kamelet.path("spec"), entry.path("spec"), kameletName);
                assertEquals(kamelet.path("metadata"), entry.path("metadata"), kameletName);
            }
            assertTrue(offered.has("source") && offered.has("sink"), "Kaoto's Kamelet boundaries stay");
        }
    }

    @Test
    void everythingElseIsKaotosPublishedCatalog() throws IOException {
        for (String name : camelDefinitions()) {
            KaotoLoader.Loaded loaded = kaoto.select(name);
            String baseName = name.substring(0, name.indexOf(" with "));
            for (String catalog : KaotoLoader.CATALOGS) {
                JsonNode ours = loaded.catalogs().get(catalog).deepCopy();
                if (catalog.equals("components")) {
                    ((ObjectNode) ours).remove("kubeflow-trainer");
                } else if (catalog.equals("kamelets")) {
                    kamelets.forEach(k -> ((ObjectNode) ours)
                            .remove(k.path("metadata").path("name").asText()));
                }
                assertEquals(baseCatalog(baseName, catalog), ours, baseName + " " + catalog);
            }
            assertEquals(
                    baseIndex(baseName).path("schemas").size(), loaded.schemas().size(), baseName);
            loaded.schemas().forEach((schema, content) -> assertTrue(content.length > 0, schema));
        }
    }

    @Test
    void theComponentFormIsWhatKaotosGeneratorWritesForEveryComponentOfItsCatalog() throws IOException {
        JsonNode components = baseCatalog("Camel Main 4.18.4", "components");
        List<String> differing = new ArrayList<>();
        for (Map.Entry<String, JsonNode> entry : components.properties()) {
            JsonNode kaotos = entry.getValue().path("propertiesSchema");
            ObjectNode ours =
                    ComponentFormSchema.of((ObjectNode) entry.getValue().path("properties"));
            // one departure: Kaoto's generator writes an integer default as a Java int, so grpc's Long.MAX_VALUE
            // becomes -1; ours keeps the value
            ours.path("properties").forEach(field -> {
                if (field.path("default").canConvertToLong()
                        && !field.path("default").canConvertToInt()) {
                    ((ObjectNode) field)
                            .put("default", (int) field.path("default").longValue());
                }
            });
            if (!kaotos.equals(ours)) {
                differing.add(entry.getKey());
            }
        }
        assertTrue(components.size() > 300, "components: " + components.size());
        assertEquals(List.of(), differing);
    }

    @Test
    void theKameletFormIsWhatKaotosGeneratorWritesForEveryKameletOfItsCatalog() throws IOException {
        JsonNode published = baseCatalog("Camel Main 4.18.4", "kamelets");
        List<String> differing = new ArrayList<>();
        for (Map.Entry<String, JsonNode> entry : published.properties()) {
            ObjectNode kamelet = entry.getValue().deepCopy();
            JsonNode kaotos = kamelet.remove("propertiesSchema");
            if (!kaotos.equals(KameletFormSchema.of(kamelet))) {
                differing.add(entry.getKey());
            }
        }
        assertTrue(published.size() > 200, "Kamelets: " + published.size());
        assertEquals(List.of(), differing);
    }

    @Test
    void aPackageWithoutThePinnedIntegrityIsRefused() throws IOException {
        Path copy = Files.createTempDirectory("kaoto-npm");
        Path tarball = copy.resolve("kaoto-camel-catalog-0.10.4.tgz");
        Files.writeString(tarball, "not the package");
        IOException refused = assertThrows(
                IOException.class, () -> KaotoPackage.fetch("0.10.4", KaotoPackage.integrity(BASE.tarball), copy));
        assertTrue(refused.getMessage().contains("not the pinned"), refused.getMessage());
        assertFalse(Files.exists(tarball), "the refused package is deleted");
    }

    private static List<String> camelDefinitions() {
        List<String> names = kaoto.definitionNames().stream()
                .filter(n -> n.startsWith("Camel "))
                .toList();
        assertEquals(2, names.size(), names.toString());
        return names;
    }

    /** The file of Kaoto's published catalog at the path (under {@code dist/camel-catalog/}). */
    private static JsonNode baseFile(String path) throws IOException {
        byte[] content = baseFiles.get(path);
        assertNotNull(content, path);
        return JSON.readTree(content);
    }

    private static String baseDefinitionFile(String definitionName) throws IOException {
        for (JsonNode definition : baseFile("index.json").path("definitions")) {
            if (definition.path("name").asText().equals(definitionName)) {
                return definition.path("fileName").asText();
            }
        }
        throw new AssertionError("no " + definitionName + " in Kaoto's catalog");
    }

    private static JsonNode baseIndex(String definitionName) throws IOException {
        return baseFile(baseDefinitionFile(definitionName));
    }

    private static JsonNode baseCatalog(String definitionName, String catalog) throws IOException {
        String definitionFile = baseDefinitionFile(definitionName);
        return baseFile(definitionFile.substring(0, definitionFile.lastIndexOf('/') + 1)
                + baseIndex(definitionName)
                        .path("catalogs")
                        .path(catalog)
                        .path("file")
                        .asText());
    }
}
