package io.camelkubeflow.trainer.testing;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.authentication.TokenRequestBuilder;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBinding;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * What the routes app acts as in a cluster: deploy/'s ServiceAccount with its Role and ClusterRole, applied to a
 * namespace as a user applies them, and a token the API server issues for it (no cluster-admin, so the API server's
 * priority and fairness and RBAC hold it as they hold a real deployment).
 */
public final class DeployedAccount {
    /** deploy/'s ServiceAccount. */
    public static final String NAME = "camel-kubeflow-trainer";

    private DeployedAccount() {}

    /**
     * Applies deploy/'s account to {@code namespace} (its ClusterRoleBinding renamed {@link #bindingName}, for that
     * namespace's account) and answers a token for it, valid for an hour.
     */
    public static String install(KubernetesClient admin, Path deploy, String namespace) throws IOException {
        return install(admin, deploy, namespace, Duration.ofHours(1));
    }

    /** {@link #install(KubernetesClient, Path, String)} with a token valid for {@code lifetime}. */
    public static String install(KubernetesClient admin, Path deploy, String namespace, Duration lifetime)
            throws IOException {
        for (String file : List.of(
                "serviceaccount.yaml",
                "role.yaml",
                "rolebinding.yaml",
                "clusterrole.yaml",
                "clusterrolebinding.yaml")) {
            try (InputStream in = Files.newInputStream(deploy.resolve(file))) {
                for (HasMetadata item : admin.load(in).items()) {
                    if (item instanceof ClusterRoleBinding binding) {
                        binding.getMetadata().setName(bindingName(namespace));
                        binding.getSubjects().forEach(s -> s.setNamespace(namespace));
                        admin.resource(binding).serverSideApply();
                    } else if (item.getKind().startsWith("Cluster")) {
                        admin.resource(item).serverSideApply();
                    } else {
                        admin.resource(item).inNamespace(namespace).serverSideApply();
                    }
                }
            }
        }
        return token(admin, namespace, NAME, lifetime);
    }

    /** The ClusterRoleBinding {@link #install} makes for a namespace's account (cluster-wide: delete it after). */
    public static String bindingName(String namespace) {
        return NAME + "-" + namespace;
    }

    /** A token the API server issues for a ServiceAccount of the namespace (TokenRequest), valid for an hour. */
    public static String token(KubernetesClient admin, String namespace, String account) {
        return token(admin, namespace, account, Duration.ofHours(1));
    }

    /** A token the API server issues for a ServiceAccount of the namespace, valid for {@code lifetime}. */
    public static String token(KubernetesClient admin, String namespace, String account, Duration lifetime) {
        return admin.serviceAccounts()
                .inNamespace(namespace)
                .withName(account)
                .tokenRequest(new TokenRequestBuilder()
                        .withNewSpec()
                        .withExpirationSeconds(lifetime.toSeconds())
                        .endSpec()
                        .build())
                .getStatus()
                .getToken();
    }

    /** A kubeconfig for the admin's API server that authenticates with {@code token}, in {@code namespace}. */
    public static String kubeconfig(Config admin, String token, String namespace) {
        return """
                apiVersion: v1
                kind: Config
                clusters:
                - name: testcluster
                  cluster: {server: "%s", certificate-authority-data: "%s"}
                users:
                - name: app
                  user: {token: "%s"}
                contexts:
                - name: app
                  context: {cluster: testcluster, user: app, namespace: "%s"}
                current-context: app
                """.formatted(admin.getMasterUrl(), admin.getCaCertData(), token, namespace);
    }
}
