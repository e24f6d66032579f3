import java.io.IOException;
import java.io.InputStream;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

import javax.xml.stream.XMLInputFactory;
import javax.xml.stream.XMLStreamConstants;
import javax.xml.stream.XMLStreamException;
import javax.xml.stream.XMLStreamReader;

/**
 * Writes {@code target/run-figures.md} at the project's root: the figures of the build that just ran, read from what
 * it wrote (JUnit XML reports of Surefire, Failsafe and Node's test runner, newer than the build's start; the
 * reliability table), so that no document carries a run's figures by hand. Run by the last module of the reactor:
 * {@code java RunFigures.java <project root> <build start, ISO-8601 UTC>}.
 */
public final class RunFigures {
    /** Where the modules' test runners write their JUnit XML reports (Node's too, named TEST-node-*). */
    private static final List<String> REPORT_FOLDERS = List.of("surefire-reports", "failsafe-reports");

    /** One module's tests of one runner. */
    private record Tally(int tests, int failed, int skipped, double seconds) {
        Tally plus(Tally other) {
            return new Tally(tests + other.tests, failed + other.failed, skipped + other.skipped,
                    seconds + other.seconds);
        }
    }

    public static void main(String[] args) throws Exception {
        Path root = Path.of(args[0]).toAbsolutePath().normalize();
        Instant started = Instant.parse(args[1]);
        Map<String, Tally> byModule = new TreeMap<>();
        for (Path report : reportsOfThisRun(root, started)) {
            String module = root.relativize(report.getParent().getParent().getParent()).toString();
            String key = (module.isEmpty() ? "." : module) + " (" + runner(report) + ")";
            byModule.merge(key, tally(report), Tally::plus);
        }
        Tally total = byModule.values().stream().reduce(new Tally(0, 0, 0, 0), Tally::plus);
        StringBuilder out = new StringBuilder();
        out.append("# Run figures\n\n")
                .append("Written by the build's last module (`run-figures`) from the reports this build wrote: ")
                .append("`./mvnw -B -ntp verify` (`.ci/run`).\n\n")
                .append("| | |\n|---|---|\n")
                .append("| build started (UTC) | ").append(started).append(" |\n")
                .append("| time until the last module | ").append(minutes(Duration.between(started, Instant.now())))
                .append(" |\n")
                .append("| commit | ").append(commit(root)).append(" |\n")
                .append("| cores | ").append(Runtime.getRuntime().availableProcessors()).append(" |\n")
                .append("| Java | ").append(System.getProperty("java.version")).append(" |\n\n")
                .append("| module (runner) | tests | failed | skipped | time in tests |\n|---|---:|---:|---:|---:|\n");
        byModule.forEach((module, tally) -> out.append(row(module, tally)));
        out.append(row("**all**", total)).append('\n');
        Path reliability = root.resolve("target/reliability-figures.tsv");
        if (Files.isReadable(reliability)) {
            out.append("## Reliability checks\n\n| check | figures | held |\n|---|---|---|\n");
            for (String line : Files.readAllLines(reliability)) {
                String[] cells = line.split("\t", -1);
                // the file outlives a run without clean: a row recorded before this build is an earlier run's
                if (cells.length >= 4 && isOfThisRun(Instant.parse(cells[3]), started)) {
                    out.append("| ").append(cells[0]).append(" | ").append(cells[1]).append(" | ").append(cells[2])
                            .append(" |\n");
                }
            }
        }
        Path written = root.resolve("target/run-figures.md");
        Files.createDirectories(written.getParent());
        Files.writeString(written, out.toString());
        System.out.printf("Run figures: %d tests, %d failed, %d skipped, in %s: %s%n", total.tests, total.failed,
                total.skipped, minutes(Duration.between(started, Instant.now())), written);
    }

