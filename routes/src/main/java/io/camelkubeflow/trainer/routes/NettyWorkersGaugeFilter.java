package io.camelkubeflow.trainer.routes;

import io.micrometer.core.instrument.config.MeterFilter;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;

/**
 * Leaves out Micrometer's {@code netty.eventexecutor.workers} gauge. Micrometer 1.16 gives it no tag naming its event
 * loop group, and Quarkus 3.31 binds two groups, so the second registration printed a WARN on every start ("This Gauge
 * has been already registered", quarkusio/quarkus#52014) and the one gauge kept counted one group only. The other
 * Netty meters (pending tasks per event loop, allocator memory) stay.
 */
public class NettyWorkersGaugeFilter {
    static final String GAUGE = "netty.eventexecutor.workers";

    @Produces
    @Singleton
    MeterFilter withoutNettyWorkersGauge() {
        return MeterFilter.deny(id -> GAUGE.equals(id.getName()));
    }
}
