package io.camelkubeflow.trainer.job;

import io.camelkubeflow.trainer.runtime.RuntimeKind;
import io.camelkubeflow.trainer.support.ApiRetry;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;

/** Where the submitter finds the runtime a request names: a GET per create, or a watched cache. */
@FunctionalInterface
public interface RuntimeLookup {
    /**
     * @param namespace the request's namespace (used for a namespaced TrainingRuntime)
     * @return the runtime, or null when none of that kind and name exists
     */
    GenericKubernetesResource find(RuntimeKind kind, String namespace, String name);

    /** A GET to the API server for every lookup. */
    static RuntimeLookup direct(KubernetesClient client, ApiRetry retry) {
        ApiRetry calls = retry.forClient(client);
        return (kind, namespace, name) -> calls.call(
                "GET " + kind + " " + name,
                () -> kind.namespaced()
                        ? client.genericKubernetesResources(kind.context())
                                .inNamespace(namespace)
                                .withName(name)
                                .get()
                        : client.genericKubernetesResources(kind.context())
                                .withName(name)
                                .get());
    }
}
