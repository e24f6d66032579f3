package io.camelkubeflow.trainer.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The ratio charts draw what the bench measured: one chart per ratio measure, one bar per setting, lengths in proportion. */
class RatioChartsTest {
    private static final Pattern BAR =
            Pattern.compile("<rect class=\"bar\" x=\"(\\d+)\" y=\"\\d+\" width=\"([0-9.]+)\"");
    private static final Pattern LINE = Pattern.compile("<line class=\"(parity|target)\" x1=\"([0-9.]+)\"");

    @TempDir
    Path charts;

    static List<Double> barLengths(String svg) {
        List<Double> lengths = new ArrayList<>();
        Matcher bar = BAR.matcher(svg);
        while (bar.find()) {
            lengths.add(Double.parseDouble(bar.group(2)));
        }
        return lengths;
    }

    @Test
    void eachBarIsAsLongAsItsValueRelativeToTheOthersAndTheLinesMarkParityAndTheTarget() {
        String svg = RatioCharts.svg(
                "create throughput vs SDK pattern",
                ">= 2x",
                List.of(
                        new RatioCharts.Bar("1 producers, command", 2.18, true),
                        new RatioCharts.Bar("1 producers, inline script", 1.09, false),
                        new RatioCharts.Bar("8 producers, command", 4.36, true)));
        List<Double> lengths = barLengths(svg);
        assertEquals(3, lengths.size(), svg);
        assertEquals(2.0, lengths.get(0) / lengths.get(1), 0.01);
        assertEquals(4.0, lengths.get(2) / lengths.get(1), 0.01);
        assertTrue(lengths.get(2) <= RatioCharts.BAR_AREA, "the longest bar fits: " + lengths.get(2));
        // 1x and the target at their places on the same scale: the bar of 1.09x ends just past the parity line
        Matcher lines = LINE.matcher(svg);
        assertTrue(lines.find());
        assertEquals("parity", lines.group(1));
        double parity = Double.parseDouble(lines.group(2)) - RatioCharts.LABEL_WIDTH;
        assertEquals(1.09, lengths.get(1) / parity, 0.01);
        assertTrue(lines.find());
        assertEquals("target", lines.group(1));
        assertEquals(2.0, (Double.parseDouble(lines.group(2)) - RatioCharts.LABEL_WIDTH) / parity, 0.01);
        assertTrue(svg.contains(">2.18x<") && svg.contains(">1.09x<") && svg.contains(">4.36x<"), svg);
    }

    @Test
    void theBenchsCsvBecomesOneChartPerRatioMeasureWithABarPerSetting() throws Exception {
        // written by the bench's own writer, as a run writes bench/target/benchmarks.csv
        Path csv = charts.resolve("benchmarks.csv");
        Benchmarks.writeCsv(
                csv,
                List.of(
                        Result.of(
                                "create throughput",
                                "5 x 400 creates (median), 1 producers, command, component",
                                1906,
                                "TrainJobs/s"),
                        Result.against(
                                "create throughput vs SDK pattern",
                                "5 x 400 creates (median), 1 producers, command, component",
                                2.18,
                                "x",
                                ">= 2x",
                                true),
                        Result.against(
                                "create throughput vs SDK pattern",
                                "5 x 400 creates (median), 8 producers, command, component",
                                2.24,
                                "x",
                                ">= 2x",
                                true),
                        Result.against(
                                "log read, component vs raw GET (same query)",
                                "no follow, node 0",
                                1.08,
                                "x",
                                ">= 0.8x",
                                true)));
        List<Path> written = RatioCharts.write(charts.resolve("out"), RatioCharts.readCsv(csv));
        assertEquals(
                List.of(
                        charts.resolve("out/create-throughput-vs-sdk-pattern.svg"),
                        charts.resolve("out/log-read-component-vs-raw-get-same-query.svg")),
                written);
        String creates = Files.readString(written.get(0));
        List<Double> lengths = barLengths(creates);
        assertEquals(2, lengths.size());
        assertEquals(2.24 / 2.18, lengths.get(1) / lengths.get(0), 0.001);
        assertTrue(creates.contains(">1 producers, command<") && creates.contains(">8 producers, command<"), creates);
        assertEquals(1, barLengths(Files.readString(written.get(1))).size());
    }

    @Test
    void eachCostOfTheScaleSectionBecomesAChartOfItsGrowthWithABarPerNumberOfTrainJobs() throws Exception {
        List<Path> written = RatioCharts.write(
                charts,
                List.of(
                        Result.of(
                                "events consumer lag p99",
                                "real control plane, 1000 TrainJobs in 100 namespaces",
                                40,
                                "ms"),
                        Result.of(
                                "events consumer lag p99",
                                "real control plane, 5000 TrainJobs in 100 namespaces",
                                80,
                                "ms"),
                        Result.against(
                                "events consumer lag p99",
                                "real control plane, 10000 TrainJobs in 100 namespaces",
                                160,
                                "ms",
                                "<= 1000 ms",
                                true),
                        Result.of("wait notice lag p99", "real control plane, 100 waits, component", 10, "ms")));
        assertEquals(
                List.of(charts.resolve("scale-events-consumer-lag-p99.svg")),
                written,
                "a chart for the scale section's measure, none for another section's");
        String svg = Files.readString(written.get(0));
        List<Double> lengths = barLengths(svg);
        assertEquals(3, lengths.size(), svg);
        assertEquals(2.0, lengths.get(1) / lengths.get(0), 0.001);
        assertEquals(4.0, lengths.get(2) / lengths.get(0), 0.001);
        assertTrue(
                svg.contains(">1,000 TrainJobs<") && svg.contains(">10,000 TrainJobs<") && svg.contains(">160 ms<"),
                svg);
        Matcher target = LINE.matcher(svg);
        assertTrue(target.find() && target.group(1).equals("target"), "the goal's line: " + svg);
        assertEquals(
                1000.0 / 160, (Double.parseDouble(target.group(2)) - RatioCharts.LABEL_WIDTH) / lengths.get(2), 0.01);
    }
}
