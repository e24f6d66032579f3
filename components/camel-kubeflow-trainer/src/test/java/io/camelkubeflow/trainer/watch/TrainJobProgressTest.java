package io.camelkubeflow.trainer.watch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.camelkubeflow.trainer.api.TrainJob;
import io.camelkubeflow.trainer.api.TrainJobStatus;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class TrainJobProgressTest {
    private static TrainJob job(String statusYaml) {
        TrainJob job = new TrainJob();
        job.setStatus(statusYaml == null ? null : Serialization.unmarshal(statusYaml, TrainJobStatus.class));
        return job;
    }

    private static Pod pod(String replicatedJob, String readyStatus) {
        return Serialization.unmarshal(
                """
                metadata: {name: p, labels: {%s}}
                %s
                """.formatted(
                                replicatedJob == null ? "" : "jobset.sigs.k8s.io/replicatedjob-name: " + replicatedJob,
                                readyStatus == null
                                        ? ""
                                        : "status: {conditions: [{type: Initialized, status: \"True\"}, {type: Ready, status: \""
                                                + readyStatus + "\"}]}"),
                Pod.class);
    }

    @Test
    void aJobWithoutStatusOrTrainerStatusReportedNothing() {
        assertNull(TrainJobProgress.reported(job(null)));
        assertNull(TrainJobProgress.reported(job("conditions: []")));
    }

    @Test
    void theReportCarriesPercentRemainingTimeMetricsInOrderAndTheTime() {
        TrainJobProgress progress = TrainJobProgress.reported(job("""
                trainerStatus:
                  progressPercentage: 40
                  estimatedRemainingSeconds: 300
                  metrics: [{name: loss, value: "0.21"}, {name: accuracy, value: "0.9"}, {name: epoch, value: "2"}]
                  lastUpdatedTime: "2026-12-03T10:15:30+01:00"
                """));
        assertEquals(TrainJobProgress.TRAINER_STATUS, progress.source());
        assertEquals(40, progress.percent());
        assertEquals(300, progress.estimatedRemainingSeconds());
        assertEquals(
                List.of("loss", "accuracy", "epoch"),
                List.copyOf(progress.metrics().keySet()));
        assertEquals("0.9", progress.metrics().get("accuracy"));
        assertEquals(Instant.parse("2026-12-03T09:15:30Z"), progress.reportedAt());
        assertNull(progress.podsReady());
        assertNull(progress.podsTotal());
        assertEquals("40%, about 300 s left, loss=0.21, accuracy=0.9, epoch=2", progress.describe());
    }

    @Test
    void aReportWithOnlySomeFieldsDescribesThoseAndAnUnreadableTimeIsNull() {
        TrainJobProgress metricsOnly = TrainJobProgress.reported(job("""
                trainerStatus: {metrics: [{name: loss, value: "1.5"}], lastUpdatedTime: "yesterday"}
                """));
        assertEquals("loss=1.5", metricsOnly.describe());
        assertNull(metricsOnly.reportedAt());
        assertEquals(
                "about 20 s left",
                TrainJobProgress.reported(job("trainerStatus: {estimatedRemainingSeconds: 20}"))
                        .describe());
        TrainJobProgress empty = TrainJobProgress.reported(job("trainerStatus: {}"));
        assertEquals(Map.of(), empty.metrics());
        assertNull(empty.reportedAt());
        assertEquals("no progress reported yet", empty.describe());
    }

    @Test
    void podsCountTrainerPodsOnlyAndReadyOnlyWhenTheReadyConditionIsTrue() {
        TrainJobProgress progress = TrainJobProgress.ofPods(List.of(
                pod("node", "True"),
                pod("node", "False"),
                pod("launcher", null),
                pod(null, "True"),
                pod("dataset-initializer", "True"),
                pod("model-initializer", "True")));
        assertEquals(TrainJobProgress.PODS, progress.source());
        assertEquals(2, progress.podsReady());
        assertEquals(4, progress.podsTotal());
        assertNull(progress.percent());
        assertEquals(Map.of(), progress.metrics());
        assertEquals("2/4 pods ready", progress.describe());
        assertEquals("0/0 pods ready", TrainJobProgress.ofPods(List.of()).describe());
    }

    @Test
    void aPodWhoseOtherConditionsAreTrueIsNotReady() {
        Pod initializedOnly = Serialization.unmarshal("""
                metadata: {name: p}
                status: {conditions: [{type: Initialized, status: "True"}, {type: ContainersReady, status: "True"}]}
                """, Pod.class);
        assertEquals(0, TrainJobProgress.ofPods(List.of(initializedOnly)).podsReady());
        Pod noConditions = Serialization.unmarshal("""
                metadata: {name: p}
                status: {phase: Pending}
                """, Pod.class);
        assertEquals(0, TrainJobProgress.ofPods(List.of(noConditions)).podsReady());
    }
}
