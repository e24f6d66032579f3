package io.camelkubeflow.trainer.job;

import io.camelkubeflow.trainer.api.TrainJob;
import io.camelkubeflow.trainer.runtime.LauncherDecision;
import io.camelkubeflow.trainer.runtime.TrainingRuntimeDescriptor;
import io.camelkubeflow.trainer.workspace.Workspace;
import java.net.URI;

/**
 * A TrainJob ready to be written (an inline script inside it), with the runtime and launcher it was made for, and the
 * workspace to stage for it (null when it runs none) and the URL its pods fetch it from when it is kept in a
 * workspace store (null when it is staged in a ConfigMap).
 */
public record PreparedTrainJob(
        TrainJob trainJob,
        TrainingRuntimeDescriptor runtime,
        LauncherDecision decision,
        Workspace workspace,
        URI workspaceUrl) {

    /** Whether the workspace is staged in the namespace, as a ConfigMap the job owns. */
    public boolean workspaceInConfigMap() {
        return workspace != null && workspaceUrl == null;
    }
}
