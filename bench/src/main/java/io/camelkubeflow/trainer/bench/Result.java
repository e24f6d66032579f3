package io.camelkubeflow.trainer.bench;

/**
 * One measured figure: what was measured, under which setting, its value and unit, and the target it is held to
 * (empty when the issue sets none).
 */
record Result(String measure, String setting, double value, String unit, String target, Boolean met) {
    static Result of(String measure, String setting, double value, String unit) {
        return new Result(measure, setting, value, unit, "", null);
    }

    static Result against(String measure, String setting, double value, String unit, String target, boolean met) {
        return new Result(measure, setting, value, unit, target, met);
    }

    String formattedValue() {
        if (value == Math.rint(value) && Math.abs(value) < 1e12) {
            return String.format("%.0f", value);
        }
        // below 0.1 (a fraction of a request per wait), three significant digits rather than 0.00
        return Math.abs(value) < 0.1 ? String.format("%.3g", value) : String.format("%.2f", value);
    }
}
