package io.camelkubeflow.trainer.codegen;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLParser;
import com.palantir.javapoet.AnnotationSpec;
import com.palantir.javapoet.ClassName;
import com.palantir.javapoet.CodeBlock;
import com.palantir.javapoet.FieldSpec;
import com.palantir.javapoet.JavaFile;
import com.palantir.javapoet.MethodSpec;
import com.palantir.javapoet.ParameterizedTypeName;
import com.palantir.javapoet.TypeName;
import com.palantir.javapoet.TypeSpec;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import javax.lang.model.element.Modifier;

/**
 * Writes a component's endpoint options class and its header constants class from their declaration (a YAML file,
 * described in its own header). The options class has one field per option with Camel's {@code @UriParam} and
 * {@code @Metadata}, its getter and setter, and {@code copy()}, which copies every map option so that an endpoint's
 * {@code env.X} never reaches another; the constants class one constant per header with its {@code @Metadata}, an
 * option's header named after the option, and {@code header(field)}. Camel's plugin reads both as it would
 * hand-written ones. It also writes the train request's JSON Schema, each train field's property from its option's
 * declaration. Arguments: the module's directory, the declaration (relative to it, as the classes' javadoc names it),
 * the source directory to write into, the schema without its fields (relative to the module) and the schema file to
 * write.
 */
public final class EndpointOptionsGenerator {
    private static final ClassName URI_PARAMS = ClassName.get("org.apache.camel.spi", "UriParams");
    private static final ClassName URI_PARAM = ClassName.get("org.apache.camel.spi", "UriParam");
    private static final ClassName METADATA = ClassName.get("org.apache.camel.spi", "Metadata");
    private static final ClassName RUNTIME_CAMEL_EXCEPTION = ClassName.get("org.apache.camel", "RuntimeCamelException");
    private static final TypeName MAP = ParameterizedTypeName.get(Map.class, String.class, Object.class);
    private static final Set<String> JAVA_LANG = Set.of("String", "Integer", "Long", "Double", "Boolean", "Object");
    private static final Map<String, String> BOXED =
            Map.of("int", "Integer", "long", "Long", "double", "Double", "boolean", "Boolean");

    /** The declaration file. */
    record Declaration(
            @JsonProperty("class") String className,
            String javadoc,
            Map<String, String> types,
            List<Option> options,
            Fields fields,
            Headers headers) {}

    /** One option; the fields are the keys of the declaration's header. */
    record Option(
            String name,
            String type,
            String label,
            @JsonProperty("default") String defaultValue,
            String initial,
            String javaType,
            String enums,
            String prefix,
            boolean secret,
            boolean autowired,
            boolean supportFileReference,
            String description,
            Header header,
            Field field,
            ObjectNode schema,
            ObjectNode routeSchema) {}

    /** A train field: the kind of value it takes and, unless it is plain, how it lands in the request. */
    record Field(String kind, String setter, String initializer, String setting) {}

    /** The enum of train fields. */
    record Fields(@JsonProperty("class") String className, String javadoc) {}

    /** The header of an option (a train field's): its name and constant follow from the option's. */
    record Header(String label, String javaType, String description) {}

    /** The header constants class: its headers in order, and header(field) for the type whose fieldName() names one. */
    record Headers(
            @JsonProperty("class") String className,
            String javadoc,
            String prefix,
            String field,
            List<HeaderEntry> list) {}

    /** Either an option's header in its place ({@code option}) or a header (or, with javadoc only, a name) of its own. */
    record HeaderEntry(
            String option,
            String constant,
            String name,
            String label,
            String javaType,
            String description,
            String javadoc) {}

    private EndpointOptionsGenerator() {}

    public static void main(String[] args) throws IOException {
        if (args.length != 5) {
            throw new IllegalArgumentException("usage: EndpointOptionsGenerator <module directory> <options.yaml>"
                    + " <source directory> <schema without its fields.json> <schema to write.json>");
        }
        Path module = Path.of(args[0]);
        Declaration declaration = read(module.resolve(args[1]));
        generate(declaration, args[1]).writeTo(Path.of(args[2]));
        generateHeaders(declaration, args[1]).writeTo(Path.of(args[2]));
        generateFields(declaration, args[1]).writeTo(Path.of(args[2]));
        ObjectNode schema = generateSchema(
                declaration, (ObjectNode) JSON.readTree(module.resolve(args[3]).toFile()), args[1], args[3]);
        Path written = Path.of(args[4]);
        Files.createDirectories(written.getParent());
        JSON.writerWithDefaultPrettyPrinter().writeValue(written.toFile(), schema);
    }

