package io.camelkubeflow.trainer.runtime;

import io.camelkubeflow.trainer.api.KubernetesNames;
import io.camelkubeflow.trainer.support.ApiRetry;
import io.camelkubeflow.trainer.support.InvalidOptionException;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.ArrayList;
import java.util.List;

/** The runtimes a TrainJob can name, each with the launcher train would choose for it and why. */
public class RuntimeCatalog {
    private final KubernetesClient client;
    private final ApiRetry retry;

    public RuntimeCatalog(KubernetesClient client, ApiRetry retry) {
        this.client = client;
        this.retry = retry.forClient(client);
    }

    /** A runtime and the launcher its code would get; {@code launcher} is null when train would refuse it. */
    public record RuntimeLauncher(
            String kind,
            String name,
            String namespace,
            String framework,
            List<String> mlPolicies,
            String image,
            String launcher,
            String rule,
            String reason) {}

    /**
     * Every ClusterTrainingRuntime and, when {@code namespace} is given, the namespace's TrainingRuntimes, with the
     * launcher each would get under {@code imageRules} (may be empty).
     */
    public List<RuntimeLauncher> runtimes(String namespace, List<ImageRule> imageRules) {
        List<RuntimeLauncher> runtimes = new ArrayList<>();
        for (GenericKubernetesResource runtime : retry.call(
                        "list ClusterTrainingRuntimes",
                        () -> client.genericKubernetesResources(RuntimeKind.ClusterTrainingRuntime.context())
                                .list())
                .getItems()) {
            runtimes.add(describe(runtime, null, imageRules));
        }
        if (namespace != null) {
            for (GenericKubernetesResource runtime : retry.call(
                            "list TrainingRuntimes in " + namespace,
                            () -> client.genericKubernetesResources(RuntimeKind.TrainingRuntime.context())
                                    .inNamespace(namespace)
                                    .list())
                    .getItems()) {
                runtimes.add(describe(runtime, namespace, imageRules));
            }
        }
        return runtimes;
    }

    /**
     * The runtime of that name as the Kubeflow SDK finds it: the namespace's TrainingRuntime, else the
     * ClusterTrainingRuntime; {@link RuntimeNotFoundException} naming {@code field} when there is neither.
     */
    public RuntimeLauncher runtime(String field, String namespace, String name, List<ImageRule> imageRules) {
        KubernetesNames.objectName(field, name);
        GenericKubernetesResource namespaced = retry.call(
                "GET TrainingRuntime " + namespace + "/" + name,
                () -> client.genericKubernetesResources(RuntimeKind.TrainingRuntime.context())
                        .inNamespace(namespace)
                        .withName(name)
                        .get());
        if (namespaced != null) {
            return describe(namespaced, namespace, imageRules);
        }
        GenericKubernetesResource cluster = retry.call(
                "GET ClusterTrainingRuntime " + name,
                () -> client.genericKubernetesResources(RuntimeKind.ClusterTrainingRuntime.context())
                        .withName(name)
                        .get());
        if (cluster == null) {
            throw new RuntimeNotFoundException(
                    field,
                    "there is no TrainingRuntime '" + name + "' in namespace " + namespace
                            + " and no ClusterTrainingRuntime '" + name + "'; the runtimes operation lists them");
        }
        return describe(cluster, null, imageRules);
    }

    private static RuntimeLauncher describe(
            GenericKubernetesResource resource, String namespace, List<ImageRule> imageRules) {
        TrainingRuntimeDescriptor runtime = TrainingRuntimeDescriptor.from(resource);
        String image = runtime.trainerImage();
        List<String> policies = runtime.mlPolicies().stream().sorted().toList();
        try {
            LauncherDecision decision = LauncherResolver.resolve(runtime, image, imageRules, null);
            return new RuntimeLauncher(
                    runtime.kind(),
                    runtime.name(),
                    namespace,
                    runtime.framework(),
                    policies,
                    image,
                    decision.launcher().optionValue(),
                    decision.rule().name(),
                    decision.reason());
        } catch (InvalidOptionException refused) {
            return new RuntimeLauncher(
                    runtime.kind(),
                    runtime.name(),
                    namespace,
                    runtime.framework(),
                    policies,
                    image,
                    null,
                    "REFUSED",
                    refused.getMessage());
        }
    }
}
