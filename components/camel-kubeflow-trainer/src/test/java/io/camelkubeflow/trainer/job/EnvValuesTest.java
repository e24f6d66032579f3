package io.camelkubeflow.trainer.job;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.camelkubeflow.trainer.support.InvalidOptionException;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.EnvVarBuilder;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Env entries given as text: plain values, Secret and ConfigMap references, and the malformed ones. */
class EnvValuesTest {
    @Test
    void plainTextIsAValue() {
        EnvVar plain = EnvValues.of("LR", "0.1");
        assertEquals("0.1", plain.getValue());
        assertNull(plain.getValueFrom());
        assertEquals("LR", plain.getName());
    }

    @Test
    void referencesBecomeValueFromAndNeverCarryTheValue() {
        EnvVar secret = EnvValues.of("HF_TOKEN", "secretKeyRef:hf-token/token");
        assertNull(secret.getValue());
        assertEquals("hf-token", secret.getValueFrom().getSecretKeyRef().getName());
        assertEquals("token", secret.getValueFrom().getSecretKeyRef().getKey());
        EnvVar config = EnvValues.of("CONF", "configMapKeyRef:settings/app.yaml");
        assertEquals("settings", config.getValueFrom().getConfigMapKeyRef().getName());
        assertEquals("app.yaml", config.getValueFrom().getConfigMapKeyRef().getKey());
    }

    @Test
    void anEnvVarIsTakenAsItIsUnderItsEntrysName() {
        EnvVar given = new EnvVarBuilder().withName("OTHER").withValue("v").build();
        EnvVar taken = EnvValues.of("MINE", given);
        assertEquals("MINE", taken.getName());
        assertEquals("v", taken.getValue());
    }

    @Test
    void malformedReferencesAreRefusedWithoutEchoingWhatFollowsThePrefix() {
        for (String bad : List.of(
                "secretKeyRef:/key",
                "secretKeyRef:name/",
                "secretKeyRef:a/b/c",
                "secretKeyRef:nokey",
                "configMapKeyRef:/k",
                "configMapKeyRef:c/")) {
            InvalidOptionException refused = assertThrows(InvalidOptionException.class, () -> EnvValues.of("X", bad));
            assertEquals("env.X", refused.getField());
            String rest = bad.substring(bad.indexOf(':') + 1);
            assertFalse(!rest.isEmpty() && refused.getMessage().contains("'" + rest + "'"), refused.getMessage());
            assertTrue(refused.getMessage().contains("<name>/<key>"), refused.getMessage());
        }
    }

    @Test
    void noValueOrAStructureIsRefused() {
        assertEquals(
                "env.X",
                assertThrows(InvalidOptionException.class, () -> EnvValues.of("X", null))
                        .getField());
        assertEquals(
                "env.X",
                assertThrows(InvalidOptionException.class, () -> EnvValues.of("X", Map.of("v", 1)))
                        .getField());
        assertEquals(
                "env.X",
                assertThrows(InvalidOptionException.class, () -> EnvValues.of("X", List.of("a")))
                        .getField());
    }
}
