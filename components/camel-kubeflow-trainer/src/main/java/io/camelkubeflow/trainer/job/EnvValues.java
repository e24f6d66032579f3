package io.camelkubeflow.trainer.job;

import io.camelkubeflow.trainer.support.InvalidOptionException;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.EnvVarBuilder;

/**
 * Reads an env entry given as text. {@code secretKeyRef:NAME/KEY} and {@code configMapKeyRef:NAME/KEY} become
 * references resolved by the kubelet, so a secret's value never enters the TrainJob; anything else is a plain value.
 */
public final class EnvValues {
    static final String SECRET_PREFIX = "secretKeyRef:";
    static final String CONFIG_MAP_PREFIX = "configMapKeyRef:";

    private EnvValues() {
    }

    public static EnvVar of(String name, Object value) {
        if (value instanceof EnvVar var) {
            return new EnvVarBuilder(var).withName(name).build();
        }
        if (value == null) {
            throw new InvalidOptionException("env." + name, "no value given; give a value, or"
                    + " secretKeyRef:<secret>/<key> or configMapKeyRef:<configmap>/<key>");
        }
        if (value instanceof java.util.Map || value instanceof java.util.Collection) {
            throw new InvalidOptionException("env." + name, "a " + value.getClass().getSimpleName() + " was given;"
                    + " give the value as text");
        }
        String text = value.toString();
        if (text.startsWith(SECRET_PREFIX)) {
            String[] ref = reference(name, text.substring(SECRET_PREFIX.length()), SECRET_PREFIX);
            return new EnvVarBuilder().withName(name).withNewValueFrom().withNewSecretKeyRef()
                    .withName(ref[0]).withKey(ref[1]).endSecretKeyRef().endValueFrom().build();
        }
        if (text.startsWith(CONFIG_MAP_PREFIX)) {
            String[] ref = reference(name, text.substring(CONFIG_MAP_PREFIX.length()), CONFIG_MAP_PREFIX);
            return new EnvVarBuilder().withName(name).withNewValueFrom().withNewConfigMapKeyRef()
                    .withName(ref[0]).withKey(ref[1]).endConfigMapKeyRef().endValueFrom().build();
        }
        return new EnvVar(name, text, null);
    }

    private static String[] reference(String name, String ref, String prefix) {
        int slash = ref.indexOf('/');
        if (slash <= 0 || slash == ref.length() - 1 || ref.indexOf('/', slash + 1) >= 0) {
            // the text after the prefix is not echoed: it may be a mistyped secret value
            throw new InvalidOptionException("env." + name, "a " + prefix + " reference must be written "
                    + prefix + "<name>/<key>, e.g. " + prefix + "hf-token/token");
        }
        return new String[] { ref.substring(0, slash), ref.substring(slash + 1) };
    }
}
