package io.camelkubeflow.trainer.job;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.code_intelligence.jazzer.junit.FuzzTest;
import com.code_intelligence.jazzer.mutation.annotation.NotNull;
import io.camelkubeflow.trainer.runtime.TrainingRuntimeDescriptor;
import io.camelkubeflow.trainer.sandbox.TrainerSandbox;
import io.camelkubeflow.trainer.support.InvalidOptionException;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.regex.Pattern;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A resource quantity (cpu {@code 500m}, memory {@code 4Gi}) is checked by {@link TrainRequestValidator}, then parsed
 * by {@link TrainJobFactory} into the TrainJob and compared by {@link RequestPolicy} with its maximum. Any text either
 * is refused by the validator naming the field, or is a quantity the API server parses, and then goes through the
 * factory and the policy with no exception but the policy's own refusal.
 */
class QuantityFuzzTest {
    /**
     * The quantity grammar of the Kubernetes API reference (resource.Quantity), written from its description:
     * {@code <signedNumber><suffix>}, the suffix a binary (Ki..Ei) or decimal (n, u, m, k..E) multiple or a decimal
     * exponent; the API server reads the exponent as a whole number, and keeps it in an int32.
     */
    private static final Pattern KUBERNETES_QUANTITY = Pattern.compile(
            "[+-]?(?:[0-9]+(?:\\.[0-9]*)?|\\.[0-9]+)(?:[KMGTPE]i|[numkMGTPE]|[eE](?<exponent>[+-]?[0-9]+))?");

    private static final RequestPolicy POLICY = RequestPolicy.safeDefaults();
    private static final TrainingRuntimeDescriptor TORCH = torch();

    private static TrainingRuntimeDescriptor torch() {
        try (InputStream in =
                QuantityFuzzTest.class.getResourceAsStream(TrainerSandbox.RUNTIMES + "torch_distributed.yaml")) {
            return TrainingRuntimeDescriptor.from(Serialization.unmarshal(in, GenericKubernetesResource.class));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @ValueSource(
            strings = {
                "500m",
                "4Gi",
                "1.5",
                "+2",
                ".5e3",
                "5.",
                "1e9",
                "0",
                "-1",
                "1e2147483648",
                "1e1.5",
                "12Ki",
                "1E-3",
                "Gi",
                "1 Gi",
                "1e",
                "9999999999999999999999999999999999999999Ei",
                "50000005E001000806378"
            })
    @FuzzTest(maxDuration = "90s")
    void aQuantityIsRefusedOrParsedAlongTheWay(@NotNull String quantity) {
        TrainRequest request = new TrainRequest()
                .runtime("torch-distributed")
                .pythonFile("/app/train.py")
                .resource("cpu", quantity);
        try {
            TrainRequestValidator.validate(request);
        } catch (InvalidOptionException refused) {
            assertEquals("cpu", refused.getField(), refused.getMessage());
            return;
        }
        var grammar = KUBERNETES_QUANTITY.matcher(quantity);
        assertTrue(grammar.matches(), "'" + quantity + "' is no quantity of the Kubernetes grammar");
        if (grammar.group("exponent") != null) {
            assertTrue(fitsInt32(grammar.group("exponent")), "'" + quantity + "' has an exponent beyond an int32");
        }
        PreparedTrainJob prepared = TrainJobFactory.build(request, TORCH, "ml", "j", null);
        try {
            POLICY.check(request, prepared);
        } catch (PolicyViolationException over) {
            assertEquals("maxCpu", over.getRule(), over.getMessage());
        }
    }

    private static boolean fitsInt32(String exponent) {
        try {
            Integer.parseInt(exponent);
            return true;
        } catch (NumberFormatException e) {
            return false;
        }
    }
}