    /**
     * The train request's JSON Schema: the given one, whose {@code properties} and {@code $defs/routeOptions}'s are
     * empty, with each option's {@code schema} as a property of the first and each {@code routeSchema} of the second,
     * in the options' order; the base's {@code $comment} is left out.
     */
    static ObjectNode generateSchema(Declaration declaration, ObjectNode withoutFields, String source, String base) {
        ObjectNode schema = withoutFields.deepCopy();
        ObjectNode messageFields = emptyObject(schema, "/properties", base);
        ObjectNode routeFields = emptyObject(schema, "/$defs/routeOptions/properties", base);
        for (Option option : declaration.options()) {
            require(
                    option,
                    option.schema() == null || option.routeSchema() == null,
                    "has a schema and a routeSchema: a message may set a field, or only a route");
            require(
                    option,
                    option.header() != null || (option.schema() == null && option.routeSchema() == null),
                    "has a schema but no header: only a train field has one");
            if (option.schema() != null) {
                messageFields.set(option.name(), option.schema());
            }
            if (option.routeSchema() != null) {
                routeFields.set(option.name(), option.routeSchema());
            }
        }
        // the base's note on how it is completed is the build's, not the published contract's
        schema.remove("$comment");
        return schema;
    }

    /**
     * The enum of train fields: one constant per option with a {@code field}, in the options' order, with its name, its
     * kind, whether a request message may set it (it has a {@code schema}) and its setter (none: plain), and the
     * methods every field has.
     */
    static JavaFile generateFields(Declaration declaration, String source) {
        ClassName self = ClassName.bestGuess(declaration.fields().className());
        String pkg = self.packageName();
        ClassName kind = ClassName.get(pkg, "TrainFieldKind");
        ClassName setter = ClassName.get(pkg, "TrainFieldSetter");
        ClassName setters = ClassName.get(pkg, "TrainFieldSetters");
        ClassName request = ClassName.get(pkg, "TrainRequest");
        TypeSpec.Builder type = TypeSpec.enumBuilder(self)
                .addModifiers(Modifier.PUBLIC)
                .addJavadoc(
                        declaration.fields().javadoc().strip()
                                + "\n<p>\nGenerated from $L; edit that file, not this one.\n",
                        source);
        for (Option option : declaration.options()) {
            Field field = option.field();
            require(
                    option,
                    (field == null) == (option.header() == null),
                    "has a header but no field, or a field but no header");
            if (field == null) {
                continue;
            }
            require(option, field.kind() != null, "has a field without its kind");
            require(
                    option,
                    field.setter() == null || field.initializer() == null,
                    "has a field with a setter and an initializer setting: one says how it lands");
            require(
                    option,
                    (field.initializer() == null) == (field.setting() == null),
                    "has a field with an initializer but no setting, or a setting but no initializer");
            CodeBlock landing = field.setter() != null
                    ? CodeBlock.of("$T::$N", setters, field.setter())
                    : field.initializer() != null
                            ? CodeBlock.of(
                                    "$T.initializer($T.$N, $T.$N)",
                                    setters,
                                    ClassName.get(pkg, "InitializerStep"),
                                    field.initializer(),
                                    ClassName.get(pkg, "InitializerSetting"),
                                    field.setting())
                            : CodeBlock.of("null");
            type.addEnumConstant(
                    constant(option.name()),
                    TypeSpec.anonymousClassBuilder(
                                    "$S, $T.$N, $L, $L",
                                    option.name(),
                                    kind,
                                    field.kind().toUpperCase(Locale.ROOT),
                                    option.schema() != null,
                                    landing)
                            .addJavadoc("$L\n", option.header().description().strip())
                            .build());
        }
        type.addField(String.class, "fieldName", Modifier.PRIVATE, Modifier.FINAL)
                .addField(kind, "kind", Modifier.PRIVATE, Modifier.FINAL)
                .addField(boolean.class, "inMessages", Modifier.PRIVATE, Modifier.FINAL)
                .addField(setter, "setter", Modifier.PRIVATE, Modifier.FINAL)
                .addMethod(MethodSpec.constructorBuilder()
                        .addParameter(String.class, "fieldName")
                        .addParameter(kind, "kind")
                        .addParameter(boolean.class, "inMessages")
                        .addParameter(setter, "setter")
                        .addStatement("this.fieldName = fieldName")
                        .addStatement("this.kind = kind")
                        .addStatement("this.inMessages = inMessages")
                        .addStatement("this.setter = setter")
                        .build())
                .addMethod(MethodSpec.methodBuilder("fieldName")
                        .addJavadoc("The name callers write: the endpoint option and the message field.\n")
                        .addModifiers(Modifier.PUBLIC)
                        .returns(String.class)
                        .addStatement("return fieldName")
                        .build())
                .addMethod(MethodSpec.methodBuilder("kind")
                        .addModifiers(Modifier.PUBLIC)
                        .returns(kind)
                        .addStatement("return kind")
                        .build())
                .addMethod(MethodSpec.methodBuilder("inMessages")
                        .addJavadoc("Whether a request message may set it, not only the route's options and headers.\n")
                        .addModifiers(Modifier.PUBLIC)
                        .returns(boolean.class)
                        .addStatement("return inMessages")
                        .build())
                .addMethod(MethodSpec.methodBuilder("isPlain")
                        .addJavadoc(
                                "Whether the request keeps this field's value as it comes ({@link $T#value}).\n",
                                request)
                        .addModifiers(Modifier.PUBLIC)
                        .returns(boolean.class)
                        .addStatement("return setter == null")
                        .build())
                .addMethod(MethodSpec.methodBuilder("apply")
                        .addJavadoc("Sets a value of this field's {@link #kind()} on the request (null: nothing).\n"
                                + "\n@param field the name the caller wrote it under (an option, a header or a"
                                + " message field), for refusals\n")
                        .addModifiers(Modifier.PUBLIC)
                        .addParameter(request, "request")
                        .addParameter(Object.class, "value")
                        .addParameter(String.class, "field")
                        .beginControlFlow("if (value == null)")
                        .addStatement("return")
                        .endControlFlow()
                        .beginControlFlow("if (setter == null)")
                        .addStatement("request.set(this, value, field)")
                        .nextControlFlow("else")
                        .addStatement("setter.apply(request, value, field)")
                        .endControlFlow()
                        .build())
                .addMethod(MethodSpec.methodBuilder("ofKind")
                        .addJavadoc("A plain field's value as it reaches the request ({@link $T#check}).\n", kind)
                        .returns(Object.class)
                        .addParameter(Object.class, "value")
                        .addParameter(String.class, "field")
                        .addStatement("return kind.check(value, field)")
                        .build())
                .addMethod(MethodSpec.methodBuilder("fromJson")
                        .addJavadoc(
                                "A value from a JSON request message as this field's kind ({@link $T#fromJson}).\n",
                                kind)
                        .addModifiers(Modifier.PUBLIC)
                        .returns(Object.class)
                        .addParameter(Object.class, "value")
                        .addParameter(String.class, "field")
                        .addStatement("return kind.fromJson(value, field)")
                        .build())
                .addMethod(MethodSpec.methodBuilder("named")
                        .addJavadoc("The field callers write under this name, or null.\n")
                        .addModifiers(Modifier.PUBLIC, Modifier.STATIC)
                        .returns(self)
                        .addParameter(String.class, "name")
                        .beginControlFlow("for ($T field : values())", self)
                        .beginControlFlow("if (field.fieldName.equals(name))")
                        .addStatement("return field")
                        .endControlFlow()
                        .endControlFlow()
                        .addStatement("return null")
                        .build());
        return JavaFile.builder(pkg, type.build())
                .skipJavaLangImports(true)
                .indent("    ")
                .build();
    }

