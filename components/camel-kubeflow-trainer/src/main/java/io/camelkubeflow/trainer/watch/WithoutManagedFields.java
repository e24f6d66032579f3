package io.camelkubeflow.trainer.watch;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.informers.cache.BasicItemStore;
import io.fabric8.kubernetes.client.informers.cache.Cache;

/**
 * The TrainJob informers' store: it keeps each job without its {@code metadata.managedFields}, the server-side-apply
 * bookkeeping the Trainer writes on every TrainJob, a large part of the object that nothing here reads. So the jobs an
 * events consumer or a wait hands on carry none either (a deleted job is the watch event's own object, with them).
 * The rest stays: those jobs are what routes receive. (Pods are cached as {@link PodSummaries}.)
 */
final class WithoutManagedFields<T extends HasMetadata> extends BasicItemStore<T> {
    WithoutManagedFields() {
        super(Cache::metaNamespaceKeyFunc);
    }

    @Override
    public T put(String key, T object) {
        // the object handed to the handlers of an add or an update is this one: they never see the fields either
        object.getMetadata().setManagedFields(null);
        return super.put(key, object);
    }
}
