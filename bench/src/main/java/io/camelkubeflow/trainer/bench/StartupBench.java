package io.camelkubeflow.trainer.bench;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.camelkubeflow.trainer.sandbox.TrainerSandbox;

/**
 * The routes app in JVM mode, as the README runs it ({@code java -jar routes/target/quarkus-app/quarkus-run.jar}): wall
 * time until Quarkus reports it started, Quarkus's own figure, and resident memory (VmRSS) once it has idled for 3 s.
 * Each is measured on the local sandbox (started inside the app, as the README's command does) and on a cluster
 * elsewhere (a sandbox in the bench's JVM, given to the app by a kubeconfig), and with what the JDKs offer for start:
 * a class-data-sharing archive of the app's classes (JDK 17's AppCDS, {@code -XX:ArchiveClassesAtExit}, written by one
 * training start) and JDK 25's AOT cache ({@code -XX:AOTCacheOutput}, likewise), when JDK 25 is installed. The
 * sandbox's own start (its {@code SandboxMain}, in a JVM of its own) is measured apart.
 */
final class StartupBench {
    private static final Pattern STARTED = Pattern.compile("started in ([0-9.]+)s");
    /** JDK 25, where this machine has it (see the env notes); the AOT-cache rows are left out without it. */
    static final Path JDK25 = Path.of(System.getProperty("bench.jdk25", "/usr/lib/jvm/temurin-25-jdk-amd64"));

    /** One start: how the app was run, its figures. */
    record Start(String setting, double wallSeconds, double quarkusSeconds, double rssMib) {
    }

    private final Path jar;
    private final Path work;

    private StartupBench(Path jar) throws Exception {
        this.jar = jar;
        this.work = Files.createTempDirectory("routes-app-start");
    }

    /** Every variant, or an empty list when the routes app is not built. */
    static List<Start> measure(Path projectRoot) throws Exception {
        Path jar = projectRoot.resolve("routes/target/quarkus-app/quarkus-run.jar");
        if (!Files.exists(jar)) {
            return List.of();
        }
        StartupBench bench = new StartupBench(jar);
        List<Start> starts = new ArrayList<>();
        try (TrainerSandbox elsewhere = TrainerSandbox.start()) {
            Path kubeconfig = elsewhere.writeKubeconfig(bench.work.resolve("cluster.kubeconfig"));
            for (boolean local : new boolean[] {true, false}) {
                String where = local ? "local sandbox in the app" : "cluster elsewhere";
                Path java = Path.of(System.getProperty("java.home"), "bin", "java");
                starts.add(bench.start(where + ", JDK 17", java, List.of(), local, kubeconfig));
                Path archive = bench.work.resolve((local ? "local" : "cluster") + ".jsa");
                bench.start("training", java, List.of("-XX:ArchiveClassesAtExit=" + archive), local, kubeconfig);
                starts.add(bench.start(where + ", JDK 17 + AppCDS", java, List.of("-XX:SharedArchiveFile=" + archive),
                        local, kubeconfig));
                Path java25 = JDK25.resolve("bin/java");
                if (Files.isExecutable(java25)) {
                    starts.add(bench.start(where + ", JDK 25", java25, List.of(), local, kubeconfig));
                    Path cache = bench.work.resolve((local ? "local" : "cluster") + ".aot");
                    bench.start("training", java25, List.of("-XX:AOTCacheOutput=" + cache), local, kubeconfig);
                    starts.add(bench.start(where + ", JDK 25 + AOT cache", java25, List.of("-XX:AOTCache=" + cache),
                            local, kubeconfig));
                }
            }
        }
        starts.add(bench.sandboxAlone());
        return starts;
    }

    private Start start(String setting, Path java, List<String> options, boolean local, Path kubeconfig)
            throws Exception {
        List<String> command = new ArrayList<>(List.of(java.toString()));
        command.addAll(options);
        command.addAll(List.of("-jar", jar.toString()));
        ProcessBuilder builder = new ProcessBuilder(command).directory(work.toFile()).redirectErrorStream(true);
        builder.environment().put("TRAINER_CLUSTER", local ? "sandbox" : "cluster");
        if (!local) {
            builder.environment().put("KUBECONFIG", kubeconfig.toString());
        }
        // the README's command binds 8080; any free port here
        builder.environment().put("QUARKUS_HTTP_PORT", "0");
        return run(setting, builder, STARTED);
    }

    /** SandboxMain in a JVM of its own, on the bench's class path: until it says where it listens. */
    private Start sandboxAlone() throws Exception {
        ProcessBuilder builder = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), "io.camelkubeflow.trainer.sandbox.SandboxMain",
                "--kubeconfig=" + work.resolve("alone.kubeconfig")).directory(work.toFile()).redirectErrorStream(true);
        return run("the sandbox alone (SandboxMain), JDK 17", builder, Pattern.compile("(sandbox listening)"));
    }

    private static Start run(String setting, ProcessBuilder builder, Pattern ready) throws Exception {
        long started = System.nanoTime();
        Process app = builder.start();
        try (BufferedReader out = new BufferedReader(new InputStreamReader(app.getInputStream(),
                StandardCharsets.UTF_8))) {
            String line;
            StringBuilder said = new StringBuilder();
            while ((line = out.readLine()) != null) {
                said.append(line).append('\n');
                Matcher matcher = ready.matcher(line);
                if (matcher.find()) {
                    double wall = (System.nanoTime() - started) / 1e9;
                    double own = matcher.group(1).matches("[0-9.]+") ? Double.parseDouble(matcher.group(1))
                            : Double.NaN;
                    Thread.sleep(3000);
                    double rssMib = rssKib(app.pid()) / 1024.0;
                    // the rest of the output is read so the process never blocks on a full pipe while it stops
                    Thread drain = new Thread(() -> {
                        try {
                            out.transferTo(java.io.Writer.nullWriter());
                        } catch (java.io.IOException ignored) {
                            // the process ended
                        }
                    });
                    drain.setDaemon(true);
                    drain.start();
                    return new Start(setting, wall, own, rssMib);
                }
            }
            throw new IllegalStateException(setting + ": exited without starting:\n" + said);
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
