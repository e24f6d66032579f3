package io.camelkubeflow.trainer.kaoto;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Map;

/**
 * The form Kaoto shows for an endpoint of a component: the component's endpoint options (the {@code properties} of
 * its Camel catalog JSON) as the JSON Schema Kaoto keeps beside them as {@code propertiesSchema}. Kaoto's catalog
 * generator, which writes it for Camel's own components, is not published; {@code KaotoCatalogTest} holds this to what
 * it wrote for every component of Kaoto's published catalog.
 */
final class ComponentFormSchema {
    private static final JsonNodeFactory JSON = JsonNodeFactory.instance;

    private ComponentFormSchema() {}

    /** The schema of the given endpoint options (a Camel catalog JSON's {@code properties}, in their order). */
    static ObjectNode of(ObjectNode endpointOptions) {
        ObjectNode schema = JSON.objectNode();
        schema.put("$schema", "http://json-schema.org/draft-07/schema#");
        schema.put("type", "object");
        ObjectNode properties = schema.putObject("properties");
        var required = JSON.arrayNode();
        for (Map.Entry<String, JsonNode> option : endpointOptions.properties()) {
            properties.set(option.getKey(), property(option.getValue()));
            if (option.getValue().path("required").asBoolean()) {
                required.add(option.getKey());
            }
        }
        if (!required.isEmpty()) {
            schema.set("required", required);
        }
        return schema;
    }

    private static ObjectNode property(JsonNode option) {
        ObjectNode property = JSON.objectNode();
        property.put("title", option.path("displayName").asText());
        property.put("description", option.path("description").asText());
        String type = option.path("type").asText();
        String format = null;
        switch (type) {
            case "enum" -> {
                property.put("type", "string");
                property.set("enum", option.get("enum"));
            }
            case "duration" -> {
                property.put("type", "string");
                format = "duration";
            }
            case "array" -> {
                property.put("type", "array");
                property.putObject("items").put("type", "string");
            }
            // a map is filled in as keys and values; any other object is a bean, named by a reference to the registry
            case "object" -> {
                String javaType = option.path("javaType").asText();
                if (javaType.startsWith("java.util.Map")) {
                    property.put("type", "object");
                } else {
                    property.put("type", "string");
                    format = "bean:" + javaType;
                }
            }
            default -> property.put("type", type);
        }
        property.put("$comment", "group:" + option.path("group").asText());
        // a secret is entered masked, a secret bean as a masked reference
        if (option.path("secret").asBoolean()) {
            format = format == null ? "password" : format + "|password";
        }
        if (format != null) {
            property.put("format", format);
        }
        if (option.path("deprecated").asBoolean()) {
            property.put("deprecated", true);
        }
        JsonNode defaultValue = option.get("defaultValue");
        if (defaultValue != null) {
            // an enumeration's values are text, and so is a decimal number's default ("0.25")
            boolean asText = type.equals("enum") || type.equals("number");
            property.set("default", asText ? JSON.textNode(defaultValue.asText()) : defaultValue);
        }
        return property;
    }
}
