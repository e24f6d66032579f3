package io.camelkubeflow.trainer.api;

import io.fabric8.kubernetes.api.model.Condition;
import java.util.List;
import java.util.Locale;

/**
 * Where a TrainJob is, derived from its status as the Trainer v2.3 controller writes it: only Complete, Failed and
 * Suspended are conditions, so Running is read from jobsStatus (a child job with pods that are active or ready, or
 * already succeeded or failed while the job's own condition is not written yet).
 */
public enum TrainJobPhase {
    CREATED,
    RUNNING,
    SUSPENDED,
    COMPLETE,
    FAILED;

    public String displayName() {
        String lower = name().toLowerCase(Locale.ROOT);
        return Character.toUpperCase(lower.charAt(0)) + lower.substring(1);
    }

    public boolean isTerminal() {
        return this == COMPLETE || this == FAILED;
    }

    public static TrainJobPhase of(TrainJob job) {
        TrainJobStatus status = job.getStatus();
        if (status == null) {
            return CREATED;
        }
        if (conditionTrue(status, "Failed")) {
            return FAILED;
        }
        if (conditionTrue(status, "Complete")) {
            return COMPLETE;
        }
        if (conditionTrue(status, "Suspended")) {
            return SUSPENDED;
        }
        List<TrainJobStatus.JobStatus> jobs = status.jobsStatus();
        boolean running = jobs != null
                && jobs.stream()
                        .anyMatch(j -> positive(j.active())
                                || positive(j.ready())
                                || positive(j.succeeded())
                                || positive(j.failed()));
        return running ? RUNNING : CREATED;
    }

    /** The condition that put the job in a terminal or suspended phase, or null. */
    public static Condition decidingCondition(TrainJob job) {
        TrainJobPhase phase = of(job);
        String type = switch (phase) {
            case FAILED -> "Failed";
            case COMPLETE -> "Complete";
            case SUSPENDED -> "Suspended";
            default -> null;
        };
        if (type == null || job.getStatus() == null || job.getStatus().conditions() == null) {
            return null;
        }
        return job.getStatus().conditions().stream()
                .filter(c -> type.equals(c.getType()))
                .findFirst()
                .orElse(null);
    }

    private static boolean conditionTrue(TrainJobStatus status, String type) {
        return status.conditions() != null
                && status.conditions().stream().anyMatch(c -> type.equals(c.getType()) && "True".equals(c.getStatus()));
    }

    private static boolean positive(Integer count) {
        return count != null && count > 0;
    }
}
