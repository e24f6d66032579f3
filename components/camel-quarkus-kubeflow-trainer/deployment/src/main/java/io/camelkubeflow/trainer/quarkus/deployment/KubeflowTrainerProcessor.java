package io.camelkubeflow.trainer.quarkus.deployment;

import io.camelkubeflow.trainer.quarkus.TrainerCluster;
import io.quarkus.arc.deployment.AdditionalBeanBuildItem;
import io.quarkus.deployment.annotations.BuildStep;
import io.quarkus.deployment.builditem.FeatureBuildItem;

/**
 * The extension's build steps. The rest of what the component needs in a Quarkus app comes from what the runtime module
 * brings, each checked by KubeflowTrainerProcessorTest: Camel Quarkus indexes the component's jar (it carries its
 * Jandex index) and finds its configurers, URI factory and data type; the Kubernetes client extension registers the
 * TrainJob model (a CustomResource and the records of its spec and status) for reflection in a native image and
 * provides the KubernetesClient bean, configured by quarkus.kubernetes-client.*, that the component autowires. Steps
 * that did the same again (indexing the jar, binding the client by name, registering the model) were removed: the test
 * passed without them.
 */
class KubeflowTrainerProcessor {
    static final String FEATURE = "camel-kubeflow-trainer";

    @BuildStep
    FeatureBuildItem feature() {
        return new FeatureBuildItem(FEATURE);
    }

    /** Points the client at the cluster quarkus.kubeflow-trainer.cluster chooses (the Dev Service's, a local sandbox). */
    @BuildStep
    AdditionalBeanBuildItem trainerCluster() {
        return AdditionalBeanBuildItem.unremovableOf(TrainerCluster.class);
    }
}
