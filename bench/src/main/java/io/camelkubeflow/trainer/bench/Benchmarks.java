package io.camelkubeflow.trainer.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * Runs every benchmark once against the sandbox API server on loopback, prints one table, writes it as CSV to
 * {@code bench/target/benchmarks.csv} and draws its ratios as SVG charts into {@code charts/} ({@link RatioCharts}).
 * Run after {@code mvn -B -ntp -q install -DskipTests} with
 * {@code mvn -B -ntp -q -pl bench exec:exec}; the argument is the project root.
 */
public final class Benchmarks {
    private static final int CREATE_ROUNDS = 5;
    private static final int CREATES_PER_ROUND = 400;
    /** The Python SDK creates about a tenth as fast: fewer rounds keep its part of the run short. */
    private static final int PYTHON_CREATE_ROUNDS = 3;
    private static final int LOG_MEGABYTES = 32;
    /** The parts of the bench to run: all, or those named, e.g. {@code -Dbench.sections=waits,creates,logs,start,workspaces}. */
    private static final java.util.Set<String> SECTIONS = java.util.Set.of("waits", "creates", "logs", "start",
            "workspaces");

    private Benchmarks() {
    }

    public static void main(String[] args) throws Exception {
        Path root = Path.of(args.length > 0 ? args[0] : "..").toAbsolutePath().normalize();
        List<Result> results = new ArrayList<>();
        java.util.Set<String> sections = System.getProperty("bench.sections", "").isBlank() ? SECTIONS
                : java.util.Set.of(System.getProperty("bench.sections").split(","));
        if (sections.contains("waits")) {
            waits(results);
        }
        if (sections.contains("creates")) {
            creates(results, root);
        }
        if (sections.contains("logs")) {
            logs(results, root);
        }
        if (sections.contains("start")) {
            start(results, root);
        }
        if (sections.contains("workspaces")) {
            workspaces(results);
        }
        if (sections.contains("cluster-scale")) {
            clusterScale(results, root);
        }
        String machine = Runtime.getRuntime().availableProcessors() + " cores, " + System.getProperty("java.vm.name")
                + " " + System.getProperty("java.version") + ", max heap "
                + Runtime.getRuntime().maxMemory() / (1024 * 1024) + " MiB";
        print(results, machine);
        writeCsv(root.resolve("bench/target/benchmarks.csv"), results);
        // the ratios as charts beside BENCHMARKS.md, from the same results
        RatioCharts.write(root.resolve("charts"), results).forEach(file -> System.out.println("Chart: " + file));
    }

    private static void waits(List<Result> results) throws Exception {
        try (WaitBench waits = new WaitBench()) {
            waits.watch(10, 500, false); // warm-up: class loading, JIT, connection pools
            waits.polling(10, 500);
            for (int n : new int[] {1, 100, 1000}) {
                WaitBench.Run watch = waits.watch(n, 2000, n == 1000);
                WaitBench.Run poll = waits.polling(n, 2000);
                for (WaitBench.Run run : List.of(watch, poll)) {
                    String setting = run.strategy() + ", " + n + " waits";
                    boolean target = run == watch && n == 1000;
                    results.add(Result.of("detection latency p50", setting, run.latency().p50(), "ms"));
                    results.add(target ? Result.against("detection latency p99", setting, run.latency().p99(), "ms",
                            "< 50 ms at 1,000 waits", run.latency().p99() < 50)
                            : Result.of("detection latency p99", setting, run.latency().p99(), "ms"));
                    results.add(Result.of("detection latency max", setting, run.latency().max(), "ms"));
                    results.add(Result.of("API requests per wait", setting + ", 2 s job", run.requestsPerWait(),
                            "requests"));
                    results.add(Result.of("connections opened to the API server (peak)", setting,
                            run.peakConnections(), "connections"));
                    if (run == watch) {
                        results.add(Result.against("watch connections", setting, run.watchRequests(), "watches",
                                "1 per namespace", run.watchRequests() == 1));
                    }
                    if (!Double.isNaN(run.heapBytesPerWait())) {
                        results.add(Result.against("heap per in-flight wait", setting, run.heapBytesPerWait() / 1024,
                                "KiB", "< 10 KB", run.heapBytesPerWait() < 10_000));
                    }
                }
            }
            // scale: 10,000 waits over 10 namespaces (one watch each), the component alone (polling them would be
            // 20,000 requests a second)
            WaitBench.Run many = waits.watch(10_000, 10, 2000, true);
            String manySetting = "watch (component), 10,000 waits over 10 namespaces";
            results.add(Result.of("detection latency p50", manySetting, many.latency().p50(), "ms"));
            results.add(Result.against("detection latency p99", manySetting, many.latency().p99(), "ms", "<= 50 ms",
                    many.latency().p99() <= 50));
            results.add(Result.of("detection latency max", manySetting, many.latency().max(), "ms"));
            results.add(Result.against("watch connections", manySetting, many.watchRequests(), "watches",
                    "1 per namespace", many.watchRequests() == 10));
            results.add(Result.against("heap per in-flight wait", manySetting, many.heapBytesPerWait() / 1024, "KiB",
                    "<= 4 KiB", many.heapBytesPerWait() <= 4096));
            results.add(Result.of("API requests per wait", manySetting + ", 2 s job", many.requestsPerWait(),
                    "requests"));
            for (long hold : new long[] {10_000}) {
                WaitBench.Run watch = waits.watch(100, hold, false);
                WaitBench.Run poll = waits.polling(100, hold);
                for (WaitBench.Run run : List.of(watch, poll)) {
                    results.add(Result.of("API requests per wait", run.strategy() + ", 100 waits, " + hold / 1000
                            + " s job", run.requestsPerWait(), "requests"));
                }
            }
        }
    }

