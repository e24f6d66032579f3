package io.camelkubeflow.trainer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Properties;
import java.util.Set;
import org.apache.camel.catalog.CamelCatalog;
import org.apache.camel.catalog.DefaultCamelCatalog;
import org.apache.camel.catalog.maven.DefaultMavenArtifactProvider;
import org.apache.camel.tooling.model.BaseOptionModel;
import org.apache.camel.tooling.model.ComponentModel;
import org.apache.camel.tooling.model.ComponentModel.EndpointOptionModel;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * What Camel's catalog tooling reads from a third-party jar, read from the packaged jar alone (a class loader of that
 * jar and nothing else; this test's own class path leaves the component out), the way the tools read it:
 * camel-catalog-maven's scan of a jar it resolved by GAV ({@code DefaultMavenArtifactProvider}, what an IDE plugin
 * or a Java tool uses to add a component by its Maven coordinates: {@code component.properties}, then each scheme's
 * service file, then the JSON beside the component class), and camel-catalog's resolver given only the class name
 * (the JSON from a class loader). Kaoto's catalog generator and {@code camel doc} render the resulting model:
 * description, options with their names, types and descriptions, headers.
 */
class CamelToolingIT {
    static final String SCHEME = "kubeflow-trainer";
    static final String COMPONENT_CLASS = "io.camelkubeflow.trainer.KubeflowTrainerComponent";
    static final Path JAR = Path.of(System.getProperty("component.jar", "target/component.jar"));
    static URLClassLoader jar;

    /** The scan camel-catalog-maven runs on the jars it downloaded, run on the built jar. */
    static final class JarScan extends DefaultMavenArtifactProvider {
        Set<String> addComponentsOf(CamelCatalog catalog, ClassLoader classLoader) {
            Set<String> names = new LinkedHashSet<>();
            scanCamelComponents(catalog, classLoader, names);
            return names;
        }
    }

    @BeforeAll
    static void openTheJar() throws IOException {
        assertTrue(Files.isRegularFile(JAR), "no packaged jar at " + JAR);
        jar = new URLClassLoader(new URL[] {JAR.toUri().toURL()}, null);
    }

    @AfterAll
    static void closeTheJar() throws IOException {
        jar.close();
    }

    @Test
    void theTestSeesTheComponentOnlyThroughTheJar() {
        assertThrows(
                ClassNotFoundException.class,
                () -> Class.forName(COMPONENT_CLASS),
                "the component is on this test's class path: the catalog could read it from there, not the jar");
    }

    @Test
    void theJarListsItsComponentWithItsCoordinates() throws IOException {
        Properties properties = new Properties();
        try (InputStream in = jar.getResourceAsStream("META-INF/services/org/apache/camel/component.properties")) {
            assertNotNull(in, "no component.properties in the jar");
            properties.load(in);
        }
        assertEquals(SCHEME, properties.getProperty("components"));
        assertEquals("io.camelkubeflow", properties.getProperty("groupId"));
        assertEquals("camel-kubeflow-trainer", properties.getProperty("artifactId"));
        assertEquals(System.getProperty("component.version"), properties.getProperty("version"));
        assertTrue(properties.getProperty("projectDescription").contains("Kubeflow Trainer"), properties.toString());
        assertEquals(null, jar.getResource("component.properties"), "the Camel plugin's stray copy is in the jar");
    }

