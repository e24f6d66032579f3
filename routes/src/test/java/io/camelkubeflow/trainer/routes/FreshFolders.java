package io.camelkubeflow.trainer.routes;

import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.util.Map;

/**
 * Gives each test run of the app an empty inbox and outbox, so nothing from an earlier run is picked up, sends
 * completion events to files in a fresh folder, and writes the local HTTP token to a fresh file.
 */
public class FreshFolders implements QuarkusTestResourceLifecycleManager {
    @Override
    public Map<String, String> start() {
        try {
            return Map.of(
                    "trainer.http.token-file",
                    Files.createTempDirectory("http").resolve("token").toString(),
                    "trainer.inbox",
                    Files.createTempDirectory("inbox").toString(),
                    "trainer.outbox",
                    Files.createTempDirectory("outbox").toString(),
                    "trainer.completion.uri",
                    "file:" + Files.createTempDirectory("completions")
                            + "?fileName=$simple{header.CamelKubeflowTrainerJobName}.json");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void stop() {}
}