    private static ObjectNode emptyObject(ObjectNode schema, String pointer, String base) {
        if (!(schema.at(pointer) instanceof ObjectNode object) || !object.isEmpty()) {
            throw new IllegalArgumentException(
                    base + ": " + pointer + " must be an empty object, which the build fills");
        }
        return object;
    }

    private static final ObjectMapper JSON = JsonMapper.builder()
            .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
            .build();

    /**
     * Reads a declaration strictly: a key given twice is refused (YAML would keep the last, dropping a schema rule
     * unseen), and yes/no/on/off stay words (YAML 1.1 would make them booleans).
     */
    static Declaration read(Path file) throws IOException {
        YAMLFactory strict = YAMLFactory.builder()
                .enable(YAMLParser.Feature.PARSE_BOOLEAN_LIKE_WORDS_AS_STRINGS)
                .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
                .build();
        ObjectMapper yaml = new ObjectMapper(strict).enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);
        return yaml.readValue(file.toFile(), Declaration.class);
    }

    static JavaFile generate(Declaration declaration, String source) {
        ClassName self = ClassName.bestGuess(declaration.className());
        TypeSpec.Builder type = TypeSpec.classBuilder(self)
                .addModifiers(Modifier.PUBLIC)
                .addSuperinterface(Cloneable.class)
                .addAnnotation(URI_PARAMS)
                .addJavadoc(
                        declaration.javadoc().strip() + "\n<p>\nGenerated from $L; edit that file, not this one.\n",
                        source);
        List<MethodSpec> accessors = new ArrayList<>();
        CodeBlock.Builder mapCopies = CodeBlock.builder();
        Set<String> names = new HashSet<>();
        for (Option option : declaration.options()) {
            if (!names.add(option.name())) {
                throw new IllegalArgumentException("option " + option.name() + " is declared twice");
            }
            require(
                    option,
                    option.type() != null && option.label() != null && option.description() != null,
                    "needs type, label and description");
            TypeName javaType = typeOf(option, declaration.types());
            require(
                    option,
                    option.prefix() == null || javaType.equals(MAP),
                    "has a prefix: its type must be Map<String, Object>");
            FieldSpec.Builder field =
                    FieldSpec.builder(javaType, option.name(), Modifier.PRIVATE).addAnnotation(uriParam(option));
            if (option.autowired() || option.supportFileReference()) {
                AnnotationSpec.Builder metadata = AnnotationSpec.builder(METADATA);
                if (option.autowired()) {
                    metadata.addMember("autowired", "true");
                }
                if (option.supportFileReference()) {
                    metadata.addMember("supportFileReference", "true");
                }
                field.addAnnotation(metadata.build());
            }
            if (option.initial() != null) {
                field.initializer(initializer(option, javaType));
            }
            type.addField(field.build());
            accessors.addAll(accessors(option, javaType));
            if (javaType.equals(MAP)) {
                mapCopies.addStatement("copy.$N = copyOf($N)", option.name(), option.name());
            }
        }
        type.addMethods(accessors);
        type.addMethod(MethodSpec.methodBuilder("copy")
                .addJavadoc("A copy for one endpoint: the component's configuration is the default of every endpoint,"
                        + " which then sets its own\noptions on the copy. The multi-value maps are copied too, so an"
                        + " endpoint's env.X never reaches another.\n")
                .addModifiers(Modifier.PUBLIC)
                .returns(self)
                .beginControlFlow("try")
                .addStatement("$T copy = ($T) clone()", self, self)
                .addCode(mapCopies.build())
                .addStatement("return copy")
                .nextControlFlow("catch ($T e)", CloneNotSupportedException.class)
                .addStatement("throw new $T(e)", RUNTIME_CAMEL_EXCEPTION)
                .endControlFlow()
                .build());
        type.addMethod(MethodSpec.methodBuilder("copyOf")
                .addModifiers(Modifier.PRIVATE, Modifier.STATIC)
                .returns(MAP)
                .addParameter(MAP, "map")
                .addStatement("return map == null ? null : new $T<>(map)", LinkedHashMap.class)
                .build());
        return JavaFile.builder(self.packageName(), type.build())
                .skipJavaLangImports(true)
                .indent("    ")
                .build();
    }

    static JavaFile generateHeaders(Declaration declaration, String source) {
        Headers headers = declaration.headers();
        ClassName self = ClassName.bestGuess(headers.className());
        ClassName field = ClassName.bestGuess(headers.field());
        TypeSpec.Builder type = TypeSpec.classBuilder(self)
                .addModifiers(Modifier.PUBLIC, Modifier.FINAL)
                .addJavadoc(
                        headers.javadoc().strip() + "\n<p>\nGenerated from $L; edit that file, not this one.\n", source)
                .addField(FieldSpec.builder(String.class, "PREFIX", Modifier.PRIVATE, Modifier.STATIC, Modifier.FINAL)
                        .initializer("$S", headers.prefix())
                        .build());
        Map<String, Option> options = new LinkedHashMap<>();
        declaration.options().stream().filter(o -> o.header() != null).forEach(o -> options.put(o.name(), o));
        Set<String> constants = new HashSet<>();
        for (HeaderEntry entry : headers.list()) {
            FieldSpec constant;
            if (entry.option() != null) {
                Option option = options.remove(entry.option());
                if (option == null
                        || entry.constant() != null
                        || entry.name() != null
                        || entry.description() != null
                        || entry.javadoc() != null
                        || entry.label() != null
                        || entry.javaType() != null) {
                    throw new IllegalArgumentException("header entry option: " + entry.option() + " names no option"
                            + " with a header not yet placed, or says more than the option's name");
                }
                constant = optionHeader(option, headers.prefix());
            } else {
                constant = ownHeader(entry);
            }
            if (!constants.add(constant.name())) {
                throw new IllegalArgumentException("header constant " + constant.name() + " is declared twice");
            }
            type.addField(constant);
        }
        // an option's header not placed in the list goes after those that are
        for (Option option : options.values()) {
            FieldSpec constant = optionHeader(option, headers.prefix());
            if (!constants.add(constant.name())) {
                throw new IllegalArgumentException("header constant " + constant.name() + " is declared twice");
            }
            type.addField(constant);
        }
        type.addMethod(
                MethodSpec.constructorBuilder().addModifiers(Modifier.PRIVATE).build());
        type.addMethod(MethodSpec.methodBuilder("header")
                .addJavadoc(
                        "The header of a train field: {@code numNodes} is set per message by" + " {@code $L}.\n",
                        headers.prefix() + "NumNodes")
                .addModifiers(Modifier.PUBLIC, Modifier.STATIC)
                .returns(String.class)
                .addParameter(field, "field")
                .addStatement("return PREFIX + Character.toUpperCase(field.fieldName().charAt(0))"
                        + " + field.fieldName().substring(1)")
                .build());
        return JavaFile.builder(self.packageName(), type.build())
                .skipJavaLangImports(true)
                .indent("    ")
                .build();
    }

    /** {@code numNodes}: CamelKubeflowTrainerNumNodes as NUM_NODES; label train and the option's type unless said. */
    private static FieldSpec optionHeader(Option option, String prefix) {
        Header header = option.header();
        require(option, header.description() != null, "has a header without a description");
        String name = option.name();
        String label = header.label() != null ? header.label() : "train";
        String javaType = header.javaType() != null
                ? header.javaType()
                : option.javaType() != null ? option.javaType() : BOXED.getOrDefault(option.type(), option.type());
        require(
                option,
                JAVA_LANG.contains(javaType) || javaType.contains("."),
                "has a header whose javaType " + javaType + " is neither in java.lang nor qualified");
        return headerConstant(
                constant(name),
                prefix + Character.toUpperCase(name.charAt(0)) + name.substring(1),
                metadata(label, javaType, header.description()));
    }

    /** An option's constant: its name in upper snake case (numNodes: NUM_NODES), for its header and its field. */
    private static String constant(String name) {
        return name.replaceAll("([A-Z])", "_$1").toUpperCase(Locale.ROOT);
    }

    private static FieldSpec ownHeader(HeaderEntry entry) {
        if (entry.constant() == null
                || entry.name() == null
                || (entry.description() == null) == (entry.javadoc() == null)) {
            throw new IllegalArgumentException("header entry " + entry.constant() + " needs constant, name, and a"
                    + " description (a header) or a javadoc (a name that is no header)");
        }
        if (entry.javadoc() != null) {
            return FieldSpec.builder(String.class, entry.constant(), Modifier.PUBLIC, Modifier.STATIC, Modifier.FINAL)
                    .addJavadoc(entry.javadoc().strip() + "\n")
                    .initializer("$S", entry.name())
                    .build();
        }
        return headerConstant(
                entry.constant(),
                entry.name(),
                metadata(
                        entry.label() == null ? "" : entry.label(),
                        entry.javaType() == null ? "String" : entry.javaType(),
                        entry.description()));
    }

    private static AnnotationSpec metadata(String label, String javaType, String description) {
        AnnotationSpec.Builder metadata = AnnotationSpec.builder(METADATA);
        if (!label.isEmpty()) {
            metadata.addMember("label", "$S", label);
        }
        return metadata.addMember("description", "$S", description.strip())
                .addMember("javaType", "$S", javaType)
                .build();
    }

    private static FieldSpec headerConstant(String constant, String name, AnnotationSpec metadata) {
        return FieldSpec.builder(String.class, constant, Modifier.PUBLIC, Modifier.STATIC, Modifier.FINAL)
                .addAnnotation(metadata)
                .initializer("$S", name)
                .build();
    }

    private static AnnotationSpec uriParam(Option option) {
        AnnotationSpec.Builder uriParam = AnnotationSpec.builder(URI_PARAM).addMember("label", "$S", option.label());
        if (option.defaultValue() != null) {
            uriParam.addMember("defaultValue", "$S", option.defaultValue());
        }
        if (option.javaType() != null) {
            uriParam.addMember("javaType", "$S", option.javaType());
        }
        if (option.enums() != null) {
            uriParam.addMember("enums", "$S", option.enums());
        }
        if (option.prefix() != null) {
            uriParam.addMember("prefix", "$S", option.prefix()).addMember("multiValue", "true");
        }
        if (option.secret()) {
            uriParam.addMember("secret", "true");
        }
        return uriParam.addMember("description", "$S", option.description().strip())
                .build();
    }

    private static TypeName typeOf(Option option, Map<String, String> types) {
        String type = option.type();
        switch (type) {
            case "int":
                return TypeName.INT;
            case "long":
                return TypeName.LONG;
            case "double":
                return TypeName.DOUBLE;
            case "boolean":
                return TypeName.BOOLEAN;
            case "Map<String, Object>":
                return MAP;
            default:
                if (JAVA_LANG.contains(type)) {
                    return ClassName.get("java.lang", type);
                }
                require(option, types.containsKey(type), "has type " + type + ", not in types");
                return ClassName.bestGuess(types.get(type));
        }
    }

    /** A Java literal, a String's text, or for a declared type (an enum) the name of one of its constants. */
    private static CodeBlock initializer(Option option, TypeName javaType) {
        if (javaType.isPrimitive() || javaType.isBoxedPrimitive()) {
            return CodeBlock.of("$L", option.initial());
        }
        if (javaType.equals(ClassName.get(String.class))) {
            return CodeBlock.of("$S", option.initial());
        }
        return CodeBlock.of("$T.$L", javaType, option.initial());
    }

    private static List<MethodSpec> accessors(Option option, TypeName javaType) {
        String name = option.name();
        String capitalized = Character.toUpperCase(name.charAt(0)) + name.substring(1);
        MethodSpec getter = MethodSpec.methodBuilder((javaType.equals(TypeName.BOOLEAN) ? "is" : "get") + capitalized)
                .addModifiers(Modifier.PUBLIC)
                .returns(javaType)
                .addStatement("return $N", name)
                .build();
        MethodSpec setter = MethodSpec.methodBuilder("set" + capitalized)
                .addModifiers(Modifier.PUBLIC)
                .addParameter(javaType, name)
                .addStatement("this.$N = $N", name, name)
                .build();
        return List.of(getter, setter);
    }

    private static void require(Option option, boolean holds, String what) {
        if (!holds) {
            throw new IllegalArgumentException("option " + option.name() + " " + what);
        }
    }
}
