package io.camelkubeflow.trainer.sandbox.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.IOException;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A ConfigMap's keys become files of its volume only inside the volume, as the kubelet's atomic writer allows them:
 * whoever may write ConfigMaps cannot make the node agent write anywhere else on the machine.
 */
class PodProcessTest {
    @TempDir
    Path volume;

    @Test
    void aKeyLandsInsideItsVolumeOrNowhere() throws IOException {
        assertEquals(volume.resolve("train.py"), PodProcess.inVolume(volume, "train.py"));
        assertEquals(volume.resolve("conf/a.yaml"), PodProcess.inVolume(volume, "conf/a.yaml"));
        for (String key : new String[] {"../escape", "/etc/passwd", "a/../../escape", "..", ".", "", "..data"}) {
            assertThrows(IOException.class, () -> PodProcess.inVolume(volume, key), key);
        }
    }
}
