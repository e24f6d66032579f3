package io.camelkubeflow.trainer.runtime;

import io.camelkubeflow.trainer.api.TrainJob;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;

/** The two kinds of runtime a TrainJob can name; the constants are the Kubernetes kinds. */
public enum RuntimeKind {
    ClusterTrainingRuntime("clustertrainingruntimes", false),
    TrainingRuntime("trainingruntimes", true);

    private final String plural;
    private final boolean namespaced;

    RuntimeKind(String plural, boolean namespaced) {
        this.plural = plural;
        this.namespaced = namespaced;
    }

    public boolean namespaced() {
        return namespaced;
    }

    public String plural() {
        return plural;
    }

    /** The API coordinates of this kind. */
    public ResourceDefinitionContext context() {
        return new ResourceDefinitionContext.Builder()
                .withGroup(TrainJob.GROUP)
                .withVersion(TrainJob.VERSION)
                .withKind(name())
                .withPlural(plural)
                .withNamespaced(namespaced)
                .build();
    }

    /** The kind of that name, or null. */
    public static RuntimeKind of(String kind) {
        for (RuntimeKind value : values()) {
            if (value.name().equals(kind)) {
                return value;
            }
        }
        return null;
    }
}