    @Test
    void camelCatalogMavenAddsTheComponentFromTheJar() {
        DefaultCamelCatalog catalog = new DefaultCamelCatalog();
        assertEquals(Set.of(SCHEME), new JarScan().addComponentsOf(catalog, jar));
        assertTrue(catalog.findComponentNames().contains(SCHEME));

        ComponentModel model = catalog.componentModel(SCHEME);
        assertEquals("Kubeflow Trainer", model.getTitle());
        assertTrue(model.getDescription().startsWith("Drive Kubeflow Trainer v2 TrainJobs"), model.getDescription());
        assertEquals(COMPONENT_CLASS, model.getJavaType());
        // what camel catalog --display-gav and camel doc print as the dependency
        assertEquals(
                "io.camelkubeflow:camel-kubeflow-trainer:" + System.getProperty("component.version"),
                model.getGroupId() + ":" + model.getArtifactId() + ":" + model.getVersion());
        assertEquals("kubeflow-trainer:operation", model.getSyntax());

        List<String> options = model.getEndpointOptions().stream()
                .map(BaseOptionModel::getName)
                .toList();
        assertTrue(
                options.containsAll(List.of("operation", "runtime", "numNodes", "waitTimeout", "follow", "oauthToken")),
                options.toString());
        EndpointOptionModel operation = model.getEndpointOptions().stream()
                .filter(o -> o.getName().equals("operation"))
                .findFirst()
                .orElseThrow();
        assertTrue(
                operation.getEnums().containsAll(List.of("train", "wait", "logs", "events")),
                operation.getEnums().toString());
        // Kaoto's generator builds a form field of each: a title, a description and a type
        List<String> undescribed = model.getEndpointOptions().stream()
                .filter(o -> blank(o.getDisplayName()) || blank(o.getDescription()) || blank(o.getType()))
                .map(BaseOptionModel::getName)
                .toList();
        assertEquals(List.of(), undescribed);
        assertTrue(
                model.getEndpointOptions().stream()
                        .filter(o -> o.getName().equals("oauthToken"))
                        .allMatch(BaseOptionModel::isSecret),
                "tools mask a secret option only when the catalog says so");

        List<String> headers = model.getEndpointHeaders().stream()
                .map(BaseOptionModel::getName)
                .toList();
        // by name: the component's classes are not on this test's class path
        assertTrue(
                headers.containsAll(List.of("CamelKubeflowTrainerJobName", "CamelKubeflowTrainerIdempotencyKey")),
                headers.toString());
        assertTrue(
                model.getComponentOptions().stream().anyMatch(o -> o.getName().equals("namespace")));

        // and what an IDE plugin does with it: validate a URI
        assertTrue(catalog.validateEndpointProperties("kubeflow-trainer:train?runtime=torch-distributed&numNodes=2")
                .isSuccess());
        assertTrue(catalog.validateEndpointProperties("kubeflow-trainer:train?runtme=x")
                .getUnknown()
                .contains("runtme"));
    }

    @Test
    void aCatalogGivenTheClassNameReadsTheJsonFromTheJar() throws IOException {
        DefaultCamelCatalog catalog = new DefaultCamelCatalog();
        catalog.addComponent(SCHEME, COMPONENT_CLASS);
        catalog.getJSonSchemaResolver().setClassLoader(jar);
        assertEquals(
                resource("META-INF/io/camelkubeflow/trainer/kubeflow-trainer.json"),
                catalog.componentJSonSchema(SCHEME),
                "the JSON beside the class is the component's one JSON");
        assertEquals(SCHEME, catalog.componentModel(SCHEME).getScheme());
    }

    @Test
    void theDevConsoleIsDescribedAsCamelsOwnAre() throws IOException {
        Properties consoles = new Properties();
        try (InputStream in = jar.getResourceAsStream("META-INF/services/org/apache/camel/dev-consoles.properties")) {
            assertNotNull(in, "no dev-consoles.properties in the jar");
            consoles.load(in);
        }
        assertEquals(SCHEME, consoles.getProperty("dev-consoles"));
        assertTrue(resource("META-INF/services/org/apache/camel/dev-console/" + SCHEME)
                .contains("class=io.camelkubeflow.trainer.KubeflowTrainerDevConsole"));
        assertTrue(resource("META-INF/org/apache/camel/dev-console/" + SCHEME + ".json")
                .contains("\"name\": \"kubeflow-trainer\""));
    }

    private static String resource(String name) throws IOException {
        try (InputStream in = jar.getResourceAsStream(name)) {
            assertNotNull(in, "not in the jar: " + name);
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    private static boolean blank(String text) {
        return text == null || text.isBlank();
    }
}
