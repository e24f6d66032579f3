package io.camelkubeflow.trainer.codegen;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import javax.lang.model.element.Modifier;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.palantir.javapoet.AnnotationSpec;
import com.palantir.javapoet.ClassName;
import com.palantir.javapoet.CodeBlock;
import com.palantir.javapoet.FieldSpec;
import com.palantir.javapoet.JavaFile;
import com.palantir.javapoet.MethodSpec;
import com.palantir.javapoet.ParameterizedTypeName;
import com.palantir.javapoet.TypeName;
import com.palantir.javapoet.TypeSpec;

/**
 * Writes a component's endpoint options class from its declaration (a YAML file, described in its own header): one
 * field per option with Camel's {@code @UriParam} and {@code @Metadata}, its getter and setter, and {@code copy()},
 * which copies every map option so that an endpoint's {@code env.X} never reaches another. Camel's plugin reads the
 * class it writes as it would a hand-written one. Arguments: the module's directory, the declaration (relative to it,
 * as the class's javadoc names it), the source directory to write into.
 */
public final class EndpointOptionsGenerator {
    private static final ClassName URI_PARAMS = ClassName.get("org.apache.camel.spi", "UriParams");
    private static final ClassName URI_PARAM = ClassName.get("org.apache.camel.spi", "UriParam");
    private static final ClassName METADATA = ClassName.get("org.apache.camel.spi", "Metadata");
    private static final ClassName RUNTIME_CAMEL_EXCEPTION = ClassName.get("org.apache.camel", "RuntimeCamelException");
    private static final TypeName MAP = ParameterizedTypeName.get(Map.class, String.class, Object.class);
    private static final Set<String> JAVA_LANG = Set.of("String", "Integer", "Long", "Double", "Boolean");

    /** The declaration file. */
    record Declaration(@JsonProperty("class") String className, String javadoc, Map<String, String> types,
            List<Option> options) {
    }

    /** One option; the fields are the keys of the declaration's header. */
    record Option(String name, String type, String label, @JsonProperty("default") String defaultValue, String initial,
            String javaType, String enums, String prefix, boolean secret, boolean autowired,
            boolean supportFileReference, String description) {
    }

    private EndpointOptionsGenerator() {
    }

    public static void main(String[] args) throws IOException {
        if (args.length != 3) {
            throw new IllegalArgumentException(
                    "usage: EndpointOptionsGenerator <module directory> <options.yaml> <source directory>");
        }
        generate(read(Path.of(args[0]).resolve(args[1])), args[1]).writeTo(Path.of(args[2]));
    }

    static Declaration read(Path file) throws IOException {
        ObjectMapper yaml = new ObjectMapper(new YAMLFactory())
                .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);
        return yaml.readValue(file.toFile(), Declaration.class);
    }

    static JavaFile generate(Declaration declaration, String source) {
        ClassName self = ClassName.bestGuess(declaration.className());
        TypeSpec.Builder type = TypeSpec.classBuilder(self)
                .addModifiers(Modifier.PUBLIC)
                .addSuperinterface(Cloneable.class)
                .addAnnotation(URI_PARAMS)
                .addJavadoc(declaration.javadoc().strip() + "\n<p>\nGenerated from $L; edit that file, not this one.\n",
                        source);
        List<MethodSpec> accessors = new ArrayList<>();
        CodeBlock.Builder mapCopies = CodeBlock.builder();
        Set<String> names = new HashSet<>();
        for (Option option : declaration.options()) {
            if (!names.add(option.name())) {
                throw new IllegalArgumentException("option " + option.name() + " is declared twice");
            }
            require(option, option.type() != null && option.label() != null && option.description() != null,
                    "needs type, label and description");
            TypeName javaType = typeOf(option, declaration.types());
            require(option, option.prefix() == null || javaType.equals(MAP),
                    "has a prefix: its type must be Map<String, Object>");
            FieldSpec.Builder field = FieldSpec.builder(javaType, option.name(), Modifier.PRIVATE)
                    .addAnnotation(uriParam(option));
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
        return JavaFile.builder(self.packageName(), type.build()).skipJavaLangImports(true).indent("    ").build();
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
        return uriParam.addMember("description", "$S", option.description().strip()).build();
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
