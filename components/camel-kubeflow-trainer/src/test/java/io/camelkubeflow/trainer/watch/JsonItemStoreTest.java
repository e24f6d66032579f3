package io.camelkubeflow.trainer.watch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The store of the pod and TrainJob informers: what it is asked for is what it was given, reduced, as a new object
 * each time, so no reader can change what another reads.
 */
class JsonItemStoreTest {
    private final KubernetesSerialization serialization = new KubernetesSerialization();
    private final JsonItemStore<Pod> store = new JsonItemStore<>(Pod.class, serialization, PodSummaries::summarize);

    @Test
    void aStoredPodIsReadBackAsTheSummaryItsHandlersWereHanded() throws Exception {
        Pod whole = PodSummariesTest.trainerPod();
        Pod handed = PodSummariesTest.trainerPod();
        String key = store.getKey(handed);
        assertNull(store.put(key, handed));

        Pod read = store.get(key);
        assertEquals(handed, read);
        assertEquals(FailedPodDetail.describe(whole), FailedPodDetail.describe(read));
        assertEquals(TrainJobSteps.fromPods(List.of(whole), false), TrainJobSteps.fromPods(List.of(read), false));
        assertNotSame(read, store.get(key));
        read.getMetadata().getLabels().clear();
        assertEquals(handed, store.get(key));
        assertEquals(List.of(handed), store.values().toList());
    }

    @Test
    void putHandsBackThePreviousAndRemoveTheLast() throws Exception {
        Pod first = PodSummariesTest.trainerPod();
        String key = store.getKey(first);
        store.put(key, first);
        Pod second = new PodBuilder(PodSummariesTest.trainerPod())
                .editMetadata()
                .withResourceVersion("9999")
                .endMetadata()
                .build();

        assertEquals(first, store.put(key, second));
        assertEquals(1, store.size());
        assertEquals(List.of(key), store.keySet().toList());
        assertEquals("9999", store.remove(key).getMetadata().getResourceVersion());
        assertEquals(0, store.size());
        assertNull(store.get(key));
    }
}
