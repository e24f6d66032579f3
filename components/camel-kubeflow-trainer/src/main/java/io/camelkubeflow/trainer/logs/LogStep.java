package io.camelkubeflow.trainer.logs;

import io.camelkubeflow.trainer.support.InvalidOptionException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Which pods' logs to read, named as the Kubeflow SDK names steps: {@code trainer} (the default: the MPI launcher
 * when the job has one, else node 0), {@code node-N}, {@code launcher}, {@code dataset-initializer},
 * {@code model-initializer}, or {@code all} (every node and launcher pod, merged, each line prefixed with its step).
 */
public record LogStep(Kind kind, String replicatedJob, int index) {
    private static final Pattern NODE = Pattern.compile("node-(\\d{1,4})");

    public enum Kind {
        TRAINER,
        ONE,
        ALL
    }

    public static LogStep parse(String field, String text) {
        String step = text == null ? "trainer" : text.trim();
        Matcher node = NODE.matcher(step);
        if (node.matches()) {
            return new LogStep(Kind.ONE, "node", Integer.parseInt(node.group(1)));
        }
        return switch (step) {
            case "trainer" -> new LogStep(Kind.TRAINER, null, 0);
            case "all" -> new LogStep(Kind.ALL, null, 0);
            case "launcher", "dataset-initializer", "model-initializer" -> new LogStep(Kind.ONE, step, 0);
            default ->
                throw new InvalidOptionException(
                        field,
                        "'" + text + "' is not a step; use trainer, node-0,"
                                + " node-1, ..., launcher, dataset-initializer, model-initializer or all");
        };
    }

    /** A line of a merged log: the text behind its step's name, {@code [node-1] text}. */
    public static String prefixed(String stepName, String text) {
        return "[" + stepName + "] " + text;
    }

    /** The name a line of this pod is prefixed with in merged logs: node-0, launcher, ... */
    public static String stepName(String replicatedJob, String index) {
        return "node".equals(replicatedJob) ? "node-" + index : replicatedJob;
    }
}
