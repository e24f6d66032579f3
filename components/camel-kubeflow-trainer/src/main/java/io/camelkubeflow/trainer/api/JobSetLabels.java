package io.camelkubeflow.trainer.api;

import java.util.List;

/** The labels JobSet puts on the pods of a TrainJob, by which the component finds them. */
public final class JobSetLabels {
    /** The TrainJob's (and its JobSet's) name. */
    public static final String JOBSET_NAME = "jobset.sigs.k8s.io/jobset-name";
    /** The replicated job: dataset-initializer, model-initializer, launcher or node. */
    public static final String REPLICATED_JOB = "jobset.sigs.k8s.io/replicatedjob-name";
    /** The pod's index within its Job (an Indexed Job): 0 for initializers and the launcher, the node's number. */
    public static final String COMPLETION_INDEX = "batch.kubernetes.io/job-completion-index";
    /** The Job that made the pod, {@code <trainjob>-<replicated job>-<job index>}. */
    public static final String JOB_NAME = "batch.kubernetes.io/job-name";
    /** Every label above: the only ones a pod in the component's cache keeps. */
    public static final List<String> ALL = List.of(JOBSET_NAME, REPLICATED_JOB, COMPLETION_INDEX, JOB_NAME);

    private JobSetLabels() {}
}
