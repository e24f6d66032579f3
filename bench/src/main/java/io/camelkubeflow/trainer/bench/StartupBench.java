package io.camelkubeflow.trainer.bench;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The routes app in JVM mode, as the README runs it ({@code java -jar routes/target/quarkus-app/quarkus-run.jar}) on
 * the local sandbox: wall time until Quarkus reports it started, Quarkus's own figure, and resident memory (VmRSS)
 * once it has idled for 3 s.
 */
final class StartupBench {
    private static final Pattern STARTED = Pattern.compile("started in ([0-9.]+)s");

    /** {wall seconds to started, Quarkus's started-in seconds, RSS MiB}, or null when the app is not built. */
    static double[] measure(Path projectRoot) throws Exception {
        Path jar = projectRoot.resolve("routes/target/quarkus-app/quarkus-run.jar");
        if (!Files.exists(jar)) {
            return null;
        }
        Path work = Files.createTempDirectory("routes-app-start");
        ProcessBuilder builder = new ProcessBuilder("java", "-jar", jar.toString()).directory(work.toFile())
                .redirectErrorStream(true);
        builder.environment().put("TRAINER_CLUSTER", "sandbox");
        // the README's command binds 8080; any free port here
        builder.environment().put("QUARKUS_HTTP_PORT", "0");
        long started = System.nanoTime();
        Process app = builder.start();
        try (BufferedReader out = new BufferedReader(new InputStreamReader(app.getInputStream(),
                StandardCharsets.UTF_8))) {
            String line;
            StringBuilder said = new StringBuilder();
            while ((line = out.readLine()) != null) {
                said.append(line).append('\n');
                Matcher matcher = STARTED.matcher(line);
                if (matcher.find()) {
                    double wall = (System.nanoTime() - started) / 1e9;
                    double quarkus = Double.parseDouble(matcher.group(1));
                    Thread.sleep(3000);
                    double rssMib = rssKib(app.pid()) / 1024.0;
                    return new double[] {wall, quarkus, rssMib};
                }
            }
            throw new IllegalStateException("the routes app exited without starting:\n" + said);
        } finally {
            app.destroy();
            if (!app.waitFor(30, TimeUnit.SECONDS)) {
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

    private StartupBench() {
    }
}
