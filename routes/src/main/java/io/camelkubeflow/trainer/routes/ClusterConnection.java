package io.camelkubeflow.trainer.routes;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;

/**
 * Which Kubernetes API the app talks to. {@code auto} takes a real cluster when one is configured (in-cluster service
 * account, $KUBECONFIG or ~/.kube/config) and otherwise the local sandbox, so the app starts on a fresh machine. Inside
 * a pod it always means the cluster: a pod without its service account token fails loudly instead of falling back to
 * the sandbox. {@code cluster} with no cluster configured stops the app at start, so a container image that pins it
 * never runs the sandbox.
 */
public enum ClusterConnection {
    /** The in-cluster service account, or a kubeconfig: fabric8's own auto-configuration. */
    CLUSTER,
    /** The local Trainer sandbox: an emulation of the API server and the Trainer; it may run staged scripts. */
    SANDBOX;

    /**
     * @param setting {@code auto}, {@code cluster} or {@code sandbox}
     * @throws IllegalStateException {@code cluster} was asked for and none is configured: the app does not start
     */
    public static ClusterConnection choose(String setting, Map<String, String> env, Path home) {
        switch (setting.trim().toLowerCase(Locale.ROOT)) {
            case "cluster":
                if (!configured(env, home)) {
                    throw new IllegalStateException("trainer.cluster=cluster, but no Kubernetes cluster is configured:"
                            + " not in a pod, no $KUBECONFIG, no " + home.resolve(".kube").resolve("config")
                            + ", no $KUBERNETES_MASTER. Configure one, or set trainer.cluster=sandbox to run the"
                            + " local sandbox on purpose");
                }
                return CLUSTER;
            case "sandbox":
                return SANDBOX;
            case "auto":
                return configured(env, home) ? CLUSTER : SANDBOX;
            default:
                throw new IllegalArgumentException("trainer.cluster='" + setting
                        + "' is not a choice; use auto, cluster or sandbox");
        }
    }

    /** Where fabric8's auto-configuration finds a cluster: in a pod, a kubeconfig, or a master URL in the env. */
    private static boolean configured(Map<String, String> env, Path home) {
        return env.containsKey("KUBERNETES_SERVICE_HOST") || env.containsKey("KUBECONFIG")
                || env.containsKey("KUBERNETES_MASTER") || Files.exists(home.resolve(".kube").resolve("config"));
    }
}
