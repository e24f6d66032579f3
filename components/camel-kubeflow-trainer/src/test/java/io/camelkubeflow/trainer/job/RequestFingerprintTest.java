package io.camelkubeflow.trainer.job;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import io.camelkubeflow.trainer.api.TrainJob;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.client.utils.Serialization;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

/** The fingerprint of what a request made, and the parts two fingerprints differ in. */
class RequestFingerprintTest {
    private static TrainJob job(String trainer, String labels) {
        return Serialization.unmarshal("""
                apiVersion: trainer.kubeflow.org/v1alpha1
                kind: TrainJob
                metadata:
                  name: j
                  labels: {%s}
                  annotations: {camelkubeflow.io/launcher: torchrun}
                spec:
                  runtimeRef: {name: torch-distributed}
                  trainer: {%s}
                """.formatted(labels, trainer), TrainJob.class);
    }

    private static ConfigMap script(String source) {
        return new ConfigMapBuilder().addToData("train.py", source).build();
    }

    @Test
    void theSameRequestHasTheSameFingerprintWhateverTheOrderOfItsMaps() {
        Map<String, String> one = RequestFingerprint.of(job("numNodes: 2, image: a", "team: x, tier: y"), null);
        Map<String, String> two = RequestFingerprint.of(job("image: a, numNodes: 2", "tier: y, team: x"), null);
        assertEquals(one, two);
        assertEquals(List.of(), RequestFingerprint.differing(RequestFingerprint.format(one),
                RequestFingerprint.format(two)));
    }

    @Test
    void eachDifferingPartIsNamedOnceInOrder() {
        String recorded = RequestFingerprint.format(RequestFingerprint.of(job("numNodes: 1, image: a", "team: x"),
                script("print(1)")));
        Map<String, String> wanted = RequestFingerprint.of(job("numNodes: 2, image: a, args: [x]", "team: y"),
                script("print(2)"));
        assertEquals(List.of("metadata.labels", "script", "spec.trainer.args", "spec.trainer.numNodes"),
                RequestFingerprint.differing(recorded, RequestFingerprint.format(wanted)));
    }

    @Test
    void theComponentsOwnLabelsAndAnnotationsSayHowNotWhat() {
        Map<String, String> plain = RequestFingerprint.of(job("image: a", ""), null);
        TrainJob marked = job("image: a", "camelkubeflow.io/group: kafka, app.kubernetes.io/managed-by: c");
        assertEquals(plain, RequestFingerprint.of(marked, null));
    }

    @Test
    void aPartPresentOnOneSideOnlyDiffers() {
        Map<String, String> withScript = RequestFingerprint.of(job("image: a", ""), script("print(1)"));
        Map<String, String> without = new TreeMap<>(withScript);
        without.remove("script");
        assertEquals(List.of("script"), RequestFingerprint.differing(RequestFingerprint.format(withScript),
                RequestFingerprint.format(without)));
        assertEquals(List.of("script"), RequestFingerprint.differing(RequestFingerprint.format(without),
                RequestFingerprint.format(withScript)));
        assertNotEquals(RequestFingerprint.format(withScript), RequestFingerprint.format(without));
    }
}
