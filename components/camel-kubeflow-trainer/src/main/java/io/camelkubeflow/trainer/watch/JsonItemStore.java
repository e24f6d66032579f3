package io.camelkubeflow.trainer.watch;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.informers.cache.Cache;
import io.fabric8.kubernetes.client.informers.cache.ItemStore;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import java.util.stream.Stream;

/**
 * An informer's store that holds each object as its JSON text, read again into a new object whenever the store is
 * asked for it. A fabric8 model object is several times its JSON in heap (each one carries its empty lists and maps of
 * unset fields and a map of unknown ones): a TrainJob pod summarized by {@link PodSummaries} is about 4.2 KiB as
 * objects and 0.9 KiB as text, so a client that serves the waits and events of 10,000 jobs keeps their cache in a
 * fraction of the heap. The price is a read of the text per object asked for (about 10 microseconds for a pod
 * summary): by lookups and listings of the store, and by each update, whose previous version fabric8 reads back (to
 * compare resource versions and hand it to the handlers); the handlers are handed the object the watch read.
 *
 * @param <T> what the informer holds
 */
final class JsonItemStore<T extends HasMetadata> implements ItemStore<T> {
    private final Map<String, String> items = new ConcurrentHashMap<>();
    private final Class<T> type;
    private final KubernetesSerialization serialization;
    private final Consumer<T> reduce;

    /**
     * @param reduce what is dropped from each object before it is stored, done on the object itself: the handlers of
     *               an add or an update are handed it, and see what the store holds
     */
    JsonItemStore(Class<T> type, KubernetesSerialization serialization, Consumer<T> reduce) {
        this.type = type;
        this.serialization = serialization;
        this.reduce = reduce;
    }

    @Override
    public String getKey(T object) {
        return Cache.metaNamespaceKeyFunc(object);
    }

    @Override
    public T put(String key, T object) {
        reduce.accept(object);
        return read(items.put(key, serialization.asJson(object)));
    }

    @Override
    public T remove(String key) {
        return read(items.remove(key));
    }

    @Override
    public Stream<String> keySet() {
        return items.keySet().stream();
    }

    @Override
    public Stream<T> values() {
        return items.values().stream().map(this::read);
    }

    @Override
    public T get(String key) {
        return read(items.get(key));
    }

    @Override
    public int size() {
        return items.size();
    }

    private T read(String json) {
        return json == null ? null : serialization.unmarshal(json, type);
    }
}
