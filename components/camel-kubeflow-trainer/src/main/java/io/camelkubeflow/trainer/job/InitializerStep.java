package io.camelkubeflow.trainer.job;

import io.camelkubeflow.trainer.runtime.TrainingRuntimeDescriptor;
import java.util.Arrays;
import java.util.Set;

/** The two initializers a TrainJob may have: the replicated job and container of each, and the kinds it takes. */
public enum InitializerStep {
    DATASET(
            "dataset",
            TrainingRuntimeDescriptor.DATASET_INITIALIZER,
            Set.of(InitializerKind.HF, InitializerKind.S3, InitializerKind.CACHE)),
    MODEL("model", TrainingRuntimeDescriptor.MODEL_INITIALIZER, Set.of(InitializerKind.HF, InitializerKind.S3));

    private final String prefix;
    private final String replicatedJob;
    private final Set<InitializerKind> kinds;

    InitializerStep(String prefix, String replicatedJob, Set<InitializerKind> kinds) {
        this.prefix = prefix;
        this.replicatedJob = replicatedJob;
        this.kinds = kinds;
    }

    /** The field callers write for one of this step's settings: {@code dataset} + {@code Uri}. */
    public String field(String suffix) {
        return prefix + suffix;
    }

    /** The replicated job, and its container, the Trainer hands this initializer's settings to. */
    public String replicatedJob() {
        return replicatedJob;
    }

    public boolean takes(InitializerKind kind) {
        return kinds.contains(kind);
    }

    /** The kinds' schemes in a fixed order, for messages: {@code hf, s3, cache}. */
    public String schemes() {
        return String.join(
                ", ",
                Arrays.stream(InitializerKind.values())
                        .filter(kinds::contains)
                        .map(InitializerKind::scheme)
                        .toList());
    }
}
