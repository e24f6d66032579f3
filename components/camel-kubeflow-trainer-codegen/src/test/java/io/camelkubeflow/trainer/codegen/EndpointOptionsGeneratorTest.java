package io.camelkubeflow.trainer.codegen;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What a declaration entry becomes; the component's build checks the whole class against Camel's tooling. */
class EndpointOptionsGeneratorTest {
    private static final String HEAD =
            "class: org.example.Options\njavadoc: Options.\ntypes:\n" + "  Mode: org.example.Mode\noptions:\n";

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String BASE =
            "{\"$comment\": \"Completed by the build.\", \"type\": \"object\", \"properties\": {}, \"$defs\": {\"routeOptions\": {\"properties\": {}}}}";

    @TempDir
    Path dir;

    @Test
    void anEntryBecomesAnAnnotatedFieldWithItsAccessorsAndMapOptionsAreCopied() throws IOException {
        String java = generate("""
                - name: mode
                  type: Mode
                  label: train
                  default: fast
                  initial: FAST
                  description: >-
                    How to run,
                    folded.
                - name: env
                  type: Map<String, Object>
                  label: train
                  prefix: env.
                  secret: true
                  description: Env.
                - name: follow
                  type: boolean
                  label: logs
                  description: Follow.
                """);
        assertTrue(java.contains("""
                    @UriParam(
                            label = "train",
                            defaultValue = "fast",
                            description = "How to run, folded."
                    )
                    private Mode mode = Mode.FAST;
                """), java);
        assertTrue(
                java.contains("prefix = \"env.\",\n            multiValue = true,\n            secret = true,"), java);
        assertTrue(java.contains("public boolean isFollow()"), java);
        assertTrue(java.contains("copy.env = copyOf(env);"), java);
        assertEquals(1, java.split("copyOf\\(", -1).length - 2, "only the map option is copied: " + java);
    }

    @Test
    void anOptionsHeaderIsNamedAfterItInItsPlaceOrAfterTheListedOnes() throws IOException {
        String java = headers("""
                - name: numProcPerNode
                  type: Integer
                  label: train
                  description: Processes.
                  header:
                    description: Processes per node.
                - name: command
                  type: String
                  label: train
                  description: Command.
                  header:
                    javaType: java.util.List<String>
                    description: The command.
                headers:
                  class: org.example.Headers
                  javadoc: Headers.
                  prefix: CamelX
                  field: org.example.Field
                  list:
                  - constant: DONE
                    name: CamelXDone
                    label: wait
                    javaType: Boolean
                    description: Done (out).
                  - option: numProcPerNode
                  - constant: CALLER
                    name: CamelXCaller
                    javadoc: Not a header.
                """);
        String done = "@Metadata(\n            label = \"wait\",\n            description = \"Done (out).\",\n"
                + "            javaType = \"Boolean\"\n    )\n    public static final String DONE = \"CamelXDone\";";
        String procs =
                "@Metadata(\n            label = \"train\",\n            description = \"Processes per node.\",\n"
                        + "            javaType = \"Integer\"\n    )\n"
                        + "    public static final String NUM_PROC_PER_NODE = \"CamelXNumProcPerNode\";";
        String caller = "/**\n     * Not a header.\n     */\n    public static final String CALLER = \"CamelXCaller\";";
        String command = "javaType = \"java.util.List<String>\"\n    )\n"
                + "    public static final String COMMAND = \"CamelXCommand\";";
        for (String constant : List.of(done, procs, caller, command)) {
            assertTrue(java.contains(constant), constant + " in " + java);
        }
        assertTrue(
                java.indexOf(done) < java.indexOf(procs)
                        && java.indexOf(procs) < java.indexOf(caller)
                        && java.indexOf(caller) < java.indexOf(command),
                java);
        assertTrue(java.contains("public static String header(Field field)"), java);
    }

    @Test
    void aMistypedOrRepeatedKeyOrAPrefixOnAnythingButAMapIsRefused() throws IOException {
        assertThrows(
                UnrecognizedPropertyException.class,
                () -> generate("- name: a\n  type: String\n  label: train\n  descripton: A.\n"));
        // a rule given twice would lose its first statement unseen
        JacksonException twice = assertThrows(
                JacksonException.class,
                () -> schema(
                        "- name: a\n  type: String\n  label: train\n  description: A.\n  header: {description: A.}\n"
                                + "  schema: {pattern: '^a', pattern: '.*'}\n",
                        BASE));
        assertTrue(twice.getMessage().contains("Duplicate field 'pattern'"), twice.getMessage());
        // YAML 1.1 would read these as booleans
        assertEquals(
                JSON.readTree("[\"yes\", \"no\", \"on\", \"off\"]"),
                schema(
                                "- name: a\n  type: String\n  label: train\n  description: A.\n"
                                        + "  header: {description: A.}\n  schema: {enum: [yes, no, on, off]}\n",
                                BASE)
                        .at("/properties/a/enum"));
        IllegalArgumentException prefix = assertThrows(
                IllegalArgumentException.class,
                () -> generate("- name: a\n  type: String\n  label: train\n  prefix: a.\n  description: A.\n"));
        assertEquals("option a has a prefix: its type must be Map<String, Object>", prefix.getMessage());
        IllegalArgumentException type = assertThrows(
                IllegalArgumentException.class,
                () -> generate("- name: a\n  type: Other\n  label: train\n  description: A.\n"));
        assertEquals("option a has type Other, not in types", type.getMessage());
    }

