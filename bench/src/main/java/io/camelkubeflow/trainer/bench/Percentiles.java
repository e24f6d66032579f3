package io.camelkubeflow.trainer.bench;

import java.util.Arrays;
import java.util.Collection;

/** p50, p99 and max of a set of durations in milliseconds. */
record Percentiles(double p50, double p99, double max) {
    static Percentiles of(Collection<Double> millis) {
        double[] sorted =
                millis.stream().mapToDouble(Double::doubleValue).sorted().toArray();
        if (sorted.length == 0) {
            return new Percentiles(Double.NaN, Double.NaN, Double.NaN);
        }
        return new Percentiles(at(sorted, 0.50), at(sorted, 0.99), sorted[sorted.length - 1]);
    }

    /** Nearest-rank percentile. */
    private static double at(double[] sorted, double fraction) {
        int rank = (int) Math.ceil(fraction * sorted.length);
        return sorted[Math.max(0, Math.min(sorted.length - 1, rank - 1))];
    }

    @Override
    public String toString() {
        return Arrays.toString(new double[] {p50, p99, max});
    }
}
