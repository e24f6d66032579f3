package io.camelkubeflow.trainer.access;

/**
 * Something a caller may or may not do, in Kubernetes' terms: a verb on a resource of an API group, in a namespace,
 * optionally on one named object.
 *
 * @param group       the API group, "" for the core group
 * @param subresource e.g. {@code log} of pods, or null
 * @param name        one object, or null for any
 */
public record Access(String verb, String group, String resource, String subresource, String namespace, String name) {
    private static final String TRAINER = "trainer.kubeflow.org";

    public static Access trainJobs(String verb, String namespace, String name) {
        return new Access(verb, TRAINER, "trainjobs", null, namespace, name);
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

    public static Access readPodLogs(String namespace) {
        return new Access("get", "", "pods", "log", namespace, null);
    }

    /** As kubectl auth can-i says it: {@code create trainjobs.trainer.kubeflow.org in namespace ml}. */
    public String describe() {
        return verb + " " + resource + (subresource == null ? "" : "/" + subresource) + (group.isEmpty() ? "" : "." + group)
                + (name == null ? "" : " '" + name + "'") + (namespace == null ? " in all namespaces"
                : " in namespace " + namespace);
    }
}