    /**
     * The JUnit reports in each module's {@code target/surefire-reports} and {@code target/failsafe-reports} written
     * since {@code started}: every folder of the tree is a module's but those inside a {@code target} (a module's own
     * build, or release-check's build of a copy), {@code .git} or {@code node_modules}.
     */
    private static List<Path> reportsOfThisRun(Path root, Instant started) throws IOException {
        List<Path> reports = new ArrayList<>();
        Files.walkFileTree(root, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attributes) throws IOException {
                String name = dir.getFileName() == null ? "" : dir.getFileName().toString();
                if (name.equals("target")) {
                    for (String folder : REPORT_FOLDERS) {
                        try (Stream<Path> files = Files.list(dir.resolve(folder))) {
                            files.filter(file -> isReportSince(file, started)).forEach(reports::add);
                        } catch (NoSuchFileException e) {
                            // this module's build has no such runner
                        }
                    }
                    return FileVisitResult.SKIP_SUBTREE;
                }
                return name.equals(".git") || name.equals("node_modules") ? FileVisitResult.SKIP_SUBTREE
                        : FileVisitResult.CONTINUE;
            }
        });
        return reports;
    }

    private static boolean isReportSince(Path file, Instant started) {
        String name = file.getFileName().toString();
        try {
            return name.startsWith("TEST-") && name.endsWith(".xml")
                    && isOfThisRun(Files.getLastModifiedTime(file).toInstant(), started);
        } catch (IOException e) {
            return false;
        }
    }

    /** Whether a moment is of the build that started at {@code started}, which is given to the second. */
    private static boolean isOfThisRun(Instant moment, Instant started) {
        return !moment.isBefore(started.minusSeconds(1));
    }

    private static String runner(Path report) {
        if (report.getFileName().toString().startsWith("TEST-node-")) {
            return "Node";
        }
        return "failsafe-reports".equals(report.getParent().getFileName().toString()) ? "Failsafe" : "Surefire";
    }

    /** Counts the report's test cases and their outcomes (every runner writes {@code testcase} alike). */
    private static Tally tally(Path report) throws IOException, XMLStreamException {
        int tests = 0;
        int failed = 0;
        int skipped = 0;
        double seconds = 0;
        XMLInputFactory factory = XMLInputFactory.newFactory();
        factory.setProperty(XMLInputFactory.SUPPORT_DTD, false);
        try (InputStream in = Files.newInputStream(report)) {
            XMLStreamReader xml = factory.createXMLStreamReader(in);
            while (xml.hasNext()) {
                if (xml.next() != XMLStreamConstants.START_ELEMENT) {
                    continue;
                }
                switch (xml.getLocalName()) {
                    case "testcase" -> {
                        tests++;
                        String time = xml.getAttributeValue(null, "time");
                        seconds += time == null || time.isBlank() ? 0 : Double.parseDouble(time.replace(",", ""));
                    }
                    case "failure", "error" -> failed++;
                    case "skipped" -> skipped++;
                    default -> { }
                }
            }
        }
        return new Tally(tests, failed, skipped, seconds);
    }

    private static String row(String module, Tally tally) {
        return String.format(Locale.ROOT, "| %s | %,d | %d | %d | %s |%n", module, tally.tests, tally.failed,
                tally.skipped, minutes(Duration.ofMillis(Math.round(tally.seconds * 1000))));
    }

    private static String minutes(Duration duration) {
        return String.format(Locale.ROOT, "%d min %02d s", duration.toMinutes(), duration.toSecondsPart());
    }

    /** The commit built, as git names it; "unknown" outside a clone or without git. */
    private static String commit(Path root) {
        try {
            Process git = new ProcessBuilder("git", "-C", root.toString(), "rev-parse", "--short=12", "HEAD")
                    .redirectErrorStream(true).start();
            String out = new String(git.getInputStream().readAllBytes()).trim();
            return git.waitFor() == 0 ? out : "unknown";
        } catch (IOException e) {
            return "unknown";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "unknown";
        }
    }
}
