package io.camelkubeflow.trainer.kaoto;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Map;

/**
 * The form Kaoto shows for a Kamelet: its {@code spec.definition} as the JSON Schema Kaoto keeps beside the Kamelet
 * as {@code propertiesSchema} (what Kaoto's generator, {@code KameletProcessor}, copies of each property). Held to
 * what Kaoto wrote for every Kamelet of its published catalog by {@code KaotoCatalogTest}.
 */
final class KameletFormSchema {
    private static final String[] COPIED = {"title", "description", "enum", "default", "format"};

    private KameletFormSchema() {}

    static ObjectNode of(JsonNode kamelet) {
        JsonNode definition = kamelet.path("spec").path("definition");
        ObjectNode schema = JsonNodeFactory.instance.objectNode();
        schema.put("$schema", "http://json-schema.org/draft-07/schema#");
        schema.put("type", "object");
        for (String field : new String[] {"title", "description", "required"}) {
            if (definition.has(field)) {
                schema.set(field, definition.get(field));
            }
        }
        JsonNode properties = definition.path("properties");
        if (properties.isObject() && !properties.isEmpty()) {
            ObjectNode schemaProperties = schema.putObject("properties");
            for (Map.Entry<String, JsonNode> entry : properties.properties()) {
                JsonNode property = entry.getValue();
                ObjectNode schemaProperty = schemaProperties.putObject(entry.getKey());
                if (property.has("type")) {
                    schemaProperty.set("type", property.get("type"));
                }
                // a binary property is entered as text: Kaoto's forms have no binary field
                if ("binary".equals(property.path("type").asText())) {
                    schemaProperty.put("$comment", "type:binary");
                    schemaProperty.put("type", "string");
                }
                for (String field : COPIED) {
                    if (property.has(field)) {
                        schemaProperty.set(field, property.get(field));
                    }
                }
            }
        }
        return schema;
    }
}
