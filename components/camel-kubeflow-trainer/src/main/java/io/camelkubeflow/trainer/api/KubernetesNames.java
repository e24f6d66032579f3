package io.camelkubeflow.trainer.api;

import io.camelkubeflow.trainer.support.InvalidOptionException;
import java.util.regex.Pattern;

/**
 * The names the API server accepts, checked before a name from outside (a URL path, a query, a body, a header, an
 * endpoint URI) reaches a review or a request: a name that is not one could be a path of its own ({@code ../secrets/x})
 * once put into an API URL. Each check returns the name, so a caller can write {@code get(trainJobName(f, name))}.
 */
public final class KubernetesNames {
    public static final Pattern RFC1035_LABEL = Pattern.compile("[a-z]([-a-z0-9]*[a-z0-9])?");
    public static final Pattern RFC1123_LABEL = Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?");
    public static final Pattern RFC1123_SUBDOMAIN =
            Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*");

    private KubernetesNames() {}

    /** A TrainJob's name: the CRD's CEL rule on metadata.name, an RFC 1035 label of at most 63 characters. */
    public static String trainJobName(String field, String name) {
        return checked(
                field,
                name,
                63,
                RFC1035_LABEL,
                "is not a TrainJob name: an RFC 1035 label of at most 63"
                        + " characters (a lowercase letter first, then lowercase letters, digits or '-', ending with a letter or"
                        + " digit)");
    }

    /** A namespace's name: an RFC 1123 label of at most 63 characters. */
    public static String namespace(String field, String namespace) {
        return checked(
                field,
                namespace,
                63,
                RFC1123_LABEL,
                "is not a namespace: an RFC 1123 label of at most 63"
                        + " characters (lowercase letters, digits or '-', starting and ending with a letter or digit)");
    }

    /** The name of most other objects (a runtime, a Secret, a ConfigMap): an RFC 1123 subdomain of at most 253. */
    public static String objectName(String field, String name) {
        return checked(
                field,
                name,
                253,
                RFC1123_SUBDOMAIN,
                "is not a Kubernetes object name; use at most 253"
                        + " lowercase letters, digits, '-' and '.', starting and ending with a letter or digit");
    }

    private static String checked(String field, String name, int maxLength, Pattern pattern, String refusal) {
        if (name == null || name.length() > maxLength || !pattern.matcher(name).matches()) {
            throw new InvalidOptionException(field, quote(name) + " " + refusal);
        }
        return name;
    }

    /** The value as a message quotes it, cut to 80 characters (InvalidOptionException escapes what it holds). */
    private static String quote(String value) {
        if (value == null) {
            return "no value";
        }
        return value.codePointCount(0, value.length()) <= 80
                ? "'" + value + "'"
                : "'" + value.substring(0, value.offsetByCodePoints(0, 80)) + "...'";
    }
}
