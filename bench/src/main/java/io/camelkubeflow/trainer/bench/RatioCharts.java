package io.camelkubeflow.trainer.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.DoubleFunction;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The bench's ratios (unit {@code x}: the component's rate over the Kubeflow SDK's, the SDK's request pattern's or a
 * raw GET's) drawn as SVG bar charts, one per measure, from the very results the table prints: a bar per setting, its
 * length in proportion to its value, a dashed line at 1x (as fast as the other) and one at the target. Plain SVG text,
 * no library: a chart is a few rectangles, lines and labels.
 *
 * <p>{@code Benchmarks} writes them after each run into {@code charts/} beside BENCHMARKS.md; {@link #main} draws them
 * from a CSV the bench wrote (or one written from BENCHMARKS.md's table in the same columns), without running the
 * bench again.
 */
final class RatioCharts {
    static final String UNIT = "x";
    static final int WIDTH = 760;
    static final int LABEL_WIDTH = 300;
    static final int BAR_AREA = 380;
    static final int BAR_HEIGHT = 22;
    static final int GAP = 8;
    static final int TOP = 48;
    private static final Pattern TARGET = Pattern.compile("([0-9]+(?:\\.[0-9]+)?)\\s*x");
    private static final Pattern QUANTITY = Pattern.compile("([0-9]+(?:\\.[0-9]+)?)");
    /** A setting of the scale section: its number of TrainJobs. */
    private static final Pattern SCALE = Pattern.compile("(\\d+) TrainJobs in \\d+ namespaces");

    private RatioCharts() {}

    /** One bar: what it is (the setting) and its value, and whether it met its target (null: none set). */
    record Bar(String label, double value, Boolean met) {}

    /** Draws the charts of {@code csv}'s ratios into {@code directory}: {@code RatioCharts <csv> <directory>}. */
    public static void main(String[] args) throws Exception {
        List<Path> written = write(Path.of(args[1]), readCsv(Path.of(args[0])));
        written.forEach(file -> System.out.println("chart: " + file));
    }

    /**
     * Writes one SVG per measure whose unit is {@code x}, named after the measure, and one per cost of the scale
     * section ({@code scale-<measure>.svg}: a bar per number of TrainJobs, so its growth shows); returns the files
     * written.
     */
    static List<Path> write(Path directory, List<Result> results) throws Exception {
        List<Path> written = new ArrayList<>();
        Map<String, List<Result>> byMeasure = new LinkedHashMap<>();
        Map<String, List<Result>> growth = new LinkedHashMap<>();
        for (Result result : results) {
            if (Double.isNaN(result.value())) {
                continue;
            }
            if (UNIT.equals(result.unit())) {
                byMeasure
                        .computeIfAbsent(result.measure(), m -> new ArrayList<>())
                        .add(result);
            } else if (SCALE.matcher(result.setting()).find()) {
                growth.computeIfAbsent(result.measure(), m -> new ArrayList<>()).add(result);
            }
        }
        if (!byMeasure.isEmpty() || !growth.isEmpty()) {
            Files.createDirectories(directory);
        }
        for (Map.Entry<String, List<Result>> measure : byMeasure.entrySet()) {
            List<Bar> bars = measure.getValue().stream()
                    .map(r -> new Bar(label(r.setting()), r.value(), r.met()))
                    .toList();
            Path file = directory.resolve(fileName(measure.getKey()));
            Files.writeString(
                    file, svg(measure.getKey(), measure.getValue().get(0).target(), bars));
            written.add(file);
        }
        for (Map.Entry<String, List<Result>> measure : growth.entrySet()) {
            List<Result> rows = measure.getValue();
            String unit = rows.get(0).unit();
            List<Bar> bars = rows.stream()
                    .map(r -> {
                        Matcher jobs = SCALE.matcher(r.setting());
                        jobs.find();
                        return new Bar(
                                String.format(Locale.ROOT, "%,d TrainJobs", Long.parseLong(jobs.group(1))),
                                r.value(),
                                r.met());
                    })
                    .toList();
            String target = rows.stream()
                    .map(Result::target)
                    .filter(t -> !t.isBlank())
                    .findFirst()
                    .orElse("");
            Path file = directory.resolve("scale-" + fileName(measure.getKey()));
            Files.writeString(
                    file,
                    svg(
                            measure.getKey(),
                            "as the TrainJobs grow, in " + unit + (target.isBlank() ? "" : "; target " + target),
                            bars,
                            value -> quantity(value, unit),
                            List.of(),
                            targetQuantity(target)));
            written.add(file);
        }
        return written;
    }

    /** The target of a cost ({@code <= 1000 ms} → 1000), or NaN when it names none. */
    static double targetQuantity(String target) {
        Matcher quantity = QUANTITY.matcher(target == null ? "" : target);
        return quantity.find() ? Double.parseDouble(quantity.group(1)) : Double.NaN;
    }

    private static String quantity(double value, String unit) {
        return String.format(Locale.ROOT, value >= 100 ? "%,.0f %s" : "%.1f %s", value, unit);
    }

    /** The measure as a file name: {@code log read, component vs raw GET (same query)} → {@code log-read-component-vs-raw-get-same-query.svg}. */
    static String fileName(String measure) {
        return measure.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9]+", "-").replaceAll("^-|-$", "") + ".svg";
    }

    /**
     * A setting without what every bar of a chart shares (how the rounds ran, that it is the component's rate, whom
     * it is against), the real control plane called "cluster" to fit.
     */
    static String label(String setting) {
        return setting.replaceFirst("^real control plane, ", "cluster, ")
                .replaceFirst("(^|, )\\d+ x \\d+ creates \\(median\\), ", "$1")
                .replaceFirst(", component( vs Kubeflow SDK \\(Python\\))?$", "");
    }

    /** The target as a ratio ({@code >= 2x} → 2), or NaN when it names none. */
    static double targetRatio(String target) {
        Matcher ratio = TARGET.matcher(target == null ? "" : target);
        return ratio.find() ? Double.parseDouble(ratio.group(1)) : Double.NaN;
    }

    /** The ratio chart: bars scaled so that the largest of the values, 1x and the target fits the bar area. */
    static String svg(String title, String target, List<Bar> bars) {
        return svg(
                title,
                "the component's rate over the other's: longer is faster"
                        + (target == null || target.isBlank() ? "" : "; target " + target),
                bars,
                RatioCharts::ratio,
                List.of(1.0),
                targetRatio(target));
    }

    /**
     * A chart of bars, each labelled with {@code format} of its value, with dashed lines at {@code marks} ("parity":
     * 1x) and at {@code goal} ("target"), scaled so that the largest of them fits the bar area.
     */
    static String svg(
            String title,
            String subtitle,
            List<Bar> bars,
            DoubleFunction<String> format,
            List<Double> marks,
            double goal) {
        double scale = Math.max(
                marks.stream().mapToDouble(Double::doubleValue).max().orElse(0), Double.isNaN(goal) ? 0 : goal);
        for (Bar bar : bars) {
            scale = Math.max(scale, bar.value());
        }
        scale *= 1.1;
        int height = TOP + bars.size() * (BAR_HEIGHT + GAP) + 36;
        StringBuilder svg = new StringBuilder();
        svg.append(String.format(
                Locale.ROOT,
                "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\""
                        + " viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"13\">%n",
                WIDTH,
                height,
                WIDTH,
                height));
        svg.append(String.format(Locale.ROOT, "<title>%s</title>%n", escape(title)));
        svg.append(String.format(Locale.ROOT, "<rect width=\"%d\" height=\"%d\" fill=\"white\"/>%n", WIDTH, height));
        svg.append(String.format(
                Locale.ROOT,
                "<text x=\"10\" y=\"22\" font-size=\"15\" font-weight=\"bold\">%s</text>%n",
                escape(title)));
        svg.append(String.format(Locale.ROOT, "<text x=\"10\" y=\"38\" fill=\"#555\">%s</text>%n", escape(subtitle)));
        int y = TOP;
        for (Bar bar : bars) {
            double length = bar.value() / scale * BAR_AREA;
            String colour = bar.met() == null ? "#4c78a8" : bar.met() ? "#54a24b" : "#e45756";
            svg.append(String.format(
                    Locale.ROOT,
                    "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">%s</text>%n",
                    LABEL_WIDTH - 8,
                    y + BAR_HEIGHT - 6,
                    escape(bar.label())));
            svg.append(String.format(
                    Locale.ROOT,
                    "<rect class=\"bar\" x=\"%d\" y=\"%d\" width=\"%.2f\" height=\"%d\""
                            + " fill=\"%s\"><title>%s: %s</title></rect>%n",
                    LABEL_WIDTH,
                    y,
                    length,
                    BAR_HEIGHT,
                    colour,
                    escape(bar.label()),
                    format.apply(bar.value())));
            svg.append(String.format(
                    Locale.ROOT,
                    "<text x=\"%.2f\" y=\"%d\">%s</text>%n",
                    LABEL_WIDTH + length + 6,
                    y + BAR_HEIGHT - 6,
                    escape(format.apply(bar.value()))));
            y += BAR_HEIGHT + GAP;
        }
        for (double mark : marks) {
            svg.append(line("parity", mark, scale, y, "#333", format.apply(mark)));
        }
        if (!Double.isNaN(goal) && !marks.contains(goal)) {
            svg.append(line("target", goal, scale, y, "#e45756", "target " + format.apply(goal)));
        }
        svg.append("</svg>\n");
        return svg.toString();
    }

    private static String line(String kind, double at, double scale, int bottom, String colour, String label) {
        double x = LABEL_WIDTH + at / scale * BAR_AREA;
        return String.format(
                Locale.ROOT,
                "<line class=\"%s\" x1=\"%.2f\" y1=\"%d\" x2=\"%.2f\" y2=\"%d\" stroke=\"%s\""
                        + " stroke-dasharray=\"4 3\"/>%n<text x=\"%.2f\" y=\"%d\" text-anchor=\"middle\" fill=\"%s\">%s</text>%n",
                kind,
                x,
                TOP - 4,
                x,
                bottom,
                colour,
                x,
                bottom + 16,
                colour,
                escape(label));
    }

    private static String ratio(double value) {
        return String.format(Locale.ROOT, "%.2fx", value);
    }

    private static String escape(String text) {
        return text.replace("&", "&amp;")
                .replace("<", "&lt;")
                .replace(">", "&gt;")
                .replace("\"", "&quot;");
    }

    /** Reads results back from the CSV {@code Benchmarks} writes (header {@code measure,setting,value,unit,target,met}). */
    static List<Result> readCsv(Path file) throws Exception {
        List<String> lines = Files.readAllLines(file);
        List<Result> results = new ArrayList<>();
        for (String line : lines.subList(1, lines.size())) {
            if (line.isBlank()) {
                continue;
            }
            List<String> cells = cells(line);
            double value = cells.get(2).isEmpty() || cells.get(2).equals("NaN")
                    ? Double.NaN
                    : Double.parseDouble(cells.get(2));
            Boolean met = cells.get(5).isEmpty() ? null : Boolean.valueOf(cells.get(5));
            results.add(new Result(cells.get(0), cells.get(1), value, cells.get(3), cells.get(4), met));
        }
        return results;
    }

    /** The cells of one CSV line as the bench writes them: a cell holding a comma or a quote is quoted, quotes doubled. */
    static List<String> cells(String line) {
        List<String> cells = new ArrayList<>();
        StringBuilder cell = new StringBuilder();
        boolean quoted = false;
        for (int i = 0; i < line.length(); i++) {
            char c = line.charAt(i);
            if (quoted && c == '"' && i + 1 < line.length() && line.charAt(i + 1) == '"') {
                cell.append('"');
                i++;
            } else if (c == '"') {
                quoted = !quoted;
            } else if (c == ',' && !quoted) {
                cells.add(cell.toString());
                cell.setLength(0);
            } else {
                cell.append(c);
            }
        }
        cells.add(cell.toString());
        while (cells.size() < 6) {
            cells.add("");
        }
        return cells;
    }
}
