package io.camelkubeflow.trainer.job;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import io.camelkubeflow.trainer.api.TrainJob;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

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

    /** The job with a runtime patch: the component's own (an inline script) or, with another manager, a request's. */
    private static TrainJob patched(TrainJob job, String manager, String annotation) {
        return Serialization.unmarshal(
                Serialization.asYaml(job).replace("spec:\n", """
                spec:
                  runtimePatches:
                  - manager: %s
                    trainingRuntimeSpec:
                      template:
                        spec:
                          replicatedJobs:
                          - name: node
                            template:
                              spec:
                                template:
                                  metadata:
                                    annotations: {camelkubeflow.io/script: "%s"}
                """.formatted(manager, annotation)), TrainJob.class);
    }

    private static TrainJob withScript(TrainJob job, String source) {
        return patched(job, TrainJobMetadata.PATCH_MANAGER, source);
    }

    @Test
    void theSameRequestHasTheSameFingerprintWhateverTheOrderOfItsMaps() {
        Map<String, String> one = RequestFingerprint.of(job("numNodes: 2, image: a", "team: x, tier: y"));
        Map<String, String> two = RequestFingerprint.of(job("image: a, numNodes: 2", "tier: y, team: x"));
        assertEquals(one, two);
        assertEquals(
                List.of(),
                RequestFingerprint.differing(RequestFingerprint.format(one), RequestFingerprint.format(two)));
    }

    @Test
    void eachDifferingPartIsNamedOnceInOrder() {
        String recorded = RequestFingerprint.format(
                RequestFingerprint.of(withScript(job("numNodes: 1, image: a", "team: x"), "print(1)")));
        Map<String, String> wanted =
                RequestFingerprint.of(withScript(job("numNodes: 2, image: a, args: [x]", "team: y"), "print(2)"));
        assertEquals(
                List.of("metadata.labels", "script", "spec.trainer.args", "spec.trainer.numNodes"),
                RequestFingerprint.differing(recorded, RequestFingerprint.format(wanted)));
    }

    @Test
    void theComponentsOwnLabelsAndAnnotationsSayHowNotWhat() {
        Map<String, String> plain = RequestFingerprint.of(job("image: a", ""));
        TrainJob marked = job("image: a", "camelkubeflow.io/group: kafka, app.kubernetes.io/managed-by: c");
        assertEquals(plain, RequestFingerprint.of(marked));
    }

    @Test
    void aPartPresentOnOneSideOnlyDiffers() {
        Map<String, String> withScript = RequestFingerprint.of(withScript(job("image: a", ""), "print(1)"));
        Map<String, String> without = new TreeMap<>(withScript);
        without.remove("script");
        assertEquals(
                List.of("script"),
                RequestFingerprint.differing(
                        RequestFingerprint.format(withScript), RequestFingerprint.format(without)));
        assertEquals(
                List.of("script"),
                RequestFingerprint.differing(
                        RequestFingerprint.format(without), RequestFingerprint.format(withScript)));
        assertNotEquals(RequestFingerprint.format(withScript), RequestFingerprint.format(without));
    }

    @Test
    void aRequestsOwnRuntimePatchesArePartOfTheSpecTheInlineScriptIsAPartOfItsOwn() {
        Map<String, String> requestPatch = RequestFingerprint.of(patched(job("image: a", ""), "example.com/team", "x"));
        Map<String, String> script = RequestFingerprint.of(withScript(job("image: a", ""), "x"));
        assertEquals(
                List.of("script", "spec.runtimePatches"),
                RequestFingerprint.differing(
                        RequestFingerprint.format(requestPatch), RequestFingerprint.format(script)));
        assertEquals(Set.of("spec.runtimePatches", "spec.runtimeRef", "spec.trainer.image"), requestPatch.keySet());
        assertEquals(Set.of("script", "spec.runtimeRef", "spec.trainer.image"), script.keySet());
    }

    @Test
    void annotationsOfTheRequestArePartOfIt() {
        TrainJob plain = job("image: a", "");
        TrainJob annotated = job("image: a", "");
        annotated.getMetadata().getAnnotations().put("example.com/owner", "me");
        assertEquals(
                List.of("metadata.annotations"),
                RequestFingerprint.differing(
                        RequestFingerprint.format(RequestFingerprint.of(plain)),
                        RequestFingerprint.format(RequestFingerprint.of(annotated))));
    }

    /**
     * Jobs made by earlier versions carry their fingerprint: the same request must hash the same now, or a retry
     * after an upgrade would be refused as a different request. The hashes were written by the first release of the
     * fingerprint.
     */
    @Test
    void theHashOfEachPartIsTheOneEarlierVersionsRecorded() {
        TrainJob job = withScript(
                job(
                        "image: a, numNodes: 2, env: [{name: B, value: '1'}, {name: A, value: '2'}],"
                                + " resourcesPerNode: {limits: {cpu: '2', memory: 1Gi}}",
                        "team: x"),
                "print(1)");
        job.getMetadata().getAnnotations().put("example.com/owner", "me");
        assertEquals(
                "metadata.annotations=32b99a3e6d013952,metadata.labels=1fb3c22ed31bc001,script=b84ccf6c92928e73,"
                        + "spec.runtimeRef=21e6b6604a0f7cce,spec.trainer.env=2470a8362768e7fc,spec.trainer.image=ac8d8342bbb2362d,"
                        + "spec.trainer.numNodes=d4735e3a265e16ee,spec.trainer.resourcesPerNode=2cc2fb125ec32106",
                RequestFingerprint.format(RequestFingerprint.of(job)));
    }
}
