package io.camelkubeflow.trainer.access;

/**
 * Something a caller may or may not do, in Kubernetes' terms: a verb on a resource of an API group, in a namespace,
 * optionally on one named object; or a verb on a non-resource URL ({@code get /metrics}), which RBAC grants by a
 * ClusterRole's {@code nonResourceURLs}.
 *
 * @param group       the API group, "" for the core group; null for a non-resource URL
 * @param resource    the resource's plural; null for a non-resource URL
 * @param subresource e.g. {@code log} of pods, or null
 * @param name        one object, or null for any
 * @param path        the non-resource URL, or null for a resource
 */
public record Access(
        String verb, String group, String resource, String subresource, String namespace, String name, String path) {
    private static final String TRAINER = "trainer.kubeflow.org";

    private Access(String verb, String group, String resource, String subresource, String namespace, String name) {
        this(verb, group, resource, subresource, namespace, name, null);
    }

    public static Access trainJobs(String verb, String namespace, String name) {
        return new Access(verb, TRAINER, "trainjobs", null, namespace, name);
    }

    /**
     * A verb on a URL that names no resource (as kube-rbac-proxy and controller-runtime's secure metrics ask about
     * {@code get /metrics}).
     */
    public static Access nonResourceUrl(String verb, String path) {
        return new Access(verb, null, null, null, null, null, path);
    }

    /** Whether this is a verb on a non-resource URL rather than on a resource. */
    public boolean isNonResourceUrl() {
        return path != null;
    }

    /**
     * A verb on TrainingRuntimes of a namespace or on ClusterTrainingRuntimes (namespace null).
     *
     * @param plural {@code trainingruntimes} or {@code clustertrainingruntimes}
     */
    public static Access runtimes(String verb, String plural, String namespace, String name) {
        return new Access(verb, TRAINER, plural, null, namespace, name);
    }

    public static Access readSecret(String namespace, String name) {
        return new Access("get", "", "secrets", null, namespace, name);
    }

    public static Access readConfigMap(String namespace, String name) {
        return new Access("get", "", "configmaps", null, namespace, name);
    }

    public static Access readPersistentVolumeClaim(String namespace, String name) {
        return new Access("get", "", "persistentvolumeclaims", null, namespace, name);
    }

    /** A verb on any ConfigMap of the namespace (staging a workspace creates or patches one). */
    public static Access configMaps(String verb, String namespace) {
        return new Access(verb, "", "configmaps", null, namespace, null);
    }

    /** A verb on the Events of a namespace (a TrainJob's events are read by listing them). */
    public static Access events(String verb, String namespace) {
        return new Access(verb, "", "events", null, namespace, null);
    }

    /** A verb on the Kueue Workloads of a namespace (a job's Workload is found by listing them by its uid). */
    public static Access workloads(String verb, String namespace) {
        return new Access(verb, "kueue.x-k8s.io", "workloads", null, namespace, null);
    }

    public static Access readPodLogs(String namespace) {
        return new Access("get", "", "pods", "log", namespace, null);
    }

    /**
     * As kubectl auth can-i says it: {@code create trainjobs.trainer.kubeflow.org in namespace ml}, or
     * {@code get /metrics}.
     */
    public String describe() {
        if (isNonResourceUrl()) {
            return verb + " " + path;
        }
        return verb + " " + resource + (subresource == null ? "" : "/" + subresource)
                + (group.isEmpty() ? "" : "." + group)
                + (name == null ? "" : " '" + name + "'")
                + (namespace == null ? " in all namespaces" : " in namespace " + namespace);
    }
}
