package io.camelkubeflow.trainer.watch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.camelkubeflow.trainer.api.TrainJobPhase;
import io.camelkubeflow.trainer.support.InvalidOptionException;
import org.junit.jupiter.api.Test;

class WaitTargetTest {
    @Test
    void eachTargetIsWrittenAsItsPhaseAndParsedInAnyCaseAndSpacing() {
        for (WaitTarget target : WaitTarget.values()) {
            assertEquals(target.phase().displayName(), target.toString());
            assertEquals(
                    target,
                    WaitTarget.parse(
                            "waitFor", " " + target.phase().displayName().toUpperCase() + " "));
        }
        assertEquals(
                TrainJobPhase.COMPLETE, WaitTarget.parse("waitFor", "complete").phase());
        assertEquals(TrainJobPhase.FAILED, WaitTarget.FAILED.phase());
        assertEquals(TrainJobPhase.RUNNING, WaitTarget.RUNNING.phase());
        assertEquals(TrainJobPhase.SUSPENDED, WaitTarget.SUSPENDED.phase());
    }

    @Test
    void createdAndUnknownStatusesAreRefusedNamingTheFieldAndTheChoices() {
        InvalidOptionException created = assertThrows(
                InvalidOptionException.class, () -> WaitTarget.parse("CamelKubeflowTrainerWaitFor", "Created"));
        assertEquals("CamelKubeflowTrainerWaitFor", created.getField());
        assertEquals(
                "Invalid 'CamelKubeflowTrainerWaitFor': 'Created' is not a status to wait for; use Complete, Failed,"
                        + " Running or Suspended",
                created.getMessage());
        assertThrows(InvalidOptionException.class, () -> WaitTarget.parse("waitFor", "Done"));
    }
}
