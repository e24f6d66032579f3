package io.camelkubeflow.trainer.routes;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import jakarta.inject.Inject;
import java.util.ArrayList;
import java.util.List;
import org.apache.camel.CamelContext;
import org.apache.camel.PropertiesLookupListener;
import org.apache.camel.component.properties.PropertiesComponent;
import org.eclipse.microprofile.config.ConfigProvider;
import org.junit.jupiter.api.Test;

/**
 * What the app leaves out of its start (see BENCHMARKS.md, "Routes app start"), as it runs by default: without the
 * Kafka broker the other tests of this module share.
 */
@QuarkusTest
@TestProfile(IdleStartTest.Defaults.class)
class IdleStartTest {
    public static class Defaults implements QuarkusTestProfile {
        @Override
        public List<TestResourceEntry> testResources() {
            return List.of(new TestResourceEntry(FreshFolders.class));
        }

        @Override
        public boolean disableGlobalTestResources() {
            return true;
        }
    }

    @Inject
    CamelContext camel;

    @Test
    void placeholdersAreAnsweredByTheAppConfigSourceNotByCamelsMicroProfileSource() {
        List<String> sources = new ArrayList<>();
        PropertiesLookupListener listener =
                (name, value, defaultValue, source) -> sources.add(name + " from " + source);
        camel.getPropertiesComponent().addPropertiesLookupListener(listener);
        try {
            assertEquals(
                    ConfigProvider.getConfig().getValue("trainer.namespace", String.class),
                    camel.resolvePropertyPlaceholders("{{trainer.namespace}}"));
        } finally {
            ((PropertiesComponent) camel.getPropertiesComponent())
                    .getPropertiesLookupListeners()
                    .remove(listener);
        }
        // Camel reloads every property of a source it can load for each placeholder that source answers
        assertEquals(List.of("trainer.namespace from app-config"), sources);
    }

    @Test
    void kafkaRoutesAreNotBuiltWhileKafkaIsOff() {
        assertFalse(ConfigProvider.getConfig().getValue("trainer.kafka.enabled", Boolean.class));
        assertNull(camel.getRoute("kafka-train"));
        assertNull(camel.getRoute("kafka-results"));
    }
}
