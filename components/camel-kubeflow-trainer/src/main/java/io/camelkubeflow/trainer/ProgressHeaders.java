package io.camelkubeflow.trainer;

import io.camelkubeflow.trainer.watch.TrainJobProgress;
import org.apache.camel.Message;

import static io.camelkubeflow.trainer.KubeflowTrainerConstants.*;

/** The progress headers, as wait and the events consumer set them: each one removed when the progress lacks it. */
final class ProgressHeaders {
    private ProgressHeaders() {
    }

    static void set(Message message, TrainJobProgress progress) {
        set(message, PROGRESS_SOURCE, progress == null ? null : progress.source());
        set(message, PROGRESS_PERCENT, progress == null ? null : progress.percent());
        set(message, ESTIMATED_REMAINING_SECONDS, progress == null ? null : progress.estimatedRemainingSeconds());
        set(message, TRAINER_METRICS, progress == null || progress.metrics().isEmpty() ? null : progress.metrics());
        set(message, PODS_READY, progress == null ? null : progress.podsReady());
        set(message, PODS_TOTAL, progress == null ? null : progress.podsTotal());
    }

    /** A second wait in the same exchange must not keep the first one's values. */
    private static void set(Message message, String header, Object value) {
        if (value == null) {
            message.removeHeader(header);
        } else {
            message.setHeader(header, value);
        }
    }
}
