package io.camelkubeflow.trainer.sandbox.store;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.BiConsumer;
import java.util.function.Supplier;

/** Kubernetes' garbage collector, along ownerReferences, in the store. */
final class GarbageCollector {
    private final ObservingCrudDispatcher store;
    /** Told the namespace and name of each pod deleted: its log streams end. */
    private final BiConsumer<String, String> podDeleted;
    /** The sandbox's client, with which a dead owner's reference is taken away. */
    private final Supplier<KubernetesClient> client;

    GarbageCollector(
            ObservingCrudDispatcher store, BiConsumer<String, String> podDeleted, Supplier<KubernetesClient> client) {
        this.store = store;
        this.podDeleted = podDeleted;
        this.client = client;
    }

    /**
     * What Kubernetes' garbage collector does after a delete (background propagation, unless the request asked to
     * orphan): every object whose ownerReferences name a deleted object goes too, and so on down; a deleted pod's
     * log streams end.
     */
    void collect(RecordedRequest request, MockResponse response) {
        String body =
                response.getBody() == null ? "" : new String(response.getBody().getBytes(), StandardCharsets.UTF_8);
        String options =
                request.getBody() == null ? "" : new String(request.getBody().getBytes(), StandardCharsets.UTF_8);
        if (body.isEmpty()
                || request.getPath().contains("propagationPolicy=Orphan")
                || options.contains("\"Orphan\"")) {
            return;
        }
        List<GenericKubernetesResource> deleted = new ArrayList<>();
        GenericKubernetesResource object = Serialization.unmarshal(body, GenericKubernetesResource.class);
        if (object.getKind() != null && object.getKind().endsWith("List")) {
            return;
        }
        deleted.add(object);
        while (!deleted.isEmpty()) {
            GenericKubernetesResource owner = deleted.remove(0);
            if ("Pod".equals(owner.getKind())) {
                podDeleted.accept(
                        owner.getMetadata().getNamespace(), owner.getMetadata().getName());
            }
            String uid = owner.getMetadata().getUid();
            if (uid == null) {
                continue;
            }
            List<String> dependents = store.storedHolding(uid);
            for (String json : dependents) {
                GenericKubernetesResource dependent = Serialization.unmarshal(json, GenericKubernetesResource.class);
                boolean owned =
                        dependent.getMetadata().getOwnerReferences().stream().anyMatch(ref -> uid.equals(ref.getUid()));
                if (owned
                        && dependent.getMetadata().getOwnerReferences().stream()
                                .anyMatch(ref -> !uid.equals(ref.getUid()) && exists(ref.getUid()))) {
                    // another owner lives on: the collector takes only the dead owner's reference away
                    dropOwner(dependent, uid);
                    continue;
                }
                String path = owned ? store.discovery().path(dependent) : null;
                if (path != null && store.handleDelete(path).code() == 200) {
                    deleted.add(dependent);
                }
            }
        }
    }

    /** Whether the store holds an object of that uid. */
    private boolean exists(String uid) {
        return store.storedHolding(uid).stream()
                .anyMatch(json -> uid.equals(Serialization.unmarshal(json, GenericKubernetesResource.class)
                        .getMetadata()
                        .getUid()));
    }

    /** Removes one owner reference, as the garbage collector does, after the delete that ended that owner. */
    private void dropOwner(GenericKubernetesResource dependent, String uid) {
        CompletableFuture.runAsync(() -> {
            var resource = client.get()
                    .genericKubernetesResources(dependent.getApiVersion(), dependent.getKind())
                    .inNamespace(dependent.getMetadata().getNamespace())
                    .withName(dependent.getMetadata().getName());
            resource.edit(current -> {
                current.getMetadata().getOwnerReferences().removeIf(ref -> uid.equals(ref.getUid()));
                return current;
            });
        });
    }
}
