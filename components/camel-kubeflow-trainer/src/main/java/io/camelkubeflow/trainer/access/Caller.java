package io.camelkubeflow.trainer.access;

import java.util.List;

/**
 * Who a request acts for: a Kubernetes user name and its groups, as a TokenReview, an OIDC token or an authenticating
 * proxy name them (a service account is {@code system:serviceaccount:<namespace>:<name>}).
 */
public record Caller(String user, List<String> groups) {
    public Caller {
        groups = groups == null ? List.of() : List.copyOf(groups);
    }

    @Override
    public String toString() {
        return "'" + user + "'" + (groups.isEmpty() ? "" : " (groups " + groups + ")");
    }
}
