package io.camelkubeflow.trainer.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.function.Predicate;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The bench on the real control plane at its smoke sizes ({@code -Dbench.smoke=true}, set by the module's failsafe
 * configuration with {@code -Dbench.target=testcluster}): it starts testcluster/up.sh, runs every section of that
 * target once, small, with the real Kubeflow SDK beside the component, and stops the cluster. No figure is held to a
 * goal here (a time depends on the machine): what fails is a section that no longer runs, a row that is missing or
 * not measured, a TrainJob of the scale section that never completes, a request of the storm lost or made twice, or
 * a result published twice; and of the storm under Kueue's quota, more jobs admitted at once than the quota, a job
 * that does not complete, or one whose statuses the events consumer heard out of order.
 */
class BenchOnRealControlPlaneIT {
    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

    /**
     * The Kubeflow SDK from PyPI, pinned (bench/sdk/requirements.txt), made where -Dbench.sdk.python points when that
     * is the module's own environment (make_venv.py replaces a folder it did not make: never one given from outside).
     */
    @BeforeAll
    static void makeTheSdkEnvironment() throws Exception {
        Path python =
                Path.of(System.getProperty("bench.sdk.python")).toAbsolutePath().normalize();
        Path venv = ROOT.resolve("bench/target/kubeflow-sdk-venv");
        if (python.startsWith(venv)) {
            Process make = new ProcessBuilder(
                            System.getProperty("python3", "python3"),
                            ROOT.resolve("routes/src/test/schemathesis/make_venv.py")
                                    .toString(),
                            venv.toString(),
                            ROOT.resolve("bench/sdk/requirements.txt").toString())
                    .inheritIO()
                    .start();
            assertEquals(0, make.waitFor(), "making the Kubeflow SDK's environment");
        }
        assertTrue(Files.isExecutable(python), python + " is not there");
    }

    @Test
    void everySectionRunsOnTheRealControlPlaneBesideTheKubeflowSdk() throws Exception {
        List<Result> results = Benchmarks.run(ROOT);

        for (String waiter : List.of("component", "SDK request pattern", PythonSdk.NAME)) {
            assertMeasured(results, "wait notice lag p99", ", " + waiter);
            // counted at the API server: a waiter that made no request was not counted at all
            assertTrue(value(results, "API requests per wait", "50 waits, " + waiter) > 0, waiter + "'s requests");
        }
        for (String creator : List.of("component", "SDK request pattern (baseline)", "raw POST (the physical limit)")) {
            assertMeasured(results, "create throughput", "8 producers, inline script, " + creator);
        }
        assertMeasured(results, "create throughput", "8 producers, " + PythonSdk.NAME);
        for (String part : List.of("dryRun=All", "ConfigMap")) {
            assertMeasured(results, "create throughput, where it waits", part);
        }
        for (String reader : List.of("component", PythonSdk.NAME, "SDK pattern", "raw GET, no timestamps")) {
            // the setting starts with the target's name: ", follow" is not the end of ", no follow"
            assertMeasured(results, "log read throughput", "real control plane, follow, all 4 ranks, 4 MB", reader);
            assertMeasured(results, "log read throughput", "real control plane, no follow, node 0, 1 MB", reader);
        }
        assertEquals(500, value(results, "TrainJobs Complete", "500 TrainJobs"), "every TrainJob completed");
        assertEquals(500, value(results, "jobs noticed by the events consumer", "500 TrainJobs"), "events");
        assertEquals(500, value(results, "jobs noticed by their waits", "500 TrainJobs"), "waits");
        for (String measure : List.of(
                "events consumer lag p99", "wait notice lag p99", Benchmarks.HEAP, "the Trainer's writes per second")) {
            assertMeasured(results, measure, "500 TrainJobs");
        }
        String storm = "200 Kafka requests";
        assertEquals(200, value(results, "storm: requests that became a TrainJob or a dead letter", storm), "storm");
        assertEquals(0, value(results, "storm: TrainJobs made twice for one request", storm), "storm");
        assertEquals(
                200,
                value(results, "storm: TrainJobs whose result was published", storm)
                        + value(results, "storm: dead letters", storm),
                "storm results");
        assertEquals(0, value(results, "storm: results published twice", storm), "storm");
        for (String measure : List.of(
                "storm: request to TrainJob created p99",
                "storm: peak resident memory, the survivor",
                "storm: peak resident memory, the killed replica")) {
            assertMeasured(results, measure, storm);
        }
        String kueue = "with Kueue, 40 Kafka requests";
        assertEquals(
                40,
                value(results, "kueue storm: requests that became a TrainJob or a dead letter", kueue),
                "kueue storm");
        assertEquals(0, value(results, "kueue storm: TrainJobs made twice for one request", kueue), "kueue storm");
        double most = value(results, "kueue storm: most jobs holding quota at once", kueue);
        assertTrue(most >= 1 && most <= KueueStormBench.ADMITTED_AT_ONCE, "Kueue held " + most + " at once");
        // every request is valid: each one TrainJob, none a dead letter
        assertEquals(40, value(results, "kueue storm: TrainJobs Complete", kueue), "kueue storm");
        assertEquals(40, value(results, "kueue storm: TrainJobs whose result was published", kueue), "kueue storm");
        assertEquals(0, value(results, "kueue storm: results published twice", kueue), "kueue storm");
        assertEquals(
                40,
                value(results, "kueue storm: jobs whose statuses the events consumer heard in order", kueue),
                "kueue storm: statuses in order");
    }

    /** A row of the measure whose setting holds every part exists, and its value is a number. */
    private static void assertMeasured(List<Result> results, String measure, String... settingParts) {
        List<Result> rows = rows(results, measure, settingParts);
        assertFalse(rows.isEmpty(), "no row '" + measure + "' for " + List.of(settingParts));
        rows.forEach(r -> assertFalse(Double.isNaN(r.value()) || Double.isInfinite(r.value()), "not measured: " + r));
    }

    /** The value of the one row of the measure whose setting holds every part. */
    private static double value(List<Result> results, String measure, String... settingParts) {
        List<Result> rows = rows(results, measure, settingParts);
        assertEquals(1, rows.size(), "rows '" + measure + "' for " + List.of(settingParts) + ": " + rows);
        return rows.get(0).value();
    }

    private static List<Result> rows(List<Result> results, String measure, String... settingParts) {
        Predicate<Result> wanted = r ->
                r.measure().equals(measure) && List.of(settingParts).stream().allMatch(r.setting()::contains);
        return results.stream().filter(wanted).toList();
    }
}
