package io.camelkubeflow.trainer.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The figures of the reliability suite: each check (duplicates, watch faults, API errors, bad input, shell safety,
 * secrets, RBAC, shutdown) records one row, replacing its row of an earlier run, in one file shared by the build's
 * modules (system property {@code reliability.figures}, set by the root pom). {@link ReliabilityReport} prints the
 * table when a module's tests end, so the last module's print shows the whole run.
 */
public final class ReliabilityFigures {
    private static final String FILE_PROPERTY = "reliability.figures";

    private ReliabilityFigures() {}

    /** One check's row: what was attacked, the figures, whether the check held, and when it ran. */
    public record Row(String check, String figures, boolean held, Instant recorded) {
        String line() {
            return String.join("\t", check, figures, held ? "held" : "FAILED", recorded.toString());
        }

        static Row parse(String line) {
            String[] cells = line.split("\t", -1);
            return new Row(cells[0], cells[1], "held".equals(cells[2]), Instant.parse(cells[3]));
        }
    }

    /** Records the row of {@code check}; call it before the check's assertions, so a failing check is reported too. */
    public static void record(String check, String figures, boolean held) {
        Path file = file();
        try {
            Files.createDirectories(file.getParent());
            try (FileChannel channel = FileChannel.open(
                            file, StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE);
                    FileLock lock = channel.lock()) {
                Map<String, Row> rows = new LinkedHashMap<>();
                for (Row row : read(file)) {
                    rows.put(row.check(), row);
                }
                rows.put(
                        check,
                        new Row(
                                clean(check),
                                clean(figures),
                                held,
                                Instant.now().truncatedTo(ChronoUnit.SECONDS)));
                List<String> lines = rows.values().stream().map(Row::line).toList();
                channel.truncate(0);
                channel.write(ByteBuffer.wrap((String.join("\n", lines) + "\n").getBytes(StandardCharsets.UTF_8)));
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot record the reliability figures in " + file, e);
        }
    }

    static List<Row> rows() {
        Path file = file();
        try {
            return Files.exists(file) ? read(file) : List.of();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static List<Row> read(Path file) throws IOException {
        List<Row> rows = new ArrayList<>();
        for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
            if (!line.isBlank()) {
                rows.add(Row.parse(line));
            }
        }
        return rows;
    }

    private static Path file() {
        // outside Maven (an IDE run), the module's own target folder
        return Path.of(System.getProperty(FILE_PROPERTY, "target/reliability-figures.tsv"));
    }

    private static String clean(String text) {
        return text.replace('\t', ' ').replace('\n', ' ');
    }
}
