package io.camelkubeflow.trainer.routes;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.camelkubeflow.trainer.job.TrainRequest;
import io.quarkus.smallrye.openapi.OpenApiFilter;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.eclipse.microprofile.openapi.OASFactory;
import org.eclipse.microprofile.openapi.OASFilter;
import org.eclipse.microprofile.openapi.models.Components;
import org.eclipse.microprofile.openapi.models.OpenAPI;
import org.eclipse.microprofile.openapi.models.media.Schema;

/**
 * Puts the train request's JSON Schema, the one the component's validator runs, into {@code /q/openapi} as
 * {@code components/schemas/TrainRequest} (the body of {@code POST /trainjobs}): the document is OpenAPI 3.1, whose
 * schemas are JSON Schema 2020-12, so the schema goes in as it is written. Only where its definitions live changes:
 * each {@code $defs} entry the request refers to becomes {@code components/schemas/TrainRequest.<name>} and each
 * {@code #/$defs/<name>} reference points there, because a reference in the document resolves against the document,
 * and tools (Schemathesis, code generators) resolve component schemas, not the {@code $defs} of an embedded resource.
 * Run as Quarkus builds the app: the served document is the one built.
 */
@OpenApiFilter(OpenApiFilter.RunStage.BUILD)
public class TrainRequestOpenApiSchema implements OASFilter {
    /** The component's schema, beside {@code TrainRequest}: the contract, never a copy. */
    static final String RESOURCE = "train-request.schema.json";
    /** The name of the request's schema among the document's component schemas; its definitions' names start so. */
    static final String NAME = "TrainRequest";

    private static final String DEFINITIONS = "#/$defs/";

    @Override
    public void filterOpenAPI(OpenAPI openAPI) {
        Map<String, Object> schema = read();
        Map<String, Object> definitions = cast(schema.remove("$defs"));
        // the document's own: the dialect is OpenAPI 3.1's, a JSON Schema 2020-12 one; the identity a URL no one serves
        schema.remove("$schema");
        schema.remove("$id");
        Components components =
                openAPI.getComponents() == null ? OASFactory.createComponents() : openAPI.getComponents();
        openAPI.setComponents(components);
        components.addSchema(NAME, schemaOf(relocated(schema)));
        List<String> referred = new ArrayList<>();
        collectReferences(schema, referred);
        for (int i = 0; i < referred.size(); i++) {
            Object definition = definitions.get(referred.get(i));
            if (definition == null) {
                throw new IllegalStateException(
                        RESOURCE + " refers to #/$defs/" + referred.get(i) + ", which it lacks");
            }
            collectReferences(definition, referred);
            components.addSchema(NAME + "." + referred.get(i), schemaOf(relocated(cast(definition))));
        }
    }

    private static Map<String, Object> read() {
        try (InputStream in = TrainRequest.class.getResourceAsStream(RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException(RESOURCE + " is not beside " + TrainRequest.class.getName());
            }
            return new ObjectMapper().readValue(in, new TypeReference<LinkedHashMap<String, Object>>() {});
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The names of the definitions a schema refers to, each once, in the order met. */
    private static void collectReferences(Object node, List<String> names) {
        if (node instanceof Map<?, ?> map) {
            if (map.get("$ref") instanceof String ref
                    && ref.startsWith(DEFINITIONS)
                    && !names.contains(ref.substring(DEFINITIONS.length()))) {
                names.add(ref.substring(DEFINITIONS.length()));
            }
            map.values().forEach(value -> collectReferences(value, names));
        } else if (node instanceof List<?> list) {
            list.forEach(value -> collectReferences(value, names));
        }
    }

    /** The schema with each {@code #/$defs/<name>} reference pointing at the component schema it becomes. */
    private static Object relocated(Object node) {
        if (node instanceof Map<?, ?> map) {
            Map<String, Object> copy = new LinkedHashMap<>();
            map.forEach((key, value) -> copy.put(
                    (String) key,
                    "$ref".equals(key) && value instanceof String ref && ref.startsWith(DEFINITIONS)
                            ? "#/components/schemas/" + NAME + "." + ref.substring(DEFINITIONS.length())
                            : relocated(value)));
            return copy;
        }
        if (node instanceof List<?> list) {
            return list.stream().map(TrainRequestOpenApiSchema::relocated).toList();
        }
        return node;
    }

    private static Schema schemaOf(Object json) {
        Schema schema = OASFactory.createSchema();
        schema.setAll(cast(json));
        return schema;
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> cast(Object json) {
        return (Map<String, Object>) json;
    }
}
