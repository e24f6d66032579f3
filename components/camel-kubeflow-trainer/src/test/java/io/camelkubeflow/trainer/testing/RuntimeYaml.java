package io.camelkubeflow.trainer.testing;

/** A minimal one-job training runtime, as a user might write for a custom image. */
public final class RuntimeYaml {
    private RuntimeYaml() {}

    /**
     * @param namespace  null for a ClusterTrainingRuntime, else a TrainingRuntime in that namespace
     * @param framework  the trainer.kubeflow.org/framework label, or null
     * @param mlPolicy   the mlPolicy in YAML flow style (e.g. "{numNodes: 1, torch: {}}"), or null
     */
    public static String of(String name, String namespace, String framework, String mlPolicy, String image) {
        return "apiVersion: trainer.kubeflow.org/v1alpha1\n"
                + "kind: " + (namespace == null ? "ClusterTrainingRuntime" : "TrainingRuntime") + "\n"
                + "metadata:\n"
                + "  name: " + name + "\n"
                + (namespace == null ? "" : "  namespace: " + namespace + "\n")
                + (framework == null ? "" : "  labels: {trainer.kubeflow.org/framework: " + framework + "}\n")
                + "spec:\n"
                + (mlPolicy == null ? "" : "  mlPolicy: " + mlPolicy + "\n")
                + "  template:\n"
                + "    spec:\n"
                + "      replicatedJobs:\n"
                + "        - name: node\n"
                + "          template:\n"
                + "            metadata: {labels: {trainer.kubeflow.org/trainjob-ancestor-step: trainer}}\n"
                + "            spec: {template: {spec: {containers: [{name: node, image: " + image + "}]}}}\n";
    }
}
