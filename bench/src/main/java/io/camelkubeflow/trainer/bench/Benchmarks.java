package io.camelkubeflow.trainer.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Runs the benchmarks against a target, prints one table, writes it as CSV to {@code bench/target/benchmarks.csv} and
 * draws its ratios as SVG charts into {@code charts/} ({@link RatioCharts}). Run after
 * {@code mvn -B -ntp -q install -DskipTests} with {@code mvn -B -ntp -q -pl bench exec:exec}; the argument is the
 * project root. The target is a choice, {@code -Dbench.target}:
 * <ul>
 * <li>{@code sandbox} (the default): the sandbox API server in this JVM, on loopback;</li>
 * <li>{@code testcluster}: the real control plane, which the bench starts with testcluster/up.sh (4 fake nodes
 * beside the real ones) and stops after the run ({@link TestClusterTarget}); the Kubeflow SDK runs beside the
 * component when {@code -Dbench.sdk.python} names its environment's Python.</li>
 * </ul>
 * {@code -Dbench.smoke=true} runs each section of the target once at a small size (CI: it proves the bench still
 * runs on the real control plane; its figures are not the bench's).
 */
public final class Benchmarks {
    /** The sizes of a run: the bench's own, or the smoke run's. */
    record Sizes(
            int createRounds,
            int createsPerRound,
            int pythonCreateRounds,
            int logMegabytes,
            int logRounds,
            int[] waits,
            int[] scaleJobs,
            int scaleNamespaces,
            int stormRequests,
            int kueueStormRequests) {
        static final Sizes SANDBOX = new Sizes(5, 400, 3, 32, 5, new int[] {1, 100, 1000}, new int[0], 0, 0, 0);
        static final Sizes CLUSTER =
                new Sizes(5, 100, 5, 32, 5, new int[] {100, 1000}, new int[] {1000, 5000, 10_000}, 100, 2000, 300);
        static final Sizes SMOKE = new Sizes(1, 20, 1, 1, 1, new int[] {50}, new int[] {500}, 10, 200, 40);

        /** These sizes with other scale runs. */
        Sizes withScale(int[] jobs, int namespaces) {
            return new Sizes(
                    createRounds,
                    createsPerRound,
                    pythonCreateRounds,
                    logMegabytes,
                    logRounds,
                    waits,
                    jobs,
                    namespaces,
                    stormRequests,
                    kueueStormRequests);
        }
    }

    private static final Set<String> SANDBOX_SECTIONS = Set.of("waits", "creates", "logs", "start", "workspaces");
    private static final Set<String> CLUSTER_SECTIONS =
            Set.of("waits", "creates", "logs", "cluster-scale", "storm", "kueue-storm");

    private static final long STARTED = System.nanoTime();
    /** The scale section's heap row (the bench JVM's, the harness's maps of notices included), whose goal it holds. */
    static final String HEAP = "heap after GC, every TrainJob cached (end of the run)";

    private Benchmarks() {}

    /** A line on standard error as a long run goes (the table comes at its end). */
    static void progress(String what) {
        System.err.printf("[bench %5ds] %s%n", (System.nanoTime() - STARTED) / 1_000_000_000L, what);
    }

    public static void main(String[] args) throws Exception {
        run(Path.of(args.length > 0 ? args[0] : "..").toAbsolutePath().normalize());
    }

    /** Runs what the system properties ask for, prints the table and writes the CSV: the results. */
    static List<Result> run(Path root) throws Exception {
        boolean cluster = switch (System.getProperty("bench.target", "sandbox")) {
            case "sandbox", "" -> false;
            case "testcluster" -> true;
            default ->
                throw new IllegalArgumentException(
                        "-Dbench.target is sandbox or testcluster, not " + System.getProperty("bench.target"));
        };
        boolean smoke = Boolean.getBoolean("bench.smoke");
        Sizes sizes = smoke ? Sizes.SMOKE : cluster ? Sizes.CLUSTER : Sizes.SANDBOX;
        String scaleJobs = System.getProperty("bench.scale.jobs", "");
        if (!scaleJobs.isBlank()) {
            sizes = sizes.withScale(
                    Arrays.stream(scaleJobs.split(","))
                            .mapToInt(Integer::parseInt)
                            .toArray(),
                    Integer.getInteger("bench.scale.namespaces", sizes.scaleNamespaces()));
        }
        Set<String> sections = System.getProperty("bench.sections", "").isBlank()
                ? cluster ? CLUSTER_SECTIONS : SANDBOX_SECTIONS
                : Set.of(System.getProperty("bench.sections").split(","));
        List<Result> results = new ArrayList<>();
        if (cluster) {
            int portBase = Integer.getInteger(
                    "bench.testcluster.portBase",
                    Integer.parseInt(System.getenv().getOrDefault("TESTCLUSTER_PORT_BASE", "26400")));
            // the sections without Kueue on a control plane without it: Kueue's webhook writes its runtime patch into
            // every TrainJob, queued or not, which the other sections' creates would pay for and their raw POSTs
            // (of a job as stored, the patch in it) be refused for; kueue-storm then on one with Kueue
            if (sections.stream().anyMatch(section -> !section.equals("kueue-storm"))) {
                try (TestClusterTarget target = new TestClusterTarget(root, portBase, false)) {
                    onCluster(results, sections, sizes, target, root);
                }
            }
            if (sections.contains("kueue-storm")) {
                try (TestClusterTarget target = new TestClusterTarget(root, portBase, true)) {
                    kueueStorm(results, root, target, sizes);
                    writeCsv(root.resolve("bench/target/benchmarks.csv"), results);
                }
            }
        } else {
            onSandbox(results, sections, sizes, root);
        }
        String machine = Runtime.getRuntime().availableProcessors() + " cores, " + System.getProperty("java.vm.name")
                + " " + System.getProperty("java.version") + ", max heap "
                + Runtime.getRuntime().maxMemory() / (1024 * 1024) + " MiB, " + LocalDate.now();
        print(results, machine);
        writeCsv(root.resolve("bench/target/benchmarks.csv"), results);
        if (!smoke) {
            // the ratios as charts beside BENCHMARKS.md, from the same results
            RatioCharts.write(root.resolve("charts"), results).forEach(file -> System.out.println("Chart: " + file));
        }
        return results;
    }

    private static void onSandbox(List<Result> results, Set<String> sections, Sizes sizes, Path root) throws Exception {
        if (sections.contains("waits")) {
            waits(results, sizes);
        }
        if (sections.contains("creates")) {
            try (SandboxTarget target = new SandboxTarget()) {
                creates(results, root, target, sizes, new int[] {1, 8, 32});
            }
        }
        if (sections.contains("logs")) {
            try (SandboxTarget target = LogBench.sandbox()) {
                logs(results, root, target, sizes);
            }
        }
        if (sections.contains("start")) {
            start(results, root);
        }
        if (sections.contains("workspaces")) {
            workspaces(results);
        }
    }

    private static void onCluster(
            List<Result> results, Set<String> sections, Sizes sizes, TestClusterTarget target, Path root)
            throws Exception {
        // the CSV is written after each section too: a run of an hour or more keeps what it measured if it stops
        Path csv = root.resolve("bench/target/benchmarks.csv");
        if (sections.contains("waits")) {
            clusterWaits(results, root, target, sizes);
            writeCsv(csv, results);
        }
        if (sections.contains("creates")) {
            creates(results, root, target, sizes, new int[] {1, 8});
            writeCsv(csv, results);
        }
        if (sections.contains("logs")) {
            logs(results, root, target, sizes);
            writeCsv(csv, results);
        }
        if (sections.contains("cluster-scale")) {
            clusterScale(results, target, sizes, csv);
        }
        if (sections.contains("storm")) {
            storm(results, root, target, sizes);
            writeCsv(csv, results);
        }
    }

    /**
     * The routes app under one burst of Kafka requests into a Kueue ClusterQueue that admits a few one-CPU jobs at a
     * time (its policy forcing the LocalQueue): every request one TrainJob, never more admitted than the quota, every
     * job complete with its result published once, its statuses heard in order by the events consumer.
     */
    private static void kueueStorm(List<Result> results, Path root, TestClusterTarget target, Sizes sizes)
            throws Exception {
        Path jar = routesApp(root);
        int requests = sizes.kueueStormRequests();
        progress("kueue storm: " + requests + " Kafka requests into a ClusterQueue admitting "
                + KueueStormBench.ADMITTED_AT_ONCE + " at a time");
        Path work = Files.createTempDirectory("kueue-storm");
        KueueStormBench.Run run;
        try (KueueStormBench storm = new KueueStormBench(target, work)) {
            run = storm.run(requests, jar);
        } finally {
            deleteTree(work);
        }
        String setting = target.name() + " with Kueue, " + requests + " Kafka requests in one burst, quota "
                + KueueStormBench.ADMITTED_AT_ONCE + " CPUs, 1 CPU a job";
        results.add(Result.against(
                "kueue storm: requests that became a TrainJob or a dead letter",
                setting,
                run.distinctKeys() + run.deadLetters(),
                "requests",
                "all",
                run.distinctKeys() + run.deadLetters() == requests));
        results.add(Result.against(
                "kueue storm: TrainJobs made twice for one request",
                setting,
                run.trainJobs() - run.distinctKeys(),
                "jobs",
                "none",
                run.trainJobs() == run.distinctKeys()));
        results.add(Result.against(
                "kueue storm: most jobs holding quota at once",
                setting,
                run.mostAdmittedAtOnce(),
                "jobs",
                "<= " + KueueStormBench.ADMITTED_AT_ONCE,
                run.mostAdmittedAtOnce() <= KueueStormBench.ADMITTED_AT_ONCE));
        results.add(Result.against(
                "kueue storm: TrainJobs Complete",
                setting,
                run.complete(),
                "jobs",
                "all",
                run.complete() == run.trainJobs()));
        results.add(Result.against(
                "kueue storm: TrainJobs whose result was published",
                setting,
                run.jobsWithResult(),
                "jobs",
                "all",
                run.jobsWithResult() == run.trainJobs()));
        results.add(Result.against(
                "kueue storm: results published twice",
                setting,
                run.resultsTwice(),
                "jobs",
                "none",
                run.resultsTwice() == 0));
        results.add(Result.against(
                "kueue storm: jobs whose statuses the events consumer heard in order",
                setting,
                run.heardInOrder(),
                "jobs",
                "all",
                run.heardInOrder() == run.trainJobs()));
        results.add(Result.of("kueue storm: jobs heard Queued", setting, run.heardQueued(), "jobs"));
        results.add(Result.of(
                "kueue storm: time until every job was Complete",
                setting,
                run.allComplete().toMillis() / 1000.0,
                "s"));
        results.add(Result.of("kueue storm: peak resident memory of the routes app", setting, run.peakRssMib(), "MiB"));
    }

    private static Path routesApp(Path root) {
        Path jar = root.resolve("routes/target/quarkus-app/quarkus-run.jar");
        if (!Files.isRegularFile(jar)) {
            throw new IllegalStateException(
                    jar + " is missing: package the routes app first (mvn -B -ntp -q install" + " -DskipTests)");
        }
        return jar;
    }

    private static void deleteTree(Path work) throws IOException {
        try (var files = Files.walk(work)) {
            files.sorted(Comparator.reverseOrder())
                    .forEach(file -> file.toFile().delete());
        }
    }

    /**
     * The routes app, two replicas, under one burst of Kafka requests on the real control plane, the leader of its
     * result route killed a quarter of the way: every request exactly one TrainJob or one dead letter, every result
     * published once; request-to-created latency and each replica's peak memory.
     */
    private static void storm(List<Result> results, Path root, TestClusterTarget target, Sizes sizes) throws Exception {
        Path jar = routesApp(root);
        int requests = sizes.stormRequests();
        progress("storm: " + requests + " Kafka requests, 2 replicas of the routes app, the leader killed");
        Path work = Files.createTempDirectory("storm");
        StormBench.Run run;
        try (StormBench storm = new StormBench(target, work)) {
            run = storm.run(requests, jar);
        } finally {
            // the replicas' homes and the app's kubeconfig, with its token
            deleteTree(work);
        }
        String setting = target.name() + ", " + requests + " Kafka requests in one burst, 2 replicas, " + run.killed()
                + " (leading the results) killed at " + run.killedAtJobs() + " TrainJobs";
        results.add(Result.against(
                "storm: requests that became a TrainJob or a dead letter",
                setting,
                run.distinctKeys() + run.deadLetters(),
                "requests",
                "all",
                run.distinctKeys() + run.deadLetters() == requests));
        results.add(Result.against(
                "storm: TrainJobs made twice for one request",
                setting,
                run.trainJobs() - run.distinctKeys(),
                "jobs",
                "none",
                run.trainJobs() == run.distinctKeys()));
        results.add(Result.of("storm: dead letters", setting, run.deadLetters(), "requests"));
        results.add(Result.against(
                "storm: TrainJobs whose result was published",
                setting,
                run.jobsWithResult(),
                "jobs",
                "all",
                run.jobsWithResult() == run.trainJobs()));
        results.add(Result.against(
                "storm: results published twice",
                setting,
                run.resultsTwice(),
                "jobs",
                "none",
                run.resultsTwice() == 0));
        results.add(
                Result.of("storm: TrainJobs created by the killed replica", setting, run.createdByKilled(), "jobs"));
        results.add(Result.of("storm: TrainJobs created by the survivor", setting, run.createdBySurvivor(), "jobs"));
        results.add(Result.of(
                "storm: request to TrainJob created p50",
                setting,
                run.createdLatency().p50(),
                "ms"));
        results.add(Result.of(
                "storm: request to TrainJob created p99",
                setting,
                run.createdLatency().p99(),
                "ms"));
        results.add(Result.of(
                "storm: time until every request was a TrainJob",
                setting,
                run.allCreated().toMillis() / 1000.0,
                "s"));
        results.add(Result.of(
                "storm: time until every result was published",
                setting,
                run.allResults().toMillis() / 1000.0,
                "s"));
        results.add(
                Result.of("storm: peak resident memory, the killed replica", setting, run.killedPeakRssMib(), "MiB"));
        results.add(Result.of("storm: peak resident memory, the survivor", setting, run.survivorPeakRssMib(), "MiB"));
    }

    /**
     * N concurrent waits on the real control plane, one run per waiter: the component, the Kubeflow SDK itself and
     * its requests from Java; lags behind a plain informer. Goals: the component's p99 at least 100x below the SDK's
     * (its p99 counted as at least 1 ms), and at most 1/100 of its requests.
     */
    private static void clusterWaits(List<Result> results, Path root, BenchTarget target, Sizes sizes)
            throws Exception {
        try (ClusterWaitBench waits = new ClusterWaitBench(target, root)) {
            waits.component(10); // warm-up: class loading, JIT, the component's watch
            for (int n : sizes.waits()) {
                progress(n + " waits: the component, the SDK's requests from Java, the Kubeflow SDK");
                List<ClusterWaitBench.Run> runs = new ArrayList<>(List.of(waits.component(n), waits.sdkPattern(n)));
                if (PythonSdk.available()) {
                    runs.add(waits.pythonSdk(n));
                }
                for (ClusterWaitBench.Run run : runs) {
                    String setting = target.name() + ", " + n + " waits, " + run.waiter();
                    results.add(
                            Result.of("wait notice lag p50", setting, run.lag().p50(), "ms"));
                    results.add(
                            Result.of("wait notice lag p99", setting, run.lag().p99(), "ms"));
                    results.add(
                            Result.of("wait notice lag max", setting, run.lag().max(), "ms"));
                    results.add(Result.of("API requests per wait", setting, run.requestsPerWait(), "requests"));
                }
                ClusterWaitBench.Run own = runs.get(0);
                ClusterWaitBench.Run sdk = runs.get(runs.size() - 1);
                String setting = target.name() + ", " + n + " waits, component vs " + sdk.waiter();
                double better = sdk.lag().p99() / Math.max(1, own.lag().p99());
                results.add(Result.against(
                        "wait notice lag p99, SDK over component", setting, better, "x", ">= 100x", better >= 100));
                double fewer = sdk.requestsPerWait() / own.requestsPerWait();
                results.add(Result.against(
                        "API requests per wait, SDK over component", setting, fewer, "x", ">= 100x", fewer >= 100));
            }
        }
    }

    private static void waits(List<Result> results, Sizes sizes) throws Exception {
        try (WaitBench waits = new WaitBench()) {
            waits.watch(10, 500, false); // warm-up: class loading, JIT, connection pools
            waits.polling(10, 500);
            for (int n : sizes.waits()) {
                WaitBench.Run watch = waits.watch(n, 2000, n == 1000);
                WaitBench.Run poll = waits.polling(n, 2000);
                for (WaitBench.Run run : List.of(watch, poll)) {
                    String setting = run.strategy() + ", " + n + " waits";
                    boolean target = run == watch && n == 1000;
                    results.add(Result.of(
                            "detection latency p50", setting, run.latency().p50(), "ms"));
                    results.add(
                            target
                                    ? Result.against(
                                            "detection latency p99",
                                            setting,
                                            run.latency().p99(),
                                            "ms",
                                            "< 50 ms at 1,000 waits",
                                            run.latency().p99() < 50)
                                    : Result.of(
                                            "detection latency p99",
                                            setting,
                                            run.latency().p99(),
                                            "ms"));
                    results.add(Result.of(
                            "detection latency max", setting, run.latency().max(), "ms"));
                    results.add(Result.of(
                            "API requests per wait", setting + ", 2 s job", run.requestsPerWait(), "requests"));
                    results.add(Result.of(
                            "connections opened to the API server (peak)",
                            setting,
                            run.peakConnections(),
                            "connections"));
                    if (run == watch) {
                        results.add(Result.against(
                                "watch connections",
                                setting,
                                run.watchRequests(),
                                "watches",
                                "1 per namespace",
                                run.watchRequests() == 1));
                    }
                    if (!Double.isNaN(run.heapBytesPerWait())) {
                        results.add(Result.against(
                                "heap per in-flight wait",
                                setting,
                                run.heapBytesPerWait() / 1024,
                                "KiB",
                                "< 10 KB",
                                run.heapBytesPerWait() < 10_000));
                    }
                }
            }
            if (sizes == Sizes.SMOKE) {
                return;
            }
            // scale: 10,000 waits over 10 namespaces (one watch each), the component alone (polling them would be
            // 20,000 requests a second)
            WaitBench.Run many = waits.watch(10_000, 10, 2000, true);
            String manySetting = "watch (component), 10,000 waits over 10 namespaces";
            results.add(Result.of(
                    "detection latency p50", manySetting, many.latency().p50(), "ms"));
            results.add(Result.against(
                    "detection latency p99",
                    manySetting,
                    many.latency().p99(),
                    "ms",
                    "<= 50 ms",
                    many.latency().p99() <= 50));
            results.add(Result.of(
                    "detection latency max", manySetting, many.latency().max(), "ms"));
            results.add(Result.against(
                    "watch connections",
                    manySetting,
                    many.watchRequests(),
                    "watches",
                    "1 per namespace",
                    many.watchRequests() == 10));
            results.add(Result.against(
                    "heap per in-flight wait",
                    manySetting,
                    many.heapBytesPerWait() / 1024,
                    "KiB",
                    "<= 4 KiB",
                    many.heapBytesPerWait() <= 4096));
            results.add(
                    Result.of("API requests per wait", manySetting + ", 2 s job", many.requestsPerWait(), "requests"));
            for (long hold : new long[] {10_000}) {
                WaitBench.Run watch = waits.watch(100, hold, false);
                WaitBench.Run poll = waits.polling(100, hold);
                for (WaitBench.Run run : List.of(watch, poll)) {
                    results.add(Result.of(
                            "API requests per wait",
                            run.strategy() + ", 100 waits, " + hold / 1000 + " s job",
                            run.requestsPerWait(),
                            "requests"));
                }
            }
        }
    }

    /**
     * TrainJobs spread over many namespaces, created through the component, run by the real Trainer on the fake
     * nodes, each followed by the events consumer and a wait; {@code -Dbench.scale.running} (200) of them unfinished at
     * most. Goals at 10,000: events lag p99 at most 1 s, heap at most 100 MiB.
     */
    private static void clusterScale(List<Result> results, TestClusterTarget target, Sizes sizes, Path csv)
            throws Exception {
        int running = Integer.getInteger("bench.scale.running", 200);
        try (ClusterScaleBench bench = new ClusterScaleBench(target)) {
            for (int jobs : sizes.scaleJobs()) {
                progress("scale: " + jobs + " TrainJobs");
                ClusterScaleBench.Run run =
                        bench.run(sizes.scaleNamespaces(), jobs, 8, running, Duration.ofMinutes(90));
                boolean goal = jobs >= 10_000;
                String setting = target.name() + ", " + jobs + " TrainJobs in " + sizes.scaleNamespaces()
                        + " namespaces, at most " + running + " unfinished";
                results.add(Result.against(
                        "TrainJobs Complete", setting, run.completed(), "jobs", "all", run.completed() == jobs));
                results.add(Result.of(
                        "time until all Complete", setting, run.allComplete().toSeconds(), "s"));
                results.add(Result.against(
                        "jobs noticed by the events consumer",
                        setting,
                        run.eventsNoticed(),
                        "jobs",
                        "all",
                        run.eventsNoticed() == jobs));
                results.add(Result.against(
                        "jobs noticed by their waits",
                        setting,
                        run.waitsNoticed(),
                        "jobs",
                        "all",
                        run.waitsNoticed() == jobs));
                results.add(Result.of(
                        "TrainJobs completed per second (the Trainer's pace)",
                        setting,
                        run.completedPerSecond(),
                        "jobs/s"));
                results.add(Result.of(
                        "the Trainer's writes per second", setting, run.trainerWritesPerSecond(), "writes/s"));
                results.add(Result.of(
                        "events consumer lag p50", setting, run.eventLag().p50(), "ms"));
                results.add(
                        goal
                                ? Result.against(
                                        "events consumer lag p99",
                                        setting,
                                        run.eventLag().p99(),
                                        "ms",
                                        "<= 1000 ms",
                                        run.eventLag().p99() <= 1000)
                                : Result.of(
                                        "events consumer lag p99",
                                        setting,
                                        run.eventLag().p99(),
                                        "ms"));
                results.add(Result.of(
                        "events consumer lag max", setting, run.eventLag().max(), "ms"));
                results.add(
                        Result.of("wait notice lag p50", setting, run.waitLag().p50(), "ms"));
                results.add(
                        Result.of("wait notice lag p99", setting, run.waitLag().p99(), "ms"));
                results.add(
                        Result.of("wait notice lag max", setting, run.waitLag().max(), "ms"));
                results.add(
                        goal
                                ? Result.against(
                                        HEAP, setting, run.heapMiB(), "MiB", "<= 100 MiB", run.heapMiB() <= 100)
                                : Result.of(HEAP, setting, run.heapMiB(), "MiB"));
                results.add(Result.of(
                        "heap after GC, every TrainJob cached, the harness's maps of notices let go",
                        setting,
                        run.componentHeapMiB(),
                        "MiB"));
                results.add(Result.of(
                        "live threads, the most during the run (not the harness's creators)",
                        setting,
                        run.threads(),
                        "threads"));
                writeCsv(csv, results);
            }
        }
    }

    private static void workspaces(List<Result> results) throws Exception {
        try (WorkspaceBench bench = new WorkspaceBench()) {
            bench.stage(WorkspaceBench.project(1, 1), 10); // warm-up
            WorkspaceBench.Run small = bench.stage(WorkspaceBench.project(1, 2), 20);
            addWorkspaceRows(
                    results,
                    "staged",
                    "1 MB project (1 MB of source in 129 files, " + small.compressedBytes() / 1024
                            + " KiB compressed), ",
                    small,
                    20);
            WorkspaceBench.Run large = bench.stage(WorkspaceBench.project(50, 3), 5);
            addWorkspaceRows(
                    results,
                    "stored",
                    "50 MB project (6401 files, " + large.compressedBytes() / (1024 * 1024)
                            + " MiB compressed: kept in an object store, here in memory), ",
                    large,
                    5);
        }
    }

    private static void addWorkspaceRows(
            List<Result> results, String how, String setting, WorkspaceBench.Run run, int reuses) {
        String first = "workspace job, first (" + how + ")";
        results.add(Result.of(first, setting + "time", run.firstMillis(), "ms"));
        results.add(Result.of(first, setting + "API requests", run.firstRequests(), "requests"));
        results.add(Result.of(
                "workspace job, reusing it", setting + "time (median of " + reuses + ")", run.reuseMillis(), "ms"));
        results.add(Result.of("workspace job, reusing it", setting + "API requests", run.reuseRequests(), "requests"));
    }

    /**
     * Creates of every payload kind, rounds interleaving the component, the SDK's request pattern and a raw POST (so a
     * pause of the machine costs each alike; each rate the median of its rounds); then the Kubeflow SDK's own
     * {@code train} beside the component's inline-script creates. Goals: at least 2x the SDK's request pattern and at
     * least 3x the SDK's train at 8 producers, for every payload.
     */
    private static void creates(List<Result> results, Path root, BenchTarget target, Sizes sizes, int[] producerCounts)
            throws Exception {
        int perRound = sizes.createsPerRound();
        try (CreateBench creates = new CreateBench(target)) {
            creates.component(CreateBench.Payload.PYTHON_FILE, perRound / 2, 8); // warm-up
            creates.sdkPattern(CreateBench.Payload.PYTHON_FILE, perRound / 2, 8);
            creates.raw(CreateBench.Payload.PYTHON_FILE, perRound / 2, 8);
            Map<Integer, Map<CreateBench.Payload, CreateBench.Run>> own = new HashMap<>();
            for (int producers : producerCounts) {
                progress("creates from " + producers + " producers");
                Map<CreateBench.Payload, List<CreateBench.Run>> sdkRounds = new EnumMap<>(CreateBench.Payload.class);
                Map<CreateBench.Payload, List<CreateBench.Run>> rawRounds = new EnumMap<>(CreateBench.Payload.class);
                Map<CreateBench.Payload, List<CreateBench.Run>> ownRounds = new EnumMap<>(CreateBench.Payload.class);
                for (int round = 0; round < sizes.createRounds(); round++) {
                    for (CreateBench.Payload payload : CreateBench.Payload.values()) {
                        sdkRounds
                                .computeIfAbsent(payload, k -> new ArrayList<>())
                                .add(creates.sdkPattern(payload, perRound, producers));
                        rawRounds
                                .computeIfAbsent(payload, k -> new ArrayList<>())
                                .add(creates.raw(payload, perRound, producers));
                        ownRounds
                                .computeIfAbsent(payload, k -> new ArrayList<>())
                                .add(creates.component(payload, perRound, producers));
                    }
                }
                String setting = target.name() + ", " + sizes.createRounds() + " x " + perRound + " creates (median), "
                        + producers + " producers, ";
                for (CreateBench.Payload payload : CreateBench.Payload.values()) {
                    CreateBench.Run sdk = CreateBench.Run.median(sdkRounds.get(payload));
                    CreateBench.Run raw = CreateBench.Run.median(rawRounds.get(payload));
                    CreateBench.Run run = CreateBench.Run.median(ownRounds.get(payload));
                    own.computeIfAbsent(producers, k -> new EnumMap<>(CreateBench.Payload.class))
                            .put(payload, run);
                    String baseline = setting + payload.label + ", SDK request pattern (baseline)";
                    results.add(Result.of("create throughput", baseline, sdk.createsPerSecond(), "TrainJobs/s"));
                    results.add(Result.of("API requests per create", baseline, sdk.requestsPerCreate(), "requests"));
                    String rawSetting = setting + payload.label + ", raw POST (the physical limit)";
                    results.add(Result.of("create throughput", rawSetting, raw.createsPerSecond(), "TrainJobs/s"));
                    String kind = setting + payload.label + ", component";
                    results.add(Result.of("create throughput", kind, run.createsPerSecond(), "TrainJobs/s"));
                    double ratio = run.createsPerSecond() / sdk.createsPerSecond();
                    results.add(
                            Result.against("create throughput vs SDK pattern", kind, ratio, "x", ">= 2x", ratio >= 2));
                    results.add(Result.of(
                            "create throughput vs raw POST",
                            kind,
                            run.createsPerSecond() / raw.createsPerSecond(),
                            "x"));
                    results.add(Result.against(
                            "API requests per create",
                            kind,
                            run.requestsPerCreate(),
                            "requests",
                            "<= 2",
                            run.requestsPerCreate() <= 2));
                }
            }
            if (PythonSdk.available()) {
                pythonSdkCreates(results, creates, root, target, sizes, own);
            }
            if (target instanceof TestClusterTarget) {
                whereCreatesWait(results, creates, target, sizes);
            }
        }
    }

    /** Raw POSTs at 8 producers that leave out one part of the API server's chain each: what a create waits on. */
    private static void whereCreatesWait(List<Result> results, CreateBench creates, BenchTarget target, Sizes sizes)
            throws Exception {
        Map<CreateBench.RawPost, List<CreateBench.Run>> rounds = new EnumMap<>(CreateBench.RawPost.class);
        for (int round = 0; round < sizes.createRounds(); round++) {
            for (CreateBench.RawPost what : CreateBench.RawPost.values()) {
                rounds.computeIfAbsent(what, k -> new ArrayList<>())
                        .add(creates.raw(CreateBench.Payload.PYTHON_FILE, sizes.createsPerRound(), 8, what));
            }
        }
        for (CreateBench.RawPost what : CreateBench.RawPost.values()) {
            results.add(Result.of(
                    "create throughput, where it waits",
                    target.name() + ", " + sizes.createRounds() + " x " + sizes.createsPerRound()
                            + " creates (median), 8 producers, pythonFile, " + what.label,
                    CreateBench.Run.median(rounds.get(what)).createsPerSecond(),
                    "TrainJobs/s"));
        }
    }

    /**
     * The Kubeflow Python SDK's own {@code train} with a {@code CustomTrainer} (its only create: of a script; it has
     * none of a command or a file in the image) at 1 and 8 producers, and every payload of the component at as many
     * producers against it.
     */
    private static void pythonSdkCreates(
            List<Result> results,
            CreateBench creates,
            Path root,
            BenchTarget target,
            Sizes sizes,
            Map<Integer, Map<CreateBench.Payload, CreateBench.Run>> own)
            throws Exception {
        for (int producers : new int[] {1, 8}) {
            List<CreateBench.Run> rounds = new ArrayList<>();
            for (int round = 0; round < sizes.pythonCreateRounds(); round++) {
                rounds.add(creates.pythonSdk(root, sizes.createsPerRound(), producers));
            }
            CreateBench.Run sdk = CreateBench.Run.median(rounds);
            String setting = target.name() + ", " + producers + (producers == 1 ? " producer, " : " producers, ");
            results.add(Result.of(
                    "create throughput",
                    setting + PythonSdk.NAME + " (train, CustomTrainer)",
                    sdk.createsPerSecond(),
                    "TrainJobs/s"));
            results.add(Result.of(
                    "API requests per create", setting + PythonSdk.NAME, sdk.requestsPerCreate(), "requests"));
            for (CreateBench.Payload payload : CreateBench.Payload.values()) {
                double ratio = own.get(producers).get(payload).createsPerSecond() / sdk.createsPerSecond();
                String kind = setting + payload.label + ", component";
                results.add(
                        producers == 8
                                ? Result.against(
                                        "create throughput vs " + PythonSdk.NAME + " train",
                                        kind,
                                        ratio,
                                        "x",
                                        ">= 3x",
                                        ratio >= 3)
                                : Result.of("create throughput vs " + PythonSdk.NAME + " train", kind, ratio, "x"));
            }
        }
    }

    private static void logs(List<Result> results, Path root, BenchTarget target, Sizes sizes) throws Exception {
        try (LogBench logs = new LogBench(target, root)) {
            progress("logs: " + sizes.logMegabytes() + " MB per rank");
            logs.prepare(sizes.logMegabytes());
            List<LogBench.Reading> readings = logs.readAll(sizes.logRounds());
            for (LogBench.Reading r : readings) {
                String setting = target.name() + ", " + (r.follow() ? "follow" : "no follow") + ", "
                        + (r.allRanks() ? "all " + LogBench.NODES + " ranks" : "node 0")
                        + String.format(", %.0f MB, %d lines, ", r.megabytes(), r.lines()) + r.reader();
                results.add(Result.of("log read throughput", setting, r.megabytesPerSecond(), "MB/s"));
                results.add(Result.of("log read throughput", setting, r.linesPerSecond(), "lines/s"));
            }
            for (LogBench.Reading own : readings.stream()
                    .filter(r -> r.reader().equals("component"))
                    .toList()) {
                String setting = target.name() + ", " + (own.follow() ? "follow" : "no follow") + ", "
                        + (own.allRanks() ? "all " + LogBench.NODES + " ranks" : "node 0");
                double sdk = own.megabytesPerSecond()
                        / find(readings, own, "SDK pattern").megabytesPerSecond();
                if (readings.stream().anyMatch(r -> r.reader().equals(PythonSdk.NAME))) {
                    double python = own.megabytesPerSecond()
                            / find(readings, own, PythonSdk.NAME).megabytesPerSecond();
                    results.add(Result.against(
                            "log read, component vs Kubeflow SDK (Python)",
                            setting,
                            python,
                            "x",
                            ">= 1.2x",
                            python >= 1.2));
                }
                // the job has finished: the component reads its final logs without timestamps, following or not (it
                // asks for them to follow a running container, whose broken stream it resumes from the last one)
                double raw = own.megabytesPerSecond()
                        / find(readings, own, "raw GET, no timestamps").megabytesPerSecond();
                results.add(
                        Result.against("log read, component vs SDK pattern", setting, sdk, "x", ">= 1.2x", sdk >= 1.2));
                results.add(Result.against(
                        "log read, component vs raw GET (same query)", setting, raw, "x", ">= 0.8x", raw >= 0.8));
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
            results.add(
                    app
                            ? Result.against(
                                    "routes app start (wall, to 'started')",
                                    start.setting(),
                                    start.wallSeconds(),
                                    "s",
                                    "<= 1.5 s",
                                    start.wallSeconds() <= 1.5)
                            : Result.of(
                                    "sandbox start (wall, to listening)", start.setting(), start.wallSeconds(), "s"));
            if (!Double.isNaN(start.quarkusSeconds())) {
                results.add(Result.of(
                        "routes app start (Quarkus 'started in')", start.setting(), start.quarkusSeconds(), "s"));
            }
            results.add(
                    app
                            ? Result.against(
                                    "routes app resident memory, idle 3 s after start",
                                    start.setting(),
                                    start.rssMib(),
                                    "MiB",
                                    "<= 200 MiB",
                                    start.rssMib() <= 200)
                            : Result.of(
                                    "sandbox resident memory, idle 3 s after start",
                                    start.setting(),
                                    start.rssMib(),
                                    "MiB"));
        }
    }

    private static LogBench.Reading find(List<LogBench.Reading> readings, LogBench.Reading like, String reader) {
        return readings.stream()
                .filter(r ->
                        r.reader().equals(reader) && r.follow() == like.follow() && r.allRanks() == like.allRanks())
                .findFirst()
                .orElseThrow();
    }

    private static void print(List<Result> results, String machine) {
        int measureWidth =
                results.stream().mapToInt(r -> r.measure().length()).max().orElse(10);
        int settingWidth =
                results.stream().mapToInt(r -> r.setting().length()).max().orElse(10);
        String format = "%-" + measureWidth + "s | %-" + settingWidth + "s | %12s %-12s | %-24s | %s%n";
        StringBuilder table = new StringBuilder("\nBenchmarks (" + machine + ")\n");
        table.append(String.format(format, "measure", "setting", "value", "unit", "target", "met"));
        for (Result r : results) {
            table.append(String.format(
                    format,
                    r.measure(),
                    r.setting(),
                    r.formattedValue(),
                    r.unit(),
                    r.target(),
                    r.met() == null ? "" : r.met() ? "yes" : "NO"));
        }
        System.out.print(table);
    }

    static void writeCsv(Path file, List<Result> results) throws Exception {
        Files.createDirectories(file.getParent());
        List<String> lines = new ArrayList<>(List.of("measure,setting,value,unit,target,met"));
        for (Result r : results) {
            lines.add(List.of(
                            r.measure(),
                            r.setting(),
                            r.formattedValue(),
                            r.unit(),
                            r.target(),
                            r.met() == null ? "" : r.met().toString())
                    .stream()
                    .map(Benchmarks::csv)
                    .collect(Collectors.joining(",")));
        }
        Files.write(file, lines);
        progress("CSV: " + file);
    }

    private static String csv(String cell) {
        return cell.contains(",") || cell.contains("\"") ? "\"" + cell.replace("\"", "\"\"") + "\"" : cell;
    }
}
