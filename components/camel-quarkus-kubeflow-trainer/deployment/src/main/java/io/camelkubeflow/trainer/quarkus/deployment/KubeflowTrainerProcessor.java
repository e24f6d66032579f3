package io.camelkubeflow.trainer.quarkus.deployment;

import io.camelkubeflow.trainer.quarkus.LocalTrainerSandbox;
import io.camelkubeflow.trainer.quarkus.TrainerCluster;
import io.camelkubeflow.trainer.runtime.RuntimeCatalog;
import io.camelkubeflow.trainer.runtime.RuntimePackages;
import io.camelkubeflow.trainer.watch.TrainJobObjectEvent;
import io.camelkubeflow.trainer.watch.TrainJobStep;
import io.quarkus.arc.deployment.AdditionalBeanBuildItem;
import io.quarkus.bootstrap.classloading.QuarkusClassLoader;
import io.quarkus.deployment.annotations.BuildProducer;
import io.quarkus.deployment.annotations.BuildStep;
import io.quarkus.deployment.builditem.CombinedIndexBuildItem;
import io.quarkus.deployment.builditem.FeatureBuildItem;
import io.quarkus.deployment.builditem.nativeimage.ReflectiveClassBuildItem;
import jakarta.inject.Singleton;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.jboss.jandex.AnnotationInstance;
import org.jboss.jandex.AnnotationTarget;
import org.jboss.jandex.AnnotationValue;
import org.jboss.jandex.ClassInfo;
import org.jboss.jandex.DotName;
import org.jboss.jandex.IndexView;
import org.jboss.jandex.Type;

/**
 * The extension's build steps. The rest of what the component needs in a Quarkus app comes from what the runtime module
 * brings, each checked by KubeflowTrainerProcessorTest: Camel Quarkus indexes the component's jar (it carries its
 * Jandex index) and finds its configurers, URI factory and data type; the Kubernetes client extension registers the
 * TrainJob itself (a CustomResource) for reflection and provides the KubernetesClient bean, configured by
 * quarkus.kubernetes-client.* and pointed by TrainerCluster, that the component autowires.
 */
class KubeflowTrainerProcessor {
    static final String FEATURE = "camel-kubeflow-trainer";
    /** The component's own packages: types elsewhere are their libraries' (and their extensions') to register. */
    private static final String COMPONENT_PACKAGE = "io.camelkubeflow.trainer.";

    private static final String JACKSON_PACKAGE = "com.fasterxml.jackson.";
    private static final String SANDBOX_CLASS = "io.camelkubeflow.trainer.sandbox.TrainerSandbox";
    /**
     * What the operations answer with that an app writes as JSON (a route's HTTP answer, a Kafka record), besides the
     * TrainJob: the bodies of runtimes, runtimePackages and events, the steps every job read sets as a header. Jackson
     * reads their record components reflectively in a native image; the types they are made of follow from them.
     */
    static final List<Class<?>> ANSWER_TYPES = List.of(
            RuntimeCatalog.RuntimeLauncher.class, RuntimePackages.class, TrainJobObjectEvent.class, TrainJobStep.class);

    @BuildStep
    FeatureBuildItem feature() {
        return new FeatureBuildItem(FEATURE);
    }

    /**
     * Points the client at the cluster quarkus.kubeflow-trainer.cluster chooses (the Dev Service's, a local sandbox);
     * the local sandbox's bean only in an app that carries the sandbox, whose types it names.
     */
    @BuildStep
    void trainerCluster(BuildProducer<AdditionalBeanBuildItem> beans) {
        beans.produce(AdditionalBeanBuildItem.unremovableOf(TrainerCluster.class));
        if (QuarkusClassLoader.isClassPresentAtRuntime(SANDBOX_CLASS)) {
            beans.produce(AdditionalBeanBuildItem.builder()
                    .addBeanClass(LocalTrainerSandbox.class)
                    .setDefaultScope(DotName.createSimple(Singleton.class))
                    .setUnremovable()
                    .build());
        }
    }

    /**
     * For a native image, every component type Jackson binds reflectively: the model's classes that carry Jackson
     * annotations (the TrainJob's spec and status records, their parts) with the (de)serializers those annotations
     * name, and the answer types with every component type they are made of.
     */
    @BuildStep
    ReflectiveClassBuildItem jacksonBoundTypes(CombinedIndexBuildItem combinedIndex) {
        IndexView index = combinedIndex.getIndex();
        Set<String> types = new LinkedHashSet<>();
        for (ClassInfo type : index.getKnownClasses()) {
            if (type.name().toString().startsWith(COMPONENT_PACKAGE)) {
                for (AnnotationInstance annotation : type.annotations()) {
                    if (annotation.name().toString().startsWith(JACKSON_PACKAGE)) {
                        types.add(owner(annotation.target()).name().toString());
                        annotation.values().stream()
                                .filter(value -> value.kind() == AnnotationValue.Kind.CLASS)
                                .map(value -> value.asClass().name().toString())
                                .forEach(types::add);
                    }
                }
            }
        }
        Deque<DotName> answers = new ArrayDeque<>();
        ANSWER_TYPES.forEach(type -> answers.add(DotName.createSimple(type)));
        while (!answers.isEmpty()) {
            ClassInfo type = index.getClassByName(answers.pop());
            if (type != null && types.add(type.name().toString())) {
                type.fields().stream()
                        .filter(field -> !java.lang.reflect.Modifier.isStatic(field.flags()))
                        .forEach(field -> componentTypes(field.type(), answers));
            }
        }
        return ReflectiveClassBuildItem.builder(types.toArray(String[]::new))
                .methods()
                .fields()
                .build();
    }

    private static ClassInfo owner(AnnotationTarget target) {
        return switch (target.kind()) {
            case CLASS -> target.asClass();
            case FIELD -> target.asField().declaringClass();
            case METHOD -> target.asMethod().declaringClass();
            case METHOD_PARAMETER -> target.asMethodParameter().method().declaringClass();
            case RECORD_COMPONENT -> target.asRecordComponent().declaringClass();
            case TYPE -> owner(target.asType().enclosingTarget());
        };
    }

    /** The component's types a field's type names, its type arguments and array elements included. */
    private static void componentTypes(Type type, Deque<DotName> found) {
        switch (type.kind()) {
            case CLASS -> add(type.name(), found);
            case ARRAY -> componentTypes(type.asArrayType().elementType(), found);
            case PARAMETERIZED_TYPE -> {
                add(type.name(), found);
                type.asParameterizedType().arguments().forEach(argument -> componentTypes(argument, found));
            }
            default -> {}
        }
    }

    private static void add(DotName name, Deque<DotName> found) {
        if (name.toString().startsWith(COMPONENT_PACKAGE)) {
            found.add(name);
        }
    }
}
