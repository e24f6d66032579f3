package io.camelkubeflow.trainer.sandbox.store;

import io.fabric8.kubernetes.client.server.mock.KubernetesAttributesExtractor;
import io.fabric8.mockwebserver.crud.Attribute;
import io.fabric8.mockwebserver.crud.AttributeSet;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * An index of fabric8's CRUD store by resource, namespace and name, kept in step with every change the store makes:
 * the store itself scans all its objects for every read and write, which made each request cost more as a long run's
 * objects (TrainJobs, JobSets, Jobs, pods, Events) piled up. With the index a read or a write of one object costs the
 * same whatever the store holds, and a list scans only its resource in its namespace.
 */
final class StoreIndex {
    /** "plural/namespace" (namespace empty when cluster-scoped) → name → the store's entry. */
    private final Map<String, Map<String, Map.Entry<AttributeSet, String>>> byCollection = new ConcurrentHashMap<>();

    /** The store replaced {@code old} (null: none) by {@code now} (null: deleted) holding {@code json}. */
    void changed(AttributeSet old, AttributeSet now, String json) {
        if (old != null) {
            String collection = collection(old);
            if (collection != null) {
                Map<String, Map.Entry<AttributeSet, String>> entries = byCollection.get(collection);
                if (entries != null) {
                    entries.remove(value(old, KubernetesAttributesExtractor.NAME));
                }
            }
        }
        if (now != null && json != null) {
            String collection = collection(now);
            if (collection != null) {
                byCollection
                        .computeIfAbsent(collection, c -> new ConcurrentHashMap<>())
                        .put(value(now, KubernetesAttributesExtractor.NAME), Map.entry(now, json));
            }
        }
    }

    /**
     * The entry a query names (plural, name, and namespace when namespaced), null when the store holds none; or
     * {@link #UNINDEXED} when the query does not name one object.
     */
    Map.Entry<AttributeSet, String> find(AttributeSet query) {
        String collection = collection(query);
        String name = value(query, KubernetesAttributesExtractor.NAME);
        if (collection == null || name == null) {
            return UNINDEXED;
        }
        Map<String, Map.Entry<AttributeSet, String>> entries = byCollection.get(collection);
        Map.Entry<AttributeSet, String> entry = entries == null ? null : entries.get(name);
        return entry != null && entry.getKey().matches(query) ? entry : null;
    }

    /**
     * The objects of a collection query that match it, ordered by namespace and name: its namespace's, or (no
     * namespace in the query: a cluster-scoped resource, or every namespace) all of its resource's.
     */
    List<String> list(AttributeSet query) {
        String plural = value(query, KubernetesAttributesExtractor.PLURAL);
        String namespace = value(query, KubernetesAttributesExtractor.NAMESPACE);
        List<Map.Entry<AttributeSet, String>> found = new ArrayList<>();
        byCollection.forEach((collection, entries) -> {
            if (namespace != null ? collection.equals(plural + "/" + namespace) : collection.startsWith(plural + "/")) {
                entries.values().stream().filter(e -> e.getKey().matches(query)).forEach(found::add);
            }
        });
        // in the API server's order: by namespace, then name (its storage keys)
        found.sort(Comparator.comparing((Map.Entry<AttributeSet, String> e) ->
                        String.valueOf(value(e.getKey(), KubernetesAttributesExtractor.NAMESPACE)))
                .thenComparing(e -> String.valueOf(value(e.getKey(), KubernetesAttributesExtractor.NAME))));
        return found.stream().map(Map.Entry::getValue).toList();
    }

    /** What {@link #find} answers for a query that does not name one object. */
    static final Map.Entry<AttributeSet, String> UNINDEXED = Map.entry(new AttributeSet(), "");

    private static String collection(AttributeSet attributes) {
        String plural = value(attributes, KubernetesAttributesExtractor.PLURAL);
        if (plural == null) {
            return null;
        }
        String namespace = value(attributes, KubernetesAttributesExtractor.NAMESPACE);
        return plural + "/" + (namespace == null ? "" : namespace);
    }

    private static String value(AttributeSet attributes, String key) {
        Attribute attribute = attributes.getAttribute(key);
        return attribute == null || attribute.getValues().isEmpty()
                ? null
                : attribute.getValues().get(0).toString();
    }
}
