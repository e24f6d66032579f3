package io.camelkubeflow.trainer.kaoto;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;

/**
 * A catalog library Kaoto loads as it loads its own: Kaoto's published catalog for the chosen definitions (runtime and
 * Camel version), with the component added to each Camel definition's components and the Kamelets to its Kamelets.
 * Kaoto reads one components file and one Kamelets file per definition and merges nothing across catalogs, so the
 * definitions are whole copies; every file Kaoto reads is named as Kaoto names them, by a digest of its content.
 *
 * <p>Layout, as Kaoto's: {@code index.json} (the library: {@code definitions} with {@code name}, {@code runtime},
 * {@code version}, {@code fileName}; {@code starterTemplates}), each definition's {@code index-<digest>.json} in its
 * directory naming its {@code catalogs} (components, models, patterns, entities, languages, dataformats,
 * loadbalancers, functions, kamelets, kameletBoundaries) and {@code schemas}, by file names relative to it.
 */
final class KaotoCatalog {
    static final String COMPONENT = "kubeflow-trainer";
    /** The runtimes whose catalogs hold Camel components; the others (Citrus, XSLT) are copied as they are. */
    static final Set<String> CAMEL_RUNTIMES = Set.of("Main", "Quarkus", "SpringBoot");
    /** On Quarkus the component comes as this project's Camel Quarkus extension. */
    static final String QUARKUS_EXTENSION = "camel-quarkus-kubeflow-trainer";

    private static final ObjectMapper JSON = new ObjectMapper();

    private final KaotoPackage base;
    private final ObjectNode component;
    private final List<JsonNode> kamelets;

    /**
     * @param component the component's Camel catalog JSON
     * @param kamelets  the Kamelets, each as read from its YAML
     */
    KaotoCatalog(KaotoPackage base, ObjectNode component, List<JsonNode> kamelets) {
        this.base = base;
        this.component = component;
        this.kamelets = kamelets;
    }

    /** Writes the library of the named definitions of the base catalog into the (emptied) directory. */
    void write(List<String> definitionNames, Path directory) throws IOException {
        ObjectNode library = readLibrary();
        ArrayNode definitions = JSON.createArrayNode();
        List<String> directories = new ArrayList<>();
        for (String name : definitionNames) {
            JsonNode definition = findDefinition(library, name);
            definitions.add(definition.deepCopy());
            directories.add(parentOf(definition.path("fileName").asText()));
        }
        String starterTemplates = library.path("starterTemplates").asText("");
        if (!starterTemplates.isEmpty()) {
            directories.add(parentOf(starterTemplates));
        }

        deleteRecursively(directory);
        Files.createDirectories(directory);
        base.read(path -> directories.stream().anyMatch(path::startsWith), entry -> {
            Path target = directory.resolve(entry.path()).normalize();
            if (!target.startsWith(directory)) {
                throw new IOException("an entry outside the catalog: " + entry.path());
            }
            Files.createDirectories(target.getParent());
            Files.copy(entry.content(), target);
        });

        String version = component.path("component").path("version").asText();
        for (JsonNode definition : definitions) {
            if (CAMEL_RUNTIMES.contains(definition.path("runtime").asText())) {
                addTo((ObjectNode) definition, directory, version);
            }
        }
        library.put("name", library.path("name").asText() + ", with " + COMPONENT + " " + version);
        library.set("definitions", definitions);
        JSON.writerWithDefaultPrettyPrinter()
                .writeValue(directory.resolve("index.json").toFile(), library);
    }

    private ObjectNode readLibrary() throws IOException {
        ObjectNode[] library = new ObjectNode[1];
        base.read("index.json"::equals, entry -> library[0] = (ObjectNode) JSON.readTree(entry.content()));
        if (library[0] == null) {
            throw new IOException(base.tarball + " has no dist/camel-catalog/index.json");
        }
        return library[0];
    }

    private static JsonNode findDefinition(JsonNode library, String name) throws IOException {
        List<String> names = new ArrayList<>();
        for (JsonNode definition : library.path("definitions")) {
            if (definition.path("name").asText().equals(name)) {
                return definition;
            }
            names.add(definition.path("name").asText());
        }
        throw new IOException(
                "Kaoto's catalog has no definition '" + name + "' (kaoto.catalog.definitions); it has " + names);
    }