    @Test
    void aTrainFieldsSchemaBecomesItsPropertyInTheRequestSchemaARouteOnesInRouteOptions() throws IOException {
        String fields = """
                - name: numNodes
                  type: Integer
                  label: train
                  description: Nodes.
                  header:
                    description: Nodes.
                  schema:
                    type: [integer, 'null']
                    minimum: 1
                    x-fix: give a whole number of at least 1
                - name: prefix
                  type: String
                  label: train
                  description: Prefix.
                  header:
                    description: Prefix.
                  routeSchema:
                    type: string
                    maxLength: 50
                - name: kubeconfig
                  type: String
                  label: common
                  description: Not a train field.
                """;
        ObjectNode schema = schema(fields, BASE);
        assertEquals(JSON.readTree("""
                        {"type": "object",
                         "properties": {"numNodes": {"type": ["integer", "null"], "minimum": 1,
                                                     "x-fix": "give a whole number of at least 1"}},
                         "$defs": {"routeOptions": {"properties": {"prefix": {"type": "string", "maxLength": 50}}}}}
                        """), schema);
        IllegalArgumentException both = assertThrows(
                IllegalArgumentException.class,
                () -> schema(
                        "- name: a\n  type: String\n  label: train\n  description: A.\n  header: {description: A.}\n"
                                + "  schema: {type: string}\n  routeSchema: {type: string}\n",
                        BASE));
        assertEquals(
                "option a has a schema and a routeSchema: a message may set a field, or only a route",
                both.getMessage());
        IllegalArgumentException noHeader = assertThrows(
                IllegalArgumentException.class,
                () -> schema("- name: a\n  type: String\n  label: train\n  description: A.\n  schema: {}\n", BASE));
        assertEquals("option a has a schema but no header: only a train field has one", noHeader.getMessage());
        IllegalArgumentException filled = assertThrows(
                IllegalArgumentException.class,
                () -> schema(fields, BASE.replace("\"properties\": {}", "\"properties\": {\"x\": {}}")));
        assertEquals("base.json: /properties must be an empty object, which the build fills", filled.getMessage());
    }

    @Test
    void aTrainFieldBecomesAConstantOfTheFieldsEnumWithItsKindExposureAndSetter() throws IOException {
        String java = fields("""
                - name: numNodes
                  type: Integer
                  label: train
                  description: Nodes.
                  header:
                    description: How many nodes.
                  field: {kind: integer}
                  schema: {type: integer}
                - name: launcher
                  type: String
                  label: train
                  description: Launcher.
                  header:
                    description: The launcher.
                  field: {kind: text, setter: launcher}
                  schema: {type: string}
                - name: datasetRegion
                  type: String
                  label: train
                  description: Region.
                  header:
                    description: The region.
                  field: {kind: text, initializer: DATASET, setting: REGION}
                - name: kubeconfig
                  type: String
                  label: common
                  description: Not a train field.
                fields:
                  class: org.example.Field
                  javadoc: Fields.
                """);
        for (String constant : List.of(
                "/**\n     * How many nodes.\n     */\n    NUM_NODES(\"numNodes\", TrainFieldKind.INTEGER, true, null),",
                "LAUNCHER(\"launcher\", TrainFieldKind.TEXT, true, TrainFieldSetters::launcher),",
                "DATASET_REGION(\"datasetRegion\", TrainFieldKind.TEXT, false,"
                        + " TrainFieldSetters.initializer(InitializerStep.DATASET, InitializerSetting.REGION));")) {
            assertTrue(java.contains(constant), constant + " in " + java);
        }
        assertTrue(!java.contains("KUBECONFIG"), java);
        assertTrue(java.contains("public static Field named(String name)"), java);
        IllegalArgumentException noField = assertThrows(
                IllegalArgumentException.class,
                () -> fields("- name: a\n  type: String\n  label: train\n  description: A.\n"
                        + "  header: {description: A.}\nfields: {class: org.example.Field, javadoc: F.}\n"));
        assertEquals("option a has a header but no field, or a field but no header", noField.getMessage());
        IllegalArgumentException both = assertThrows(
                IllegalArgumentException.class,
                () -> fields("- name: a\n  type: String\n  label: train\n  description: A.\n"
                        + "  header: {description: A.}\n  field: {kind: text, setter: a, initializer: DATASET,"
                        + " setting: REGION}\nfields: {class: org.example.Field, javadoc: F.}\n"));
        assertEquals(
                "option a has a field with a setter and an initializer setting: one says how it lands",
                both.getMessage());
    }

    private String headers(String declaration) throws IOException {
        Path file = dir.resolve("options.yaml");
        Files.writeString(file, HEAD + declaration);
        return EndpointOptionsGenerator.generateHeaders(EndpointOptionsGenerator.read(file), "options.yaml")
                .toString();
    }

    private ObjectNode schema(String options, String base) throws IOException {
        Path file = dir.resolve("options.yaml");
        Files.writeString(file, HEAD + options);
        return EndpointOptionsGenerator.generateSchema(
                EndpointOptionsGenerator.read(file), (ObjectNode) JSON.readTree(base), "options.yaml", "base.json");
    }

    private String fields(String declaration) throws IOException {
        Path file = dir.resolve("options.yaml");
        Files.writeString(file, HEAD + declaration);
        return EndpointOptionsGenerator.generateFields(EndpointOptionsGenerator.read(file), "options.yaml")
                .toString();
    }

    private String generate(String options) throws IOException {
        Path file = dir.resolve("options.yaml");
        Files.writeString(file, HEAD + options);
        return EndpointOptionsGenerator.generate(EndpointOptionsGenerator.read(file), "options.yaml")
                .toString();
    }
}
