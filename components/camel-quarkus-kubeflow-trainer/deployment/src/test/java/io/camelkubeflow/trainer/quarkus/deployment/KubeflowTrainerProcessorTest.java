package io.camelkubeflow.trainer.quarkus.deployment;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.camelkubeflow.trainer.KubeflowTrainerEndpoint;
import io.camelkubeflow.trainer.api.RuntimePatch;
import io.camelkubeflow.trainer.api.RuntimeRef;
import io.camelkubeflow.trainer.api.SharedStrings;
import io.camelkubeflow.trainer.api.TrainJob;
import io.camelkubeflow.trainer.api.TrainJobSpec;
import io.camelkubeflow.trainer.api.TrainJobStatus;
import io.camelkubeflow.trainer.api.Trainer;
import io.camelkubeflow.trainer.sandbox.TrainerSandbox;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.quarkus.deployment.builditem.FeatureBuildItem;
import io.quarkus.deployment.builditem.GeneratedResourceBuildItem;
import io.quarkus.deployment.builditem.nativeimage.ReflectiveClassBuildItem;
import io.quarkus.test.QuarkusUnitTest;
import jakarta.inject.Inject;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.camel.CamelContext;
import org.apache.camel.Exchange;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.objectweb.asm.AnnotationVisitor;
import org.objectweb.asm.ClassReader;
import org.objectweb.asm.ClassVisitor;
import org.objectweb.asm.FieldVisitor;
import org.objectweb.asm.MethodVisitor;
import org.objectweb.asm.Opcodes;
import org.objectweb.asm.RecordComponentVisitor;
import org.objectweb.asm.Type;

/**
 * The extension's build steps in a Quarkus build (QuarkusUnitTest): the feature, the model registered for reflection
 * (what a native image needs for Jackson to bind TrainJobs), and the component on Quarkus's KubernetesClient bean,
 * configured by quarkus.kubernetes-client.* (here: pointed at a sandbox).
 */
class KubeflowTrainerProcessorTest {
    /** The build items the build produced, written by a build step of the test into the application as a resource. */
    static final String SEEN = "build-items-seen.properties";
    /**
     * The sandbox, started once: QuarkusUnitTest loads this class twice (to build, to run the tests), and the JVM's
     * properties are what both loads share.
     */
    static final String SANDBOX_KEY = KubeflowTrainerProcessorTest.class.getName() + ".sandbox";

    @RegisterExtension
    static final QuarkusUnitTest QUARKUS = new QuarkusUnitTest()
            .withApplicationRoot(app -> app.addClass(DevServicesSeen.class))
            .overrideConfigKey("quarkus.kubernetes-client.api-server-url", sandbox("url"))
            // the sandbox answers its own token over TLS with its own certificate, as a cluster its admin's
            .overrideConfigKey("quarkus.kubernetes-client.token", sandbox("token"))
            .overrideConfigKey("quarkus.kubernetes-client.ca-cert-data", sandbox("ca-cert-data"))
            .overrideConfigKey("quarkus.kubernetes-client.devservices.enabled", "false")
            // Quarkus (3.31, 3.33) logs an ERROR ("Cannot apply manifests ...") whenever its own Dev Service does not
            // run
            .overrideConfigKey(KubeflowTrainerDevServiceTest.QUARKUS_MANIFESTS_LOG, "OFF")
            .addBuildChainCustomizer(chain -> chain.addBuildStep(context -> {
                        List<String> reflective = new ArrayList<>();
                        context.consumeMulti(ReflectiveClassBuildItem.class)
                                .forEach(item -> reflective.addAll(item.getClassNames()));
                        List<String> features = context.consumeMulti(FeatureBuildItem.class).stream()
                                .map(FeatureBuildItem::getName)
                                .toList();
                        String seen = "features=" + String.join(",", features) + "\nreflective="
                                + String.join(",", reflective) + "\n";
                        context.produce(new GeneratedResourceBuildItem(SEEN, seen.getBytes(StandardCharsets.UTF_8)));
                    })
                    .consumes(ReflectiveClassBuildItem.class)
                    .consumes(FeatureBuildItem.class)
                    .produces(GeneratedResourceBuildItem.class)
                    .build())
            .addBuildChainCustomizer(DevServicesSeen.CUSTOMIZER);

    @Inject
    CamelContext camel;

    @Inject
    KubernetesClient quarkusClient;

    /** The sandbox's "url", "token" or "ca-cert-data", for the client's configuration. */
    private static synchronized String sandbox(String setting) {
        if (System.getProperty(SANDBOX_KEY + ".url") == null) {
            TrainerSandbox sandbox = TrainerSandbox.start(TrainerSandbox.Options.standalone());
            sandbox.createNamespace("extension");
            System.getProperties().put(SANDBOX_KEY, sandbox);
            System.setProperty(SANDBOX_KEY + ".url", sandbox.masterUrl());
            System.setProperty(
                    SANDBOX_KEY + ".token", sandbox.client().getConfiguration().getOauthToken());
            System.setProperty(
                    SANDBOX_KEY + ".ca-cert-data",
                    sandbox.client().getConfiguration().getCaCertData());
        }
        return System.getProperty(SANDBOX_KEY + "." + setting);
    }

