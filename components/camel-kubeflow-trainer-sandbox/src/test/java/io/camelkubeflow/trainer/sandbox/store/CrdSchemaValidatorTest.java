package io.camelkubeflow.trainer.sandbox.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.camelkubeflow.trainer.sandbox.TrainerSandbox;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The validator that guards every TrainJob the tests see must itself catch what the API server would refuse. */
class CrdSchemaValidatorTest {
    private final CrdSchemaValidator validator = CrdSchemaValidator.trainJobs();

    private static String job(String name, String spec) {
        return "apiVersion: trainer.kubeflow.org/v1alpha1\nkind: TrainJob\nmetadata:\n  name: " + name
                + "\n  namespace: ml\nspec:\n" + spec;
    }

    @Test
    void acceptsAValidTrainJob() {
        assertEquals(List.of(), validator.validate(job("ok-1", """
                  runtimeRef: {name: torch-distributed}
                  trainer:
                    command: [torchrun, train.py]
                    numNodes: 2
                    resourcesPerNode: {limits: {cpu: "2", memory: 8Gi, nvidia.com/gpu: 1}}
                    env: [{name: A, value: b}, {name: T, valueFrom: {secretKeyRef: {name: s, key: k}}}]
                  initializer: {dataset: {storageUri: "s3://bucket/data"}}
                """)));
    }

    @Test
    void refusesWhatTheApiServerWould() {
        assertViolation(job("Upper", "  runtimeRef: {name: r}\n"), "RFC 1035");
        assertViolation(job("a" + "b".repeat(63), "  runtimeRef: {name: r}\n"), "63 characters");
        assertViolation(job("ok", "  trainer: {image: x}\n"), "missing required field 'runtimeRef'");
        assertViolation(job("ok", "  runtimeRef: {name: r}\n  labels: {a: b}\n"), ".spec.labels: unknown field");
        assertViolation(
                job("ok", "  runtimeRef: {name: r}\n  trainer: {resourcesPerNode: {limits: {cpu: 2 cores}}}\n"),
                "does not match");
        assertViolation(job("ok", "  runtimeRef: {name: r}\n  trainer: {numNodes: \"2\"}\n"), "must be integer");
        assertViolation(job("ok", "  runtimeRef: {name: r}\n  activeDeadlineSeconds: 0\n"), "below 1");
        assertViolation(job("ok", "  runtimeRef: {name: r}\n  managedBy: me\n"), "ManagedBy must be");
        assertViolation(
                job("ok", "  runtimeRef: {name: r}\n  initializer: {dataset: {storageUri: bucket/x}}\n"),
                "storageUri may be empty");
        assertViolation(
                job("ok", "  runtimeRef: {name: r}\n  runtimePatches: [{trainingRuntimeSpec: {}}]\n"),
                "missing required field 'manager'");
        assertViolation(
                job("ok", "  runtimeRef: {name: r}\n  trainer: {args: [" + "a,".repeat(128) + "a]}\n"),
                "129 items, at most 128");
    }

    private void assertViolation(String yaml, String expected) {
        List<String> violations = validator.validate(yaml);
        assertTrue(
                violations.stream().anyMatch(v -> v.contains(expected)),
                "expected a violation containing '" + expected + "', got " + violations);
    }

    @Test
    void theSandboxRefusesWhatTheCrdRefusesWith422() {
        try (TrainerSandbox sandbox = TrainerSandbox.start()) {
            sandbox.createNamespace("ml");
            GenericKubernetesResource invalid = Serialization.unmarshal(
                    job("Not_A_Label", "  runtimeRef: {name: torch-distributed}\n  activeDeadlineSeconds: 0\n"),
                    GenericKubernetesResource.class);
            KubernetesClientException refused = assertThrows(
                    KubernetesClientException.class,
                    () -> sandbox.client()
                            .genericKubernetesResources("trainer.kubeflow.org/v1alpha1", "TrainJob")
                            .inNamespace("ml")
                            .resource(invalid)
                            .create());
            assertEquals(422, refused.getCode());
            // as kube-apiserver: the schema's finding, and the CEL rules (the name's) left unchecked because of it
            assertTrue(
                    refused.getMessage().contains("spec.activeDeadlineSeconds: 0 is below 1")
                            && refused.getMessage().contains("<nil>: " + CrdSchemaValidator.RULES_NOT_CHECKED)
                            && !refused.getMessage().contains("RFC 1035"),
                    refused.getMessage());
        }
    }
}
