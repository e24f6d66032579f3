package io.camelkubeflow.trainer.job;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.camelkubeflow.trainer.api.TrainJob;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/** When a finished TrainJob with a TTL expires: its TTL after its end or after its log was read, whichever is later. */
class TrainJobReaperTest {
    private static final Instant END = Instant.parse("2026-12-03T10:00:00Z");

    private static TrainJob finished(String phase, long ttlSeconds, Instant logsCaptured) {
        return Serialization.unmarshal(
                """
                apiVersion: trainer.kubeflow.org/v1alpha1
                kind: TrainJob
                metadata:
                  name: j
                  annotations:
                    camelkubeflow.io/ttl-after-finished-seconds: "%d"
                    %s
                status:
                  conditions:
                    - type: %s
                      status: "True"
                      lastTransitionTime: "%s"
                """.formatted(
                                ttlSeconds,
                                logsCaptured == null ? "" : "camelkubeflow.io/logs-captured: \"" + logsCaptured + "\"",
                                phase,
                                END),
                TrainJob.class);
    }

    @Test
    void aFinishedJobExpiresItsTtlAfterItsEnd() {
        TrainJob job = finished("Complete", 60, null);
        assertFalse(TrainJobReaper.expired(job, END.plusSeconds(59)));
        assertTrue(TrainJobReaper.expired(job, END.plusSeconds(60)));
        assertTrue(TrainJobReaper.expired(finished("Failed", 60, null), END.plusSeconds(60)));
    }

    @Test
    void readingTheLogRestartsTheClock() {
        TrainJob read = finished("Complete", 60, END.plusSeconds(100));
        assertFalse(TrainJobReaper.expired(read, END.plusSeconds(120)), "deleted under its reader");
        assertTrue(TrainJobReaper.expired(read, END.plusSeconds(160)));
        // a capture before the end does not shorten the TTL
        assertFalse(TrainJobReaper.expired(finished("Complete", 60, END.minusSeconds(30)), END.plusSeconds(59)));
    }

    @Test
    void aRunningJobOrOneWithoutATtlNeverExpires() {
        assertFalse(TrainJobReaper.expired(finished("Suspended", 60, null), END.plusSeconds(3600)));
        assertFalse(TrainJobReaper.expired(finished("Complete", 0, null), END.plusSeconds(3600)));
    }
}
