package io.camelkubeflow.trainer.bench;

import io.camelkubeflow.trainer.sandbox.TrainerSandbox;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.ToDoubleFunction;
import java.util.jar.JarFile;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The routes app in JVM mode, as the README runs it ({@code java -jar routes/target/quarkus-app/quarkus-run.jar}): wall
 * time until Quarkus reports it started, Quarkus's own figure, and resident memory (VmRSS) once it has idled for 3 s,
 * each the median of {@link #ROUNDS} starts, taken in rounds of one start of every setting once all are trained.
 * Measured on a cluster elsewhere (a sandbox in the bench's JVM, given to the app by a kubeconfig) with what the JDKs
 * offer for start: a class-data-sharing archive of the app's classes (JDK 17's AppCDS,
 * {@code -XX:ArchiveClassesAtExit}, written by one training start) and JDK 25's AOT cache
 * ({@code -XX:AOTCacheOutput}, likewise), when JDK 25 is installed. When the app has also been packaged with
 * {@code -Pfast-start} (Quarkus's legacy-jar: its classes on the JVM's own class path, which the archive and the cache
 * can hold; the default fast-jar loads them with a class loader of its own, which they leave out), that layout is
 * measured too, with C1 only (the JIT's share of the start) and in the memory deploy/ gives the pod. On the local
 * sandbox (started inside the app, as the README's command does) the default and the fastest settings are measured,
 * the fastest also with the JVM sized as the pod's (what the sandbox adds to the same JVM); the sandbox's own start
 * (its {@code SandboxMain}, in a JVM of its own) apart. The image's setting (Dockerfile.fast-start: C1 only, in the
 * pod's memory) starts from a cache trained as the image's build trains it, by {@code train-aot-cache.sh} on the
 * local sandbox; every other trained setting from one trained where and as it is measured.
 */
final class StartupBench {
    private static final Pattern STARTED = Pattern.compile("started in ([0-9.]+)s");
    /** JDK 25, where this machine has it (see the env notes); the AOT-cache rows are left out without it. */
    static final Path JDK25 = Path.of(System.getProperty("bench.jdk25", "/usr/lib/jvm/temurin-25-jdk-amd64"));

    /** One start: how the app was run, its figures. */
    record Start(String setting, double wallSeconds, double quarkusSeconds, double rssMib) {}

    /**
     * Starts per setting (after its one training start), in rounds of one start of each setting: the row is their
     * median, as the machine's pace drifts.
     */
    private static final int ROUNDS = 5;

    private static final String C1_ONLY = "-XX:TieredStopAtLevel=1";
    /**
     * The JVM as it is in deploy/deployment.yaml's pod, whose memory limit it reads as its machine's: a heap of a
     * quarter of 768 MiB, and the Serial collector, which it picks below 1792 MiB (here -XX:MaxRAM alone would keep G1,
     * as the machine's own memory decides that).
     */
    private static final List<String> DEPLOYED_MEMORY = List.of("-XX:MaxRAM=768m", "-XX:+UseSerialGC");

    private static final String AS_DEPLOYED = "in deploy/'s 768 MiB (-XX:MaxRAM=768m -XX:+UseSerialGC)";

    private final Path work;
    /** The script an image build trains its AOT cache with (Dockerfile.fast-start). */
    private final Path trainingScript;

    private StartupBench(Path projectRoot) throws Exception {
        this.work = Files.createTempDirectory("routes-app-start");
        this.trainingScript =
                projectRoot.resolve("routes/src/main/docker/train-aot-cache.sh").toAbsolutePath();
    }

    /** Every variant, or an empty list when the routes app is not built. */
    static List<Start> measure(Path projectRoot) throws Exception {
        Path fastJar = projectRoot.resolve("routes/target/quarkus-app/quarkus-run.jar");
        if (!Files.exists(fastJar)) {
            return List.of();
        }
        Path legacyJar = legacyJar(projectRoot.resolve("routes/target"));
        StartupBench bench = new StartupBench(projectRoot);
        List<Start> starts;
        try (TrainerSandbox elsewhere = TrainerSandbox.start()) {
            Path kubeconfig = elsewhere.writeKubeconfig(bench.work.resolve("cluster.kubeconfig"));
            starts = bench.interleaved(bench.settings(fastJar, legacyJar, kubeconfig));
        }
        starts.add(bench.sandboxAlone());
        return starts;
    }

    /** A way to start the app: its JVM and options (with what its training wrote, if any), where it finds a cluster. */
    private record Setting(String name, Path jar, Path java, List<String> options, boolean local, Path kubeconfig) {}

    /** Every setting to measure, each trained (when it is) before any is measured. */
    private List<Setting> settings(Path fastJar, Path legacyJar, Path kubeconfig) throws Exception {
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        Path java25 = JDK25.resolve("bin/java");
        boolean jdk25 = Files.isExecutable(java25);
        List<Setting> settings = new ArrayList<>();
        for (boolean local : new boolean[] {true, false}) {
            String where = local ? "local sandbox in the app" : "cluster elsewhere";
            settings.add(new Setting(where + ", JDK 17", fastJar, java, List.of(), local, kubeconfig));
            // the local sandbox adds its own start to each: there, only the default and the fastest settings
            if (!local) {
                settings.add(trained(
                        new Setting(where + ", JDK 17 + AppCDS", fastJar, java, List.of(), local, kubeconfig),
                        Archive.APP_CDS));
                if (jdk25) {
                    settings.add(new Setting(where + ", JDK 25", fastJar, java25, List.of(), local, kubeconfig));
                    settings.add(trained(
                            new Setting(where + ", JDK 25 + AOT cache", fastJar, java25, List.of(), local, kubeconfig),
                            Archive.AOT_CACHE));
                }
                if (legacyJar != null) {
                    settings.add(trained(
                            new Setting(
                                    where + ", -Pfast-start, JDK 17 + AppCDS",
                                    legacyJar,
                                    java,
                                    List.of(),
                                    local,
                                    kubeconfig),
                            Archive.APP_CDS));
                }
            }
            if (legacyJar == null || !jdk25) {
                continue;
            }
            settings.add(trained(
                    new Setting(
                            where + ", -Pfast-start, JDK 25 + AOT cache",
                            legacyJar,
                            java25,
                            List.of(),
                            local,
                            kubeconfig),
                    Archive.AOT_CACHE));
            // the JIT's share of the start: C1 only, which costs peak throughput afterwards
            settings.add(trained(
                    new Setting(
                            where + ", -Pfast-start, JDK 25 + AOT cache, C1 only",
                            legacyJar,
                            java25,
                            List.of(C1_ONLY),
                            local,
                            kubeconfig),
                    Archive.AOT_CACHE));
            // as deploy/ runs it: a pod's memory limit sizes the JVM's heap and picks its collector (on the local
            // sandbox, the same sizing shows what the sandbox itself adds)
            if (!local) {
                settings.add(trained(
                        new Setting(
                                where + ", -Pfast-start, JDK 25 + AOT cache, " + AS_DEPLOYED,
                                legacyJar,
                                java25,
                                DEPLOYED_MEMORY,
                                local,
                                kubeconfig),
                        Archive.AOT_CACHE));
            }
            // the image's own procedure: its cache trained by the script it runs while it is built
            settings.add(trainedByScript(new Setting(
                    where + ", -Pfast-start, JDK 25 + AOT cache (train-aot-cache.sh)," + " C1 only, " + AS_DEPLOYED,
                    legacyJar.toAbsolutePath(),
                    java25,
                    withC1Only(DEPLOYED_MEMORY),
                    local,
                    kubeconfig)));
        }
        return settings;
    }

    /**
     * {@link #ROUNDS} starts of every setting, one of each per round, so that a slow spell of the machine falls on all
     * settings alike; each setting's figures are the medians of its starts.
     */
    private List<Start> interleaved(List<Setting> settings) throws Exception {
        List<List<Start>> rounds = new ArrayList<>();
        settings.forEach(setting -> rounds.add(new ArrayList<>()));
        for (int round = 0; round < ROUNDS; round++) {
            for (int i = 0; i < settings.size(); i++) {
                rounds.get(i).add(startOnce(settings.get(i)));
            }
        }
        List<Start> medians = new ArrayList<>();
        for (int i = 0; i < settings.size(); i++) {
            List<Start> of = rounds.get(i);
            medians.add(new Start(
                    settings.get(i).name(),
                    median(of, Start::wallSeconds),
                    median(of, Start::quarkusSeconds),
                    median(of, Start::rssMib)));
        }
        return medians;
    }

    private static List<String> withC1Only(List<String> options) {
        List<String> all = new ArrayList<>(List.of(C1_ONLY));
        all.addAll(options);
        return all;
    }

    /**
     * The runner jar of a {@code -Pfast-start} build (Quarkus's legacy-jar: a manifest class path into {@code lib/}),
     * or null; an uber-jar has the same name and no class path.
     */
    private static Path legacyJar(Path target) throws Exception {
        try (var files = Files.list(target)) {
            Path runner = files.filter(f -> f.getFileName().toString().endsWith("-runner.jar"))
                    .findFirst()
                    .orElse(null);
            if (runner == null) {
                return null;
            }
            try (JarFile jar = new JarFile(runner.toFile())) {
                String classPath = jar.getManifest().getMainAttributes().getValue("Class-Path");
                return classPath != null && classPath.contains("lib/") ? runner : null;
            }
        }
    }

    /** What a training start writes at its end: the JVM option that writes it, and the one that reads it. */
    private enum Archive {
        APP_CDS("-XX:ArchiveClassesAtExit=", "-XX:SharedArchiveFile="),
        AOT_CACHE("-XX:AOTCacheOutput=", "-XX:AOTCache=");

        final String write;
        final String read;

        Archive(String write, String read) {
            this.write = write;
            this.read = read;
        }
    }

    /** The setting with what one training start of it wrote at its end (an AppCDS archive or an AOT cache). */
    private Setting trained(Setting setting, Archive archive) throws Exception {
        Path file = Files.createTempFile(work, "trained", ".cache");
        Files.delete(file);
        List<String> training = new ArrayList<>(setting.options());
        training.add(archive.write + file);
        startOnce(new Setting(
                "training", setting.jar(), setting.java(), training, setting.local(), setting.kubeconfig()));
        awaitWritten(file);
        return withOption(setting, archive.read + file);
    }

    /**
     * The setting with the AOT cache that {@code train-aot-cache.sh} writes with its options (on the local sandbox, as
     * Dockerfile.fast-start trains it while the image is built, wherever the start then runs).
     */
    private Setting trainedByScript(Setting setting) throws Exception {
        Path cache = work.resolve("script-trained-" + System.nanoTime() + ".aot");
        Path said = work.resolve("train-aot-cache.log");
        List<String> command = new ArrayList<>(List.of(
                "bash",
                trainingScript.toString(),
                setting.java().toString(),
                setting.jar().toString(),
                cache.toString()));
        command.addAll(setting.options());
        Process training = new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(said.toFile())
                .start();
        if (training.waitFor() != 0 || !Files.exists(cache)) {
            throw new IllegalStateException("train-aot-cache.sh wrote no cache:\n" + Files.readString(said));
        }
        return withOption(setting, Archive.AOT_CACHE.read + cache);
    }

    private static Setting withOption(Setting setting, String option) {
        List<String> options = new ArrayList<>(setting.options());
        options.add(option);
        return new Setting(
                setting.name(), setting.jar(), setting.java(), options, setting.local(), setting.kubeconfig());
    }

    /**
     * Waits for a training run's archive or cache: JDK 25 assembles its AOT cache in a JVM of its own that outlives the
     * stopped training run by seconds, and a start before it has finished runs without one (silently, but for a
     * warning).
     */
    private static void awaitWritten(Path file) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(3);
        while (!Files.exists(file)) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("the training run wrote no " + file);
            }
            Thread.sleep(200);
        }
        // written in place: done once its size holds still
        long size = -1;
        while (size != Files.size(file)) {
            size = Files.size(file);
            Thread.sleep(500);
        }
    }

    private static double median(List<Start> rounds, ToDoubleFunction<Start> figure) {
        double[] values = rounds.stream().mapToDouble(figure).sorted().toArray();
        return values[values.length / 2];
    }

    private Start startOnce(Setting setting) throws Exception {
        List<String> command = new ArrayList<>(List.of(setting.java().toString()));
        command.addAll(setting.options());
        command.addAll(List.of("-jar", setting.jar().toString()));
        ProcessBuilder builder = new ProcessBuilder(command).directory(work.toFile());
        builder.environment().put("TRAINER_CLUSTER", setting.local() ? "sandbox" : "cluster");
        if (!setting.local()) {
            builder.environment().put("KUBECONFIG", setting.kubeconfig().toString());
        }
        // the README's command binds 8080; any free port here
        builder.environment().put("QUARKUS_HTTP_PORT", "0");
        return run(setting.name(), builder, STARTED);
    }

    /** SandboxMain in a JVM of its own, on the bench's class path: until it says where it listens. */
    private Start sandboxAlone() throws Exception {
        ProcessBuilder builder = new ProcessBuilder(
                        Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                        "-cp",
                        System.getProperty("java.class.path"),
                        "io.camelkubeflow.trainer.sandbox.SandboxMain",
                        "--kubeconfig=" + work.resolve("alone.kubeconfig"))
                .directory(work.toFile());
        return run("the sandbox alone (SandboxMain), JDK 17", builder, Pattern.compile("(sandbox listening)"));
    }

    /**
     * Starts the process with its output in a file (not a pipe: the JDK closes a process's pipe once it has exited,
     * and JDK 25's AOT cache is assembled by a child JVM that writes to it after its parent has stopped, which then
     * dies), until a line matches {@code ready}; stops it gracefully at the end.
     */
    private Start run(String setting, ProcessBuilder builder, Pattern ready) throws Exception {
        Path output = Files.createTempFile(work, "output", ".log");
        long started = System.nanoTime();
        Process app = builder.redirectErrorStream(true)
                .redirectOutput(output.toFile())
                .start();
        try {
            while (true) {
                String said = Files.readString(output, StandardCharsets.UTF_8);
                Matcher matcher = ready.matcher(said);
                if (matcher.find()) {
                    double wall = (System.nanoTime() - started) / 1e9;
                    double own =
                            matcher.group(1).matches("[0-9.]+") ? Double.parseDouble(matcher.group(1)) : Double.NaN;
                    Thread.sleep(3000);
                    return new Start(setting, wall, own, rssKib(app.pid()) / 1024.0);
                }
                if (!app.isAlive()) {
                    throw new IllegalStateException(setting + ": exited without starting:\n" + said);
                }
                Thread.sleep(10);
            }
        } finally {
            // SIGTERM: a graceful stop, which writes a training run's archive or cache
            app.destroy();
            if (!app.waitFor(60, TimeUnit.SECONDS)) {
                app.destroyForcibly();
            }
        }
    }

    private static long rssKib(long pid) throws Exception {
        for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/status"))) {
            if (line.startsWith("VmRSS:")) {
                return Long.parseLong(line.replaceAll("[^0-9]", ""));
            }
        }
        return -1;
    }
}
