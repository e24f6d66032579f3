package io.camelkubeflow.trainer.routes;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;

/**
 * Which Kubernetes API the app talks to. {@code auto} takes a real cluster when one is configured (in-cluster service
 * account, $KUBECONFIG or ~/.kube/config) and otherwise the local sandbox, so the app starts on a fresh machine. Inside
 * a pod it always means the cluster: a pod without its service account token fails loudly instead of falling back to
 * the sandbox.
 */
public enum ClusterConnection {
    /** The in-cluster service account, or a kubeconfig: fabric8's own auto-configuration. */
    CLUSTER,
    /** The local Trainer sandbox: an emulation of the API server and the Trainer; it may run staged scripts. */
    SANDBOX;

    /**
     * @param setting {@code auto}, {@code cluster} or {@code sandbox}
     */
    public static ClusterConnection choose(String setting, Map<String, String> env, Path home) {
        switch (setting.trim().toLowerCase(Locale.ROOT)) {
            case "cluster":
                return CLUSTER;
            case "sandbox":
                return SANDBOX;
            case "auto":
                boolean inPod = env.containsKey("KUBERNETES_SERVICE_HOST");
                boolean kubeconfig = env.containsKey("KUBECONFIG")
                        || Files.exists(home.resolve(".kube").resolve("config"));
                return inPod || kubeconfig ? CLUSTER : SANDBOX;
            default:
                throw new IllegalArgumentException("trainer.cluster='" + setting
                        + "' is not a choice; use auto, cluster or sandbox");
        }
    }
}