    @AfterAll
    static void stopSandbox() throws Exception {
        // of whichever load started it
        for (String setting : List.of("url", "token", "ca-cert-data")) {
            System.clearProperty(SANDBOX_KEY + "." + setting);
        }
        if (System.getProperties().remove(SANDBOX_KEY) instanceof AutoCloseable sandbox) {
            sandbox.close();
        }
    }

    private static List<String> seen(String what) throws Exception {
        Properties seen = new Properties();
        try (var in = Thread.currentThread().getContextClassLoader().getResourceAsStream(SEEN)) {
            seen.load(in);
        }
        return List.of(seen.getProperty(what).split(","));
    }

    @Test
    void theFeatureIsInstalled() throws Exception {
        assertTrue(
                seen("features").contains(KubeflowTrainerProcessor.FEATURE),
                seen("features").toString());
    }

    @Test
    void noDevServiceStartsWhenAClusterIsConfigured() throws Exception {
        assertEquals(List.of(), DevServicesSeen.features(), "Dev Services the build asked for");
    }

    @Test
    void theModelJacksonBindsIsRegisteredForReflection() throws Exception {
        List<String> reflective = seen("reflective");
        for (Class<?> model : List.of(
                TrainJob.class,
                TrainJobSpec.class,
                TrainJobStatus.class,
                Trainer.class,
                RuntimeRef.class,
                RuntimePatch.class,
                SharedStrings.Deserializer.class)) {
            assertTrue(
                    reflective.contains(model.getName()),
                    model.getName() + " in "
                            + reflective.stream()
                                    .filter(name -> name.startsWith("io.camelkubeflow"))
                                    .toList());
        }
    }

    /**
     * Read from the component's jar, not from the processor: every class of the component that carries a Jackson
     * annotation (and the classes such annotations name), every class the component's code hands to Jackson to read
     * ({@code readValue}, {@code convertValue}, {@code treeToValue}, fabric8's {@code unmarshal}), and every answer the
     * component's reference names as an operation's body ({@code // body: ...}), with the records each is made of.
     */
    @Test
    void everyTypeJacksonBindsIsRegisteredForReflection() throws Exception {
        Set<String> bound = JacksonBoundTypes.in(Path.of(KubeflowTrainerEndpoint.class
                .getProtectionDomain()
                .getCodeSource()
                .getLocation()
                .toURI()));
        String reference = Files.readString(
                Path.of("../../camel-kubeflow-trainer/src/main/docs/" + "kubeflow-trainer-component.adoc"));
        Matcher body =
                Pattern.compile("// body: (?:one |List<)?([A-Z][A-Za-z]+)").matcher(reference);
        Set<String> answers = new TreeSet<>();
        while (body.find()) {
            answers.add(body.group(1));
        }
        assertTrue(
                answers.containsAll(List.of("TrainJob", "RuntimeLauncher", "TrainJobObjectEvent", "RuntimePackages")),
                "the reference's bodies: " + answers);
        for (String simpleName : answers) {
            bound.addAll(JacksonBoundTypes.recordsOf(JacksonBoundTypes.named(bound, simpleName)));
        }
        List<String> reflective = seen("reflective");
        List<String> missing = bound.stream()
                .filter(type -> !reflective.contains(type))
                .sorted()
                .toList();
        assertEquals(List.of(), missing, "bound by Jackson, not registered for reflection");
    }

    /** What the component's classes hand to Jackson, read from their bytecode. */
    static final class JacksonBoundTypes {
        private static final Set<String> READS = Set.of("readValue", "convertValue", "treeToValue", "unmarshal");
        private static final Set<String> MAPPERS = Set.of(
                "com/fasterxml/jackson/databind/ObjectMapper",
                "com/fasterxml/jackson/databind/json/JsonMapper",
                "io/fabric8/kubernetes/client/utils/Serialization",
                "io/fabric8/kubernetes/client/utils/KubernetesSerialization");
        private static final Map<String, String> SIMPLE_NAMES = new HashMap<>();

        /** @param classes the component's jar, or its classes folder (a build of the reactor resolves to it) */
        static Set<String> in(Path classes) throws Exception {
            Set<String> bound = new TreeSet<>();
            try (var jar = Files.isDirectory(classes) ? null : FileSystems.newFileSystem(classes)) {
                Path root = jar == null ? classes : jar.getPath("/");
                try (var files = Files.walk(root.resolve("io/camelkubeflow"))) {
                    for (Path file :
                            files.filter(f -> f.toString().endsWith(".class")).toList()) {
                        new ClassReader(Files.readAllBytes(file)).accept(new Scanner(bound), 0);
                    }
                }
            }
            return bound;
        }