    /**
     * Only when named ({@code -Dbench.sections=cluster-scale}), on the control plane of testcluster/up.sh started with
     * fake nodes ({@code TESTCLUSTER_FAKE_RUN_TIME=5s}); {@code -Dbench.scale.jobs}, {@code -Dbench.scale.namespaces}.
     */
    private static void clusterScale(List<Result> results, Path root) throws Exception {
        int jobs = Integer.getInteger("bench.scale.jobs", 10_000);
        int namespaces = Integer.getInteger("bench.scale.namespaces", 100);
        try (ClusterScaleBench bench = new ClusterScaleBench(root.resolve("testcluster/.state/kubeconfig"))) {
            ClusterScaleBench.Run run = bench.run(namespaces, jobs, 8, Duration.ofMinutes(90));
            String setting = "real control plane, " + jobs + " TrainJobs in " + namespaces + " namespaces";
            results.add(Result.of("TrainJobs Complete", setting, run.completed(), "jobs"));
            results.add(Result.of("time until all Complete", setting, run.allComplete().toSeconds(), "s"));
            results.add(Result.of("events consumer lag p50", setting, run.eventLag().p50(), "ms"));
            results.add(Result.of("events consumer lag p99", setting, run.eventLag().p99(), "ms"));
            results.add(Result.of("events consumer lag max", setting, run.eventLag().max(), "ms"));
            results.add(Result.of("wait notice lag p50", setting, run.waitLag().p50(), "ms"));
            results.add(Result.of("wait notice lag p99", setting, run.waitLag().p99(), "ms"));
            results.add(Result.of("wait notice lag max", setting, run.waitLag().max(), "ms"));
            results.add(Result.of("heap with every wait pending", setting, run.heapMiB(), "MiB"));
        }
    }

    private static void workspaces(List<Result> results) throws Exception {
        try (WorkspaceBench bench = new WorkspaceBench()) {
            bench.stage(WorkspaceBench.project(1, 1), 10); // warm-up
            WorkspaceBench.Run small = bench.stage(WorkspaceBench.project(1, 2), 20);
            addWorkspaceRows(results, "staged", "1 MB project (1 MB of source in 129 files, "
                    + small.compressedBytes() / 1024 + " KiB compressed), ", small, 20);
            WorkspaceBench.Run large = bench.stage(WorkspaceBench.project(50, 3), 5);
            addWorkspaceRows(results, "stored", "50 MB project (6401 files, " + large.compressedBytes() / (1024 * 1024)
                    + " MiB compressed: kept in an object store, here in memory), ", large, 5);
        }
    }

    private static void addWorkspaceRows(List<Result> results, String how, String setting, WorkspaceBench.Run run,
            int reuses) {
        String first = "workspace job, first (" + how + ")";
        results.add(Result.of(first, setting + "time", run.firstMillis(), "ms"));
        results.add(Result.of(first, setting + "API requests", run.firstRequests(), "requests"));
        results.add(Result.of("workspace job, reusing it", setting + "time (median of " + reuses + ")",
                run.reuseMillis(), "ms"));
        results.add(Result.of("workspace job, reusing it", setting + "API requests", run.reuseRequests(),
                "requests"));
    }

