package io.camelkubeflow.trainer.routes;

import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;

/** The app's span exporter in tests: every span it ends, kept in memory for {@link TraceTest}. */
public class InMemorySpans {
    @Produces
    @Singleton
    InMemorySpanExporter spans() {
        return InMemorySpanExporter.create();
    }
}
