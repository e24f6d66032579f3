package io.camelkubeflow.trainer.routes;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import java.util.List;
import java.util.Map;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.junit.jupiter.api.Test;

/**
 * What application.properties does to Camel's log categories beyond the line it lowers: an operator who raises a Camel
 * category to DEBUG (here {@code org.apache.camel.support.task}, as {@code org.apache.camel} would) sees the DEBUG lines
 * of every category under it, BackgroundTask's included (its retries, and the leadership task's budget line the app
 * lowers to DEBUG); the app names BackgroundTask's category only so that an environment variable can raise it alone.
 */
@QuarkusTest
@TestProfile(CamelLogLevelsTest.CamelTasksAtDebug.class)
class CamelLogLevelsTest {
    private static final String BACKGROUND_TASK = "org.apache.camel.support.task.BackgroundTask";

    public static class CamelTasksAtDebug implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("quarkus.log.category.\"org.apache.camel.support.task\".level", "DEBUG");
        }

        @Override
        public List<TestResourceEntry> testResources() {
            return List.of(new TestResourceEntry(FreshFolders.class));
        }

        @Override
        public boolean disableGlobalTestResources() {
            return true;
        }
    }

    @Test
    void aCamelCategoryRaisedToDebugShowsBackgroundTasksDebugLines() {
        assertTrue(
                Logger.getLogger(BACKGROUND_TASK).isLoggable(Level.FINE),
                "BackgroundTask's category does not inherit DEBUG from org.apache.camel.support.task");
        assertFalse(
                Logger.getLogger("org.apache.camel.support").isLoggable(Level.FINE),
                "the profile raised only the task category");
    }
}