    private static void creates(List<Result> results, Path root) throws Exception {
        try (CreateBench creates = new CreateBench()) {
            creates.component(CreateBench.Payload.PYTHON_FILE, 200, 8); // warm-up
            creates.sdkPattern(CreateBench.Payload.PYTHON_FILE, 200, 8);
            for (int producers : new int[] {1, 8, 32}) {
                // rounds interleave each payload's baseline and component runs, so a pause of the machine (GC,
                // JIT, another process) costs each alike; each rate is the median of its rounds
                Map<CreateBench.Payload, List<CreateBench.Run>> sdkRounds = new EnumMap<>(CreateBench.Payload.class);
                Map<CreateBench.Payload, List<CreateBench.Run>> ownRounds = new EnumMap<>(CreateBench.Payload.class);
                for (int round = 0; round < CREATE_ROUNDS; round++) {
                    for (CreateBench.Payload payload : CreateBench.Payload.values()) {
                        sdkRounds.computeIfAbsent(payload, k -> new ArrayList<>())
                                .add(creates.sdkPattern(payload, CREATES_PER_ROUND, producers));
                        ownRounds.computeIfAbsent(payload, k -> new ArrayList<>())
                                .add(creates.component(payload, CREATES_PER_ROUND, producers));
                    }
                }
                String setting = CREATE_ROUNDS + " x " + CREATES_PER_ROUND + " creates (median), " + producers
                        + " producers, ";
                for (CreateBench.Payload payload : CreateBench.Payload.values()) {
                    CreateBench.Run sdk = CreateBench.Run.median(sdkRounds.get(payload));
                    CreateBench.Run run = CreateBench.Run.median(ownRounds.get(payload));
                    String baseline = setting + payload.label + ", SDK request pattern (baseline)";
                    results.add(Result.of("create throughput", baseline, sdk.createsPerSecond(), "TrainJobs/s"));
                    results.add(Result.of("API requests per create", baseline, sdk.requestsPerCreate(), "requests"));
                    double ratio = run.createsPerSecond() / sdk.createsPerSecond();
                    String kind = setting + payload.label + ", component";
                    results.add(Result.of("create throughput", kind, run.createsPerSecond(), "TrainJobs/s"));
                    results.add(Result.against("create throughput vs SDK pattern", kind, ratio, "x", ">= 2x",
                            ratio >= 2));
                    results.add(Result.against("API requests per create", kind, run.requestsPerCreate(), "requests",
                            "<= 2", run.requestsPerCreate() <= 2));
                }
            }
            if (PythonSdk.available()) {
                pythonSdkCreates(results, creates, root);
            }
        }
    }

    /**
     * Inline-script creates beside the Kubeflow Python SDK's own {@code train} with a {@code CustomTrainer} (its only
     * create of a script; it has none of a command or a file in the image), rounds interleaved as above.
     */
    private static void pythonSdkCreates(List<Result> results, CreateBench creates, Path root) throws Exception {
        for (int producers : new int[] {1, 8}) {
            List<CreateBench.Run> sdkRounds = new ArrayList<>();
            List<CreateBench.Run> ownRounds = new ArrayList<>();
            for (int round = 0; round < PYTHON_CREATE_ROUNDS; round++) {
                sdkRounds.add(creates.pythonSdk(root, CREATES_PER_ROUND, producers));
                ownRounds.add(creates.component(CreateBench.Payload.SCRIPT, CREATES_PER_ROUND, producers));
            }
            CreateBench.Run sdk = CreateBench.Run.median(sdkRounds);
            CreateBench.Run run = CreateBench.Run.median(ownRounds);
            String setting = producers + (producers == 1 ? " producer, " : " producers, ")
                    + CreateBench.Payload.SCRIPT.label + ", ";
            results.add(Result.of("create throughput", setting + PythonSdk.NAME + " (train, CustomTrainer)",
                    sdk.createsPerSecond(), "TrainJobs/s"));
            results.add(Result.of("API requests per create", setting + PythonSdk.NAME, sdk.requestsPerCreate(),
                    "requests"));
            results.add(Result.of("create throughput", setting + "component, beside it", run.createsPerSecond(),
                    "TrainJobs/s"));
            double ratio = run.createsPerSecond() / sdk.createsPerSecond();
            results.add(Result.against("create throughput vs " + PythonSdk.NAME, setting + "component", ratio, "x",
                    ">= 2x", ratio >= 2));
        }
    }