    private void addTo(ObjectNode definition, Path directory, String version) throws IOException {
        Path index = directory.resolve(definition.path("fileName").asText());
        ObjectNode catalogIndex = (ObjectNode) JSON.readTree(index.toFile());
        Path catalogDirectory = index.getParent();
        String runtime = definition.path("runtime").asText();
        add(catalogDirectory, catalogEntry(catalogIndex, "components"), Map.of(COMPONENT, componentEntry(runtime)));
        Map<String, ObjectNode> kameletEntries = new LinkedHashMap<>();
        for (JsonNode kamelet : kamelets) {
            ObjectNode entry = kamelet.deepCopy();
            entry.set("propertiesSchema", KameletFormSchema.of(kamelet));
            kameletEntries.put(kamelet.path("metadata").path("name").asText(), entry);
        }
        add(catalogDirectory, catalogEntry(catalogIndex, "kamelets"), kameletEntries);

        String name = definition.path("name").asText() + " with " + COMPONENT + " " + version;
        catalogIndex.put("name", name);
        definition.put("name", name);
        String indexName = digestName(index.getFileName().toString(), bytes(catalogIndex));
        Files.write(catalogDirectory.resolve(indexName), bytes(catalogIndex));
        Files.delete(index);
        definition.put("fileName", parentOf(definition.path("fileName").asText()) + indexName);
    }

    /** The component as Kaoto's catalog of the runtime holds it: its catalog JSON and the form of its endpoints. */
    private ObjectNode componentEntry(String runtime) {
        ObjectNode entry = component.deepCopy();
        if ("Quarkus".equals(runtime)) {
            ((ObjectNode) entry.get("component")).put("artifactId", QUARKUS_EXTENSION);
        }
        entry.set("propertiesSchema", ComponentFormSchema.of((ObjectNode) component.get("properties")));
        return entry;
    }

    /** Adds the entries to the catalog file the index entry names, none replacing one of Kaoto's. */
    private static void add(Path directory, ObjectNode catalogEntry, Map<String, ObjectNode> entries)
            throws IOException {
        ObjectNode catalog = read(directory, catalogEntry);
        for (Map.Entry<String, ObjectNode> entry : entries.entrySet()) {
            if (catalog.has(entry.getKey())) {
                throw new IOException(
                        "Kaoto's " + catalogEntry.path("name").asText() + " already have one named " + entry.getKey());
            }
            catalog.set(entry.getKey(), entry.getValue());
        }
        replace(directory, catalogEntry, catalog);
    }

    private static ObjectNode catalogEntry(ObjectNode catalogIndex, String catalog) throws IOException {
        JsonNode entry = catalogIndex.path("catalogs").path(catalog);
        if (!entry.isObject() || !entry.path("file").isTextual()) {
            throw new IOException("the catalog index names no " + catalog + " file: " + catalogIndex.path("name"));
        }
        return (ObjectNode) entry;
    }

    private static ObjectNode read(Path directory, JsonNode catalogEntry) throws IOException {
        return (ObjectNode) JSON.readTree(
                directory.resolve(catalogEntry.path("file").asText()).toFile());
    }

    /** Writes the catalog under a name of its new content's digest, in place of the file the entry names. */
    private static void replace(Path directory, ObjectNode catalogEntry, ObjectNode catalog) throws IOException {
        String old = catalogEntry.path("file").asText();
        byte[] content = bytes(catalog);
        String name = digestName(old, content);
        Files.write(directory.resolve(name), content);
        Files.delete(directory.resolve(old));
        catalogEntry.put("file", name);
    }

    private static byte[] bytes(JsonNode node) throws IOException {
        return JSON.writeValueAsBytes(node);
    }

    /** {@code kamelets-aggregate-13150235.json} and new content: the same stem with the content's digest. */
    private static String digestName(String fileName, byte[] content) {
        String stem = fileName.replaceFirst("(-[0-9a-f]+)?\\.json$", "");
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(content);
            return stem + "-" + HexFormat.of().formatHex(digest, 0, 4) + ".json";
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The directory of a file the library names, with its slash: what is copied of the base for it. */
    private static String parentOf(String path) throws IOException {
        int slash = path.lastIndexOf('/');
        if (slash <= 0) {
            throw new IOException("a catalog file outside a directory of its own: " + path);
        }
        return path.substring(0, slash + 1);
    }

    private static void deleteRecursively(Path directory) throws IOException {
        if (!Files.exists(directory)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(directory)) {
            for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(path);
            }
        }
    }
}
