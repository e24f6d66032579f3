package io.camelkubeflow.trainer.routes;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import org.apache.camel.Ordered;
import org.apache.camel.quarkus.main.events.BeforeConfigure;
import org.apache.camel.spi.PropertiesSource;
import org.eclipse.microprofile.config.ConfigProvider;

/**
 * Camel's property placeholders ({@code {{trainer.namespace}}} in a route) read from the app's configuration, one
 * property at a time. Camel 4.17 resolves each placeholder it finds in the MicroProfile Config source by loading
 * every property of every config source (to note where the value came from): a few hundred reads per placeholder,
 * about a fifth of the main thread's start (JFR, JDK 25 with an AOT cache). This source answers the same value from
 * the same config and comes first, so that source is still there for Camel's own {@code camel.*} options but is no
 * longer asked for placeholders.
 */
@ApplicationScoped
public class ConfigPlaceholders implements PropertiesSource, Ordered {
    void register(@Observes BeforeConfigure configure) {
        configure.getCamelContext().getPropertiesComponent().addPropertiesSource(this);
    }

    @Override
    public String getName() {
        return "app-config";
    }

    @Override
    public String getProperty(String name) {
        return ConfigProvider.getConfig().getOptionalValue(name, String.class).orElse(null);
    }

    /** Ahead of Camel's MicroProfile Config source, which is unordered (0). */
    @Override
    public int getOrder() {
        return -1;
    }
}