    private static void logs(List<Result> results, Path root) throws Exception {
        try (LogBench logs = new LogBench(root)) {
            logs.prepare(LOG_MEGABYTES);
            List<LogBench.Reading> readings = logs.readAll();
            for (LogBench.Reading r : readings) {
                String setting = (r.follow() ? "follow" : "no follow") + ", " + (r.allRanks() ? "all " + LogBench.NODES
                        + " ranks" : "node 0") + String.format(", %.0f MB, %d lines, ", r.megabytes(), r.lines())
                        + r.reader();
                results.add(Result.of("log read throughput", setting, r.megabytesPerSecond(), "MB/s"));
                results.add(Result.of("log read throughput", setting, r.linesPerSecond(), "lines/s"));
            }
            for (LogBench.Reading own : readings.stream().filter(r -> r.reader().equals("component")).toList()) {
                String setting = (own.follow() ? "follow" : "no follow") + ", " + (own.allRanks() ? "all "
                        + LogBench.NODES + " ranks" : "node 0");
                double sdk = own.megabytesPerSecond() / find(readings, own, "SDK pattern").megabytesPerSecond();
                if (readings.stream().anyMatch(r -> r.reader().equals(PythonSdk.NAME))) {
                    double python = own.megabytesPerSecond() / find(readings, own, PythonSdk.NAME)
                            .megabytesPerSecond();
                    results.add(Result.against("log read, component vs Kubeflow SDK (Python)", setting, python, "x",
                            ">= 1.2x", python >= 1.2));
                }
                // the job has finished: the component reads its final logs without timestamps, following or not (it
                // asks for them to follow a running container, whose broken stream it resumes from the last one)
                double raw = own.megabytesPerSecond() / find(readings, own, "raw GET, no timestamps")
                        .megabytesPerSecond();
                results.add(Result.against("log read, component vs SDK pattern", setting, sdk, "x", ">= 1.2x",
                        sdk >= 1.2));
                results.add(Result.against("log read, component vs raw GET (same query)", setting, raw, "x",
                        ">= 0.8x", raw >= 0.8));
            }
        }
    }

    private static void start(List<Result> results, Path root) throws Exception {
        List<StartupBench.Start> starts = StartupBench.measure(root);
        if (starts.isEmpty()) {
            results.add(Result.of("routes app start", "skipped: build routes/ first", Double.NaN, ""));
        }
        for (StartupBench.Start start : starts) {
            boolean app = !start.setting().startsWith("the sandbox alone");
            results.add(app ? Result.against("routes app start (wall, to 'started')", start.setting(),
                    start.wallSeconds(), "s", "<= 1.5 s", start.wallSeconds() <= 1.5)
                    : Result.of("sandbox start (wall, to listening)", start.setting(), start.wallSeconds(), "s"));
            if (!Double.isNaN(start.quarkusSeconds())) {
                results.add(Result.of("routes app start (Quarkus 'started in')", start.setting(),
                        start.quarkusSeconds(), "s"));
            }
            results.add(app ? Result.against("routes app resident memory, idle 3 s after start", start.setting(),
                    start.rssMib(), "MiB", "<= 200 MiB", start.rssMib() <= 200)
                    : Result.of("sandbox resident memory, idle 3 s after start", start.setting(), start.rssMib(),
                            "MiB"));
        }
    }

    private static LogBench.Reading find(List<LogBench.Reading> readings, LogBench.Reading like, String reader) {
        return readings.stream().filter(r -> r.reader().equals(reader) && r.follow() == like.follow()
                && r.allRanks() == like.allRanks()).findFirst().orElseThrow();
    }

    private static void print(List<Result> results, String machine) {
        int measureWidth = results.stream().mapToInt(r -> r.measure().length()).max().orElse(10);
        int settingWidth = results.stream().mapToInt(r -> r.setting().length()).max().orElse(10);
        String format = "%-" + measureWidth + "s | %-" + settingWidth + "s | %12s %-12s | %-24s | %s%n";
        StringBuilder table = new StringBuilder("\nBenchmarks (" + machine + ")\n");
        table.append(String.format(format, "measure", "setting", "value", "unit", "target", "met"));
        for (Result r : results) {
            table.append(String.format(format, r.measure(), r.setting(), r.formattedValue(), r.unit(), r.target(),
                    r.met() == null ? "" : r.met() ? "yes" : "NO"));
        }
        System.out.print(table);
    }

    static void writeCsv(Path file, List<Result> results) throws Exception {
        Files.createDirectories(file.getParent());
        List<String> lines = new ArrayList<>(List.of("measure,setting,value,unit,target,met"));
        for (Result r : results) {
            lines.add(List.of(r.measure(), r.setting(), r.formattedValue(), r.unit(), r.target(),
                    r.met() == null ? "" : r.met().toString()).stream().map(Benchmarks::csv)
                    .collect(Collectors.joining(",")));
        }
        Files.write(file, lines);
        System.out.println("CSV: " + file);
    }

    private static String csv(String cell) {
        return cell.contains(",") || cell.contains("\"") ? "\"" + cell.replace("\"", "\"\"") + "\"" : cell;
    }
}