        /** The class of the component named {@code simpleName} (nested classes by their own name). */
        static Class<?> named(Set<String> known, String simpleName) throws Exception {
            String name = SIMPLE_NAMES.get(simpleName);
            if (name == null) {
                throw new AssertionError("no class " + simpleName + " in the component's jar");
            }
            return Class.forName(name, false, Thread.currentThread().getContextClassLoader());
        }

        /** The type and the component's records its record components hold, type arguments included. */
        static Set<String> recordsOf(Class<?> type) {
            Set<String> found = new TreeSet<>();
            ArrayDeque<java.lang.reflect.Type> todo = new ArrayDeque<>(List.of(type));
            while (!todo.isEmpty()) {
                java.lang.reflect.Type next = todo.pop();
                if (next instanceof java.lang.reflect.ParameterizedType generic) {
                    todo.addAll(List.of(generic.getActualTypeArguments()));
                    todo.add(generic.getRawType());
                } else if (next instanceof Class<?> c
                        && c.getName().startsWith("io.camelkubeflow.")
                        && found.add(c.getName())
                        && c.isRecord()) {
                    for (var component : c.getRecordComponents()) {
                        todo.add(component.getGenericType());
                    }
                }
            }
            return found;
        }

        private static final class Scanner extends ClassVisitor {
            private final Set<String> bound;
            private String className;

            Scanner(Set<String> bound) {
                super(Opcodes.ASM9);
                this.bound = bound;
            }

            @Override
            public void visit(
                    int version, int access, String name, String signature, String superName, String[] interfaces) {
                className = name.replace('/', '.');
                SIMPLE_NAMES.put(name.substring(Math.max(name.lastIndexOf('/'), name.lastIndexOf('$')) + 1), className);
            }

            private AnnotationVisitor annotation(String descriptor) {
                if (!descriptor.startsWith("Lcom/fasterxml/jackson/")) {
                    return null;
                }
                bound.add(className);
                return new AnnotationVisitor(Opcodes.ASM9) {
                    @Override
                    public void visit(String name, Object value) {
                        if (value instanceof Type type && type.getSort() == Type.OBJECT) {
                            bound.add(type.getClassName());
                        }
                    }
                };
            }

            @Override
            public AnnotationVisitor visitAnnotation(String descriptor, boolean visible) {
                return annotation(descriptor);
            }

            @Override
            public RecordComponentVisitor visitRecordComponent(String name, String descriptor, String signature) {
                return new RecordComponentVisitor(Opcodes.ASM9) {
                    @Override
                    public AnnotationVisitor visitAnnotation(String annotation, boolean visible) {
                        return annotation(annotation);
                    }
                };
            }

            @Override
            public FieldVisitor visitField(int access, String name, String descriptor, String signature, Object value) {
                return new FieldVisitor(Opcodes.ASM9) {
                    @Override
                    public AnnotationVisitor visitAnnotation(String annotation, boolean visible) {
                        return annotation(annotation);
                    }
                };
            }

            @Override
            public MethodVisitor visitMethod(
                    int access, String name, String descriptor, String signature, String[] exceptions) {
                return new MethodVisitor(Opcodes.ASM9) {
                    /** The class constant loaded last: the type a read binds to is its last argument. */
                    private String lastClass;

                    @Override
                    public AnnotationVisitor visitAnnotation(String annotation, boolean visible) {
                        return annotation(annotation);
                    }

                    @Override
                    public void visitLdcInsn(Object value) {
                        lastClass = value instanceof Type type && type.getSort() == Type.OBJECT
                                ? type.getClassName()
                                : null;
                    }

                    @Override
                    public void visitMethodInsn(
                            int opcode, String owner, String method, String methodDescriptor, boolean isInterface) {
                        if (MAPPERS.contains(owner)
                                && READS.contains(method)
                                && lastClass != null
                                && lastClass.startsWith("io.camelkubeflow.")) {
                            bound.add(lastClass);
                        }
                    }
                };
            }
        }
    }

    @Test
    void theComponentTrainsOnQuarkusKubernetesClient() {
        KubeflowTrainerEndpoint endpoint = camel.getEndpoint(
                "kubeflow-trainer:train?runtime=torch-distributed" + "&namespace=extension&pythonFile=/app/train.py",
                KubeflowTrainerEndpoint.class);
        Exchange trained = camel.createProducerTemplate().send(endpoint, e -> {});
        assertNull(trained.getException());
        assertSame(quarkusClient, endpoint.getClient(), "the endpoint uses the KubernetesClient bean");
        TrainJob job = trained.getMessage().getBody(TrainJob.class);
        assertEquals(
                Set.of(job.getMetadata().getName()),
                Set.copyOf(quarkusClient.resources(TrainJob.class).inNamespace("extension").list().getItems().stream()
                        .map(j -> j.getMetadata().getName())
                        .toList()),
                "the job is in the sandbox quarkus.kubernetes-client.api-server-url names");
    }
}
