package io.camelkubeflow.trainer.access;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Who a request acts for: a Kubernetes user name, its groups and its extra attributes, as a TokenReview, an OIDC token
 * or an authenticating proxy name them (a service account is {@code system:serviceaccount:<namespace>:<name>}). Only
 * an authentication step makes one; it travels as this typed value (the exchange property
 * {@code CamelKubeflowTrainerCaller}), never as text a transport could set, so a group is always one list element,
 * whatever characters its name holds.
 */
public record Caller(String user, List<String> groups, Map<String, List<String>> extra) {
    public Caller {
        if (user == null || user.isBlank()) {
            throw new IllegalArgumentException("a caller has a user name");
        }
        groups = groups == null ? List.of() : List.copyOf(groups);
        Map<String, List<String>> copied = new LinkedHashMap<>();
        if (extra != null) {
            extra.forEach((key, values) -> copied.put(Objects.requireNonNull(key), List.copyOf(values)));
        }
        extra = Collections.unmodifiableMap(copied);
    }

    public Caller(String user, List<String> groups) {
        this(user, groups, Map.of());
    }

    @Override
    public String toString() {
        return "'" + user + "'" + (groups.isEmpty() ? "" : " (groups " + groups + ")");
    }
}
