package io.camelkubeflow.trainer.support;

import org.slf4j.MDC;

/**
 * Puts a TrainJob's name and namespace into the logging MDC for the log lines written about it, so log pipelines can
 * select a job's lines by field instead of parsing messages. The keys are the component's header names, which is
 * also what camel-mdc ({@code camel.mdc.customHeaders}) puts a route's headers under: one log pattern or JSON field
 * serves the component's lines and the route's own. Use in try-with-resources; the previous values come back.
 */
public final class TrainJobMdc implements AutoCloseable {
    /** Equal to the header KubeflowTrainerConstants.JOB_NAME. */
    public static final String JOB_NAME = "CamelKubeflowTrainerJobName";
    /** Equal to the header KubeflowTrainerConstants.NAMESPACE. */
    public static final String NAMESPACE = "CamelKubeflowTrainerNamespace";

    private final String previousName;
    private final String previousNamespace;

    private TrainJobMdc(String namespace, String name) {
        previousName = MDC.get(JOB_NAME);
        previousNamespace = MDC.get(NAMESPACE);
        put(JOB_NAME, name);
        put(NAMESPACE, namespace);
    }

    public static TrainJobMdc of(String namespace, String name) {
        return new TrainJobMdc(namespace, name);
    }

    @Override
    public void close() {
        put(JOB_NAME, previousName);
        put(NAMESPACE, previousNamespace);
    }

    private static void put(String key, String value) {
        if (value == null) {
            MDC.remove(key);
        } else {
            MDC.put(key, value);
        }
    }
}
