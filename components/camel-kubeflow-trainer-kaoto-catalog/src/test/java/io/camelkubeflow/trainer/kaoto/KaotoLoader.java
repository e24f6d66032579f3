package io.camelkubeflow.trainer.kaoto;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Kaoto's way of loading a catalog library, step by step as its web app and VS Code extension do (kaoto/kaoto,
 * packages/ui/src): {@code RuntimeProvider} fetches the library at the catalog URL (the setting
 * {@code kaoto.catalog.url}) and takes its directory as {@code basePath}; a definition is picked by {@code name}
 * ({@code definitions[0]} when none is chosen); {@code CatalogLoaderProvider} / {@code fetchCamelCatalog} fetch
 * {@code `${basePath}/${fileName}`}, take its directory as {@code relativeBasePath}
 * ({@code CatalogSchemaLoader.getRelativeBasePath}) and fetch each catalog at {@code `${relativeBasePath}/${file}`}
 * (components, models, patterns, entities, languages, dataformats, loadbalancers, kamelets, kameletBoundaries,
 * functions: any one failing shows "Some catalog files might not be available"); the Kamelets offered are
 * {@code {...kameletBoundaries, ...kamelets}}; {@code SchemasLoaderProvider} fetches each of {@code schemas} the same
 * way. URLs are joined as strings, as Kaoto joins them.
 */
final class KaotoLoader {
    static final List<String> CATALOGS = List.of(
            "components",
            "models",
            "patterns",
            "entities",
            "languages",
            "dataformats",
            "loadbalancers",
            "kamelets",
            "kameletBoundaries",
            "functions");

    private static final ObjectMapper JSON = new ObjectMapper();

    final String catalogUrl;
    final String basePath;
    final JsonNode library;

    KaotoLoader(String catalogUrl) throws IOException {
        this.catalogUrl = catalogUrl;
        this.basePath = catalogUrl.substring(0, catalogUrl.lastIndexOf('/'));
        this.library = fetch(catalogUrl);
    }

    List<String> definitionNames() {
        List<String> names = new ArrayList<>();
        library.path("definitions")
                .forEach(definition -> names.add(definition.path("name").asText()));
        return names;
    }

    /** A definition as Kaoto has it once it is selected: its index, each of its catalogs and schemas, fetched. */
    record Loaded(JsonNode definition, JsonNode index, Map<String, JsonNode> catalogs, Map<String, byte[]> schemas) {
        JsonNode components() {
            return catalogs.get("components");
        }

        /** What Kaoto's Kamelet catalog holds: the boundaries, then the Kamelets over them. */
        ObjectNode kamelets() {
            ObjectNode kamelets = JSON.createObjectNode();
            kamelets.setAll((ObjectNode) catalogs.get("kameletBoundaries"));
            kamelets.setAll((ObjectNode) catalogs.get("kamelets"));
            return kamelets;
        }
    }

    Loaded select(String name) throws IOException {
        JsonNode definition = null;
        for (JsonNode candidate : library.path("definitions")) {
            if (candidate.path("name").asText().equals(name)) {
                definition = candidate;
            }
        }
        if (definition == null) {
            throw new IOException("no definition named " + name + " in " + catalogUrl);
        }
        String indexFile = basePath + "/" + definition.path("fileName").asText();
        String relativeBasePath = indexFile.substring(0, indexFile.lastIndexOf('/'));
        JsonNode index = fetch(indexFile);
        Map<String, JsonNode> catalogs = new LinkedHashMap<>();
        for (String catalog : CATALOGS) {
            catalogs.put(
                    catalog,
                    fetch(relativeBasePath + "/"
                            + index.path("catalogs").path(catalog).path("file").asText()));
        }
        Map<String, byte[]> schemas = new LinkedHashMap<>();
        for (Map.Entry<String, JsonNode> schema : index.path("schemas").properties()) {
            schemas.put(
                    schema.getKey(),
                    fetchBytes(relativeBasePath + "/"
                            + schema.getValue().path("file").asText()));
        }
        return new Loaded(definition, index, catalogs, schemas);
    }

    static JsonNode fetch(String url) throws IOException {
        return JSON.readTree(fetchBytes(url));
    }

    static byte[] fetchBytes(String url) throws IOException {
        try (InputStream in = URI.create(url).toURL().openStream()) {
            return in.readAllBytes();
        }
    }
}
