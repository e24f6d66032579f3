package io.camelkubeflow.trainer.job;

import io.camelkubeflow.trainer.api.KubernetesNames;
import io.camelkubeflow.trainer.support.InvalidOptionException;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.EnvVarBuilder;
import io.fabric8.kubernetes.api.model.SecretKeySelector;
import java.util.Collection;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * Reads an env entry given as text. {@code secretKeyRef:NAME/KEY} and {@code configMapKeyRef:NAME/KEY} become
 * references resolved by the kubelet, so a secret's value never enters the TrainJob; anything else is a plain value.
 */
public final class EnvValues {
    static final String SECRET_PREFIX = "secretKeyRef:";
    static final String CONFIG_MAP_PREFIX = "configMapKeyRef:";
    /** A key of a Secret's or ConfigMap's data, as the API server accepts it. */
    private static final Pattern DATA_KEY = Pattern.compile("[-._a-zA-Z0-9]+");

    private EnvValues() {}

    public static EnvVar of(String name, Object value) {
        if (value instanceof EnvVar var) {
            return new EnvVarBuilder(var).withName(name).build();
        }
        if (value == null) {
            throw new InvalidOptionException(
                    "env." + name,
                    "no value given; give a value, or"
                            + " secretKeyRef:<secret>/<key> or configMapKeyRef:<configmap>/<key>");
        }
        if (value instanceof Map || value instanceof Collection) {
            throw new InvalidOptionException(
                    "env." + name, "a " + value.getClass().getSimpleName() + " was given;" + " give the value as text");
        }
        String text = value.toString();
        if (text.startsWith(SECRET_PREFIX)) {
            String[] ref = reference("env." + name, text.substring(SECRET_PREFIX.length()), SECRET_PREFIX);
            return new EnvVarBuilder()
                    .withName(name)
                    .withNewValueFrom()
                    .withNewSecretKeyRef()
                    .withName(ref[0])
                    .withKey(ref[1])
                    .endSecretKeyRef()
                    .endValueFrom()
                    .build();
        }
        if (text.startsWith(CONFIG_MAP_PREFIX)) {
            String[] ref = reference("env." + name, text.substring(CONFIG_MAP_PREFIX.length()), CONFIG_MAP_PREFIX);
            return new EnvVarBuilder()
                    .withName(name)
                    .withNewValueFrom()
                    .withNewConfigMapKeyRef()
                    .withName(ref[0])
                    .withKey(ref[1])
                    .endConfigMapKeyRef()
                    .endValueFrom()
                    .build();
        }
        return new EnvVar(name, text, null);
    }

    /**
     * A credential: only {@code secretKeyRef:<secret>/<key>} is taken, so the value itself never enters the TrainJob;
     * anything else is refused with the Secret form, never echoed (it may be the token or key itself).
     */
    public static SecretKeySelector secretKeyOnly(String field, String text) {
        if (text == null || !text.startsWith(SECRET_PREFIX)) {
            throw new InvalidOptionException(
                    field,
                    "takes a reference to a Secret's key, never the credential"
                            + " itself (the value given is not repeated here): store it in a Secret, e.g. kubectl create"
                            + " secret generic hf-token --from-literal=token=..., and write " + SECRET_PREFIX
                            + "hf-token/token");
        }
        String[] ref = reference(field, text.substring(SECRET_PREFIX.length()), SECRET_PREFIX);
        return new SecretKeySelector(ref[1], ref[0], null);
    }

    /**
     * NAME/KEY after a prefix: a Kubernetes object name and a data key. Nothing of it is echoed: a mistyped reference
     * may be a secret value.
     */
    private static String[] reference(String field, String ref, String prefix) {
        int slash = ref.indexOf('/');
        if (slash <= 0 || slash == ref.length() - 1 || ref.indexOf('/', slash + 1) >= 0) {
            throw new InvalidOptionException(
                    field,
                    "a " + prefix + " reference must be written " + prefix + "<name>/<key>, e.g. " + prefix
                            + "hf-token/token");
        }
        String name = ref.substring(0, slash);
        String key = ref.substring(slash + 1);
        if (name.length() > 253
                || !KubernetesNames.RFC1123_SUBDOMAIN.matcher(name).matches()) {
            throw new InvalidOptionException(
                    field,
                    "the name in the " + prefix + " reference is not a Kubernetes"
                            + " object name; use at most 253 lowercase letters, digits, '-' and '.', starting and ending with"
                            + " a letter or digit");
        }
        if (key.length() > 253 || !DATA_KEY.matcher(key).matches()) {
            throw new InvalidOptionException(
                    field,
                    "the key in the " + prefix + " reference is not a data key;"
                            + " use at most 253 letters, digits, '-', '_' and '.'");
        }
        return new String[] {name, key};
    }
}
