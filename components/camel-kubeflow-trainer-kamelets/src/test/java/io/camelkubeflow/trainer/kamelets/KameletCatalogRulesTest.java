package io.camelkubeflow.trainer.kamelets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.IOException;
import java.io.InputStream;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The rules the Apache Kamelet catalog's validator ({@code script/validator} in apache/camel-kamelets) holds every
 * Kamelet to, checked on the Kamelets as they ship (the source files, copied into the jar as they are), plus what a
 * user of these two needs: enums that match the component's, a data type the component provides, a version, never a
 * placeholder (the project's: {@link WrittenVersionsTest}).
 * One rule differs on purpose: the validator wants {@code camel.apache.org/provider: Apache Software Foundation} for
 * the Apache catalog's own Kamelets; these are not Apache's, so they name their provider, and the rule is that one is
 * named.
 */
class KameletCatalogRulesTest {
    /** The validator's way of finding a parameter in a template: {@code {{name}}}, {@code {{?name}}}, with a default. */
    private static final Pattern PARAMETER = Pattern.compile("\\{\\{[?]?([A-Za-z0-9-._]+)(?::[^}]*)?}}");

    private static final Set<String> TYPES = Set.of("source", "sink", "action");
    /** Words a property title need not capitalize (the English stopwords that occur in titles). */
    private static final Set<String> STOPWORDS = Set.of(
            "a", "an", "and", "as", "at", "by", "for", "from", "in", "of", "on", "or", "per", "the", "to", "with");

    private static final String COMPONENT_DEPENDENCY = "mvn:io.camelkubeflow:camel-kubeflow-trainer:";

    static final Map<String, Map<String, Object>> KAMELETS = new LinkedHashMap<>();
    static Map<String, Object> componentCatalog;

    @BeforeAll
    @SuppressWarnings("unchecked")
    static void loadTheShippedKamelets() throws IOException, URISyntaxException {
        Path dir =
                Path.of(KameletCatalogRulesTest.class.getResource("/kamelets").toURI());
        try (Stream<Path> files = Files.list(dir)) {
            for (Path file : files.filter(f -> f.toString().endsWith(".kamelet.yaml"))
                    .sorted()
                    .toList()) {
                KAMELETS.put(file.getFileName().toString(), Serialization.unmarshal(Files.readString(file), Map.class));
            }
        }
        try (InputStream json = KameletCatalogRulesTest.class.getResourceAsStream(
                "/META-INF/io/camelkubeflow/trainer/kubeflow-trainer.json")) {
            componentCatalog =
                    Serialization.unmarshal(new String(json.readAllBytes(), StandardCharsets.UTF_8), Map.class);
        }
        assertEquals(
                Set.of("kubeflow-trainer-action.kamelet.yaml", "kubeflow-trainjob-source.kamelet.yaml"),
                KAMELETS.keySet());
    }

    @Test
    void everyKameletPassesTheCatalogValidatorsRules() {
        List<String> errors = new ArrayList<>();
        Set<Object> titles = new HashSet<>();
        Set<Object> descriptions = new HashSet<>();
        KAMELETS.forEach((file, kamelet) -> {
            Map<String, Object> metadata = map(kamelet.get("metadata"));
            String name = (String) metadata.get("name");
            if (!file.equals(name + ".kamelet.yaml")) {
                errors.add(file + ": does not match the name of the Kamelet in it, " + name);
            }
            String type = (String) map(metadata.get("labels")).get("camel.apache.org/kamelet.type");
            if (!TYPES.contains(type)) {
                errors.add(name + ": camel.apache.org/kamelet.type is " + type);
            } else if (!name.endsWith("-" + type)) {
                errors.add(name + ": its name does not end with -" + type);
            }
            Map<String, Object> spec = map(kamelet.get("spec"));
            Map<String, Object> definition = map(spec.get("definition"));
            String title = (String) definition.get("title");
            if (blank(title)) {
                errors.add(name + ": no title");
            } else if (type != null
                    && !title.endsWith(type.substring(0, 1).toUpperCase(Locale.ROOT) + type.substring(1))) {
                errors.add(name + ": title '" + title + "' does not end with its type");
            }
            if (blank(definition.get("description"))) {
                errors.add(name + ": no description");
            }
            if (!titles.add(title) || !descriptions.add(definition.get("description"))) {
                errors.add(name + ": its title or description is another Kamelet's");
            }
            if (!"object".equals(definition.get("type"))) {
                errors.add(name + ": the definition is not of type object");
            }
            Map<String, Object> properties = map(definition.get("properties"));
            List<?> required = definition.get("required") == null ? List.of() : (List<?>) definition.get("required");
            if (new HashSet<>(required).size() != required.size()) {
                errors.add(name + ": a required property is listed twice");
            }
            required.stream()
                    .filter(p -> !properties.containsKey(p))
                    .forEach(p -> errors.add(name + ": required property " + p + " is not defined"));
            properties.forEach((property, value) -> propertyRules(name, property, map(value), errors));
            annotationRules(name, map(metadata.get("annotations")), errors);
            Set<String> used = new TreeSet<>();
            parameters(spec.get("template"), used);
            if (!used.equals(new TreeSet<>(properties.keySet()))) {
                errors.add(name + ": parameters used " + used + ", declared " + new TreeSet<>(properties.keySet()));
            }
        });
        assertEquals(List.of(), errors);
    }

    private static void propertyRules(
            String kamelet, String property, Map<String, Object> schema, List<String> errors) {
        String where = kamelet + ": property " + property;
        if (blank(schema.get("type"))) {
            errors.add(where + " has no type");
        }
        String title = (String) schema.get("title");
        if (blank(title)) {
            errors.add(where + " has no title");
        } else {
            for (String word : title.split(" ")) {
                if (!STOPWORDS.contains(word.toLowerCase(Locale.ROOT))
                        && !word.isEmpty()
                        && !Character.isUpperCase(word.charAt(0))) {
                    errors.add(where + " has a word in its title that is not capitalized: " + word);
                }
            }
            if (title.startsWith("The ") || title.startsWith("A ") || title.startsWith("An ")) {
                errors.add(where + " has a title starting with an article");
            }
        }
        if (blank(schema.get("description"))) {
            errors.add(where + " has no description");
        }
        if ("password".equals(schema.get("format"))) {
            List<?> descriptors = (List<?>) schema.getOrDefault("x-descriptors", List.of());
            if (!descriptors.contains("urn:camel:group:credentials")) {
                errors.add(where + " is a password without the credentials descriptor");
            }
        }
    }

    private static void annotationRules(String kamelet, Map<String, Object> annotations, List<String> errors) {
        String icon = (String) annotations.get("camel.apache.org/kamelet.icon");
        String svgPrefix = "data:image/svg+xml;base64,";
        if (blank(icon)
                || !icon.startsWith(svgPrefix)
                || !new String(Base64.getDecoder().decode(icon.substring(svgPrefix.length())), StandardCharsets.UTF_8)
                        .startsWith("<svg")) {
            errors.add(kamelet + ": camel.apache.org/kamelet.icon is not an SVG data URI");
        }
        if (blank(annotations.get("camel.apache.org/catalog.version"))) {
            errors.add(kamelet + ": no camel.apache.org/catalog.version");
        }
        if (blank(annotations.get("camel.apache.org/provider"))) {
            errors.add(kamelet + ": no camel.apache.org/provider");
        }
    }

    @Test
    void eachKameletDependsOnTheComponentOfItsOwnVersionAndOnWhatItsTemplateUses() {
        KAMELETS.forEach((file, kamelet) -> {
            Map<String, Object> annotations = map(map(kamelet.get("metadata")).get("annotations"));
            String version = (String) annotations.get("camel.apache.org/catalog.version");
            assertTrue(version.matches("\\d+\\.\\d+\\.\\d+(-SNAPSHOT)?"), file + ": catalog.version " + version);
            Map<String, Object> spec = map(kamelet.get("spec"));
            List<?> dependencies = (List<?>) spec.get("dependencies");
            assertEquals(
                    List.of("camel:kamelet", COMPONENT_DEPENDENCY + version),
                    dependencies,
                    file + ": the component at the version the Kamelet ships in");
            Set<String> schemes = new TreeSet<>();
            schemes(spec.get("template"), schemes);
            assertEquals(Set.of("kamelet", "kubeflow-trainer"), schemes, file + ": the endpoints its template uses");
        });
    }

    @Test
    void enumsAndDefaultsAreTheComponentsOwn() {
        Map<String, Object> options = map(componentCatalog.get("properties"));
        KAMELETS.forEach((file, kamelet) -> {
            Map<String, Object> properties =
                    map(map(map(kamelet.get("spec")).get("definition")).get("properties"));
            properties.forEach((property, value) -> {
                Map<String, Object> schema = map(value);
                Map<String, Object> option = options.containsKey(property) ? map(options.get(property)) : null;
                if (option != null && option.get("enum") != null) {
                    assertEquals(
                            option.get("enum"),
                            schema.get("enum"),
                            file + ": " + property + " offers the component's values");
                }
                if (schema.get("enum") != null && schema.get("default") != null) {
                    assertTrue(
                            ((List<?>) schema.get("enum")).contains(schema.get("default")),
                            file + ": " + property + "'s default is one of its values");
                }
            });
        });
        Map<String, Object> action =
                map(map(map(KAMELETS.get("kubeflow-trainer-action.kamelet.yaml").get("spec"))
                                .get("definition"))
                        .get("properties"));
        assertTrue(
                action.get("bodyType") instanceof Map<?, ?> body && body.get("enum") != null, "bodyType has an enum");
        assertTrue(
                action.get("runtimeKind") instanceof Map<?, ?> kind && kind.get("enum") != null,
                "runtimeKind has an enum");
    }

    @Test
    void eachKameletsOutputIsADataTypeTheComponentProvides() {
        KAMELETS.forEach((file, kamelet) -> {
            Map<String, Object> out =
                    map(map(map(kamelet.get("spec")).get("dataTypes")).get("out"));
            Map<String, Object> types = map(out.get("types"));
            assertTrue(types.containsKey(out.get("default")), file + ": its default output type is declared");
            types.values().forEach(value -> {
                Map<String, Object> type = map(value);
                String format = (String) type.get("format");
                assertTrue(
                        KameletCatalogRulesTest.class.getResource(
                                        "/META-INF/services/org/apache/camel/transformer/" + format.replace(':', '-'))
                                != null,
                        file + ": " + format + " is a transformer on the classpath");
                assertEquals("application/json", type.get("mediaType"), file);
            });
        });
    }

    private static void parameters(Object node, Set<String> into) {
        if (node instanceof String text) {
            Matcher matcher = PARAMETER.matcher(text);
            while (matcher.find()) {
                into.add(matcher.group(1));
            }
        } else if (node instanceof Map<?, ?> map) {
            map.values().forEach(value -> parameters(value, into));
        } else if (node instanceof List<?> list) {
            list.forEach(value -> parameters(value, into));
        }
    }

    /** The scheme of every endpoint URI in a template: {@code uri:} values, and {@code to:} given as a string. */
    private static void schemes(Object node, Set<String> into) {
        if (node instanceof Map<?, ?> map) {
            map.forEach((key, value) -> {
                if (("uri".equals(key) || "to".equals(key)) && value instanceof String uri && uri.contains(":")) {
                    into.add(uri.substring(0, uri.indexOf(':')));
                } else {
                    schemes(value, into);
                }
            });
        } else if (node instanceof List<?> list) {
            list.forEach(value -> schemes(value, into));
        }
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> map(Object value) {
        return value == null ? Map.of() : (Map<String, Object>) value;
    }

    private static boolean blank(Object value) {
        return value == null || value.toString().isBlank();
    }
}
