package io.camelkubeflow.trainer.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.camelkubeflow.trainer.api.TrainJob;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.ZipEntry;
import java.util.zip.ZipOutputStream;
import org.apache.camel.Exchange;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Training that really crosses nodes on the real control plane: every pod in a network namespace of its own on the
 * test cluster's bridge, JobSet's headless Service names resolved by CoreDNS, Debian's {@code torchrun} (torch 1.13,
 * gloo) making its rendezvous from the Trainer's {@code PET_*} variables, and Open MPI's {@code mpirun} reaching the
 * node pods' {@code sshd} with the Secret and hostfile the Trainer made. Every rank's log is read through
 * {@code kubeflow-trainer:logs?logStep=all&follow=true} to its end.
 */
class DistributedTrainingIT {
    /** The seed's image: a team's own DeepSpeed build in its own registry, a name no rule of anyone's knows. */
    static final String CUSTOM_IMAGE = "registry.example.com/team/custom-deepspeed:1.0";

    private static RealCluster cluster;
    /** Stands for the images' files: the node agent runs every container on this machine, as any user. */
    private static Path image;

    @BeforeAll
    static void start() throws Exception {
        cluster = RealCluster.start(DistributedTrainingIT.class);
        // the MPI images run as mpiuser (uid 1000): the code must be readable by it, as in an image
        image = Files.createTempDirectory(
                "distributed-it", PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwxr-xr-x")));
        write("ddp.py", """
                import socket, torch, torch.distributed as dist
                dist.init_process_group("gloo")
                value = torch.tensor([float(dist.get_rank() + 1)])
                dist.all_reduce(value)
                print(f"ddp rank {dist.get_rank()} of {dist.get_world_size()} on {socket.gethostname()}:"
                      f" all-reduced {value.item()}", flush=True)
                dist.destroy_process_group()
                """);
        write("mpi_rank.py", """
                import socket
                from mpi4py import MPI
                world = MPI.COMM_WORLD
                total = world.allreduce(world.Get_rank() + 1)
                print(f"mpi rank {world.Get_rank()} of {world.Get_size()} on {socket.gethostname()}:"
                      f" all-reduced {total}", flush=True)
                """);
        write("xgb_rank.py", """
                import os, socket
                import numpy as np
                from xgboost import collective
                env = {k: os.environ[k] for k in ("DMLC_TRACKER_URI", "DMLC_TRACKER_PORT", "DMLC_TASK_ID",
                                                   "DMLC_NUM_WORKER")}
                task, workers = int(env["DMLC_TASK_ID"]), int(env["DMLC_NUM_WORKER"])
                if task == 0:
                    # the Trainer points every worker at task 0's name: the tracker runs there, ranking by task
                    from xgboost.tracker import RabitTracker
                    tracker = RabitTracker(host_ip="0.0.0.0", n_workers=workers, port=int(env["DMLC_TRACKER_PORT"]),
                                           sortby="task")
                    tracker.start(workers)
                with collective.CommunicatorContext(**env):
                    total = collective.allreduce(np.array([task + 1.0]), collective.Op.SUM)
                    print(f"xgboost rank {collective.get_rank()} of {collective.get_world_size()} on"
                          f" {socket.gethostname()}: all-reduced {total[0]}", flush=True)
                if task == 0:
                    tracker.join()
                """);
        write("jax_rank.py", """
                import os, socket
                import jax
                import numpy as np
                from jax.experimental import multihost_utils
                jax.distributed.initialize(coordinator_address=os.environ["JAX_COORDINATOR_ADDRESS"],
                                           num_processes=int(os.environ["JAX_NUM_PROCESSES"]),
                                           process_id=int(os.environ["JAX_PROCESS_ID"]))
                total = multihost_utils.process_allgather(np.array([jax.process_index() + 1.0])).sum()
                print(f"jax rank {jax.process_index()} of {jax.process_count()} on {socket.gethostname()}:"
                      f" all-reduced {total}", flush=True)
                jax.distributed.shutdown()
                """);
        write("network.py", """
                import errno, os, socket
                peer = os.environ["PET_MASTER_ADDR"]
                print("rank", os.environ["PET_NODE_RANK"], "is", socket.gethostname(), "at",
                      socket.gethostbyname(socket.gethostname()), "and finds", peer, "at", socket.gethostbyname(peer))
                try:
                    socket.gethostbyname("pypi.org")
                    print("pypi.org resolves")
                except socket.gaierror:
                    print("pypi.org does not resolve")
                try:
                    socket.create_connection(("192.0.2.1", 443), timeout=5).close()
                    print("the outside is reachable")
                except OSError as e:
                    print("the outside is", errno.errorcode.get(e.errno, e))
                """);
        write("fail_rank.py", """
                import sys, torch.distributed as dist
                dist.init_process_group("gloo")
                if dist.get_rank() == 1:
                    print("rank 1 fails", flush=True)
                    sys.exit(3)
                """);
        // the first seed's runtime: the Trainer's DeepSpeed runtime as a team copies it into its namespace, with its
        // own image and without the framework label, so neither the label nor the image name says MPI; mlPolicy does
        cluster.deriveRuntime("deepspeed-distributed", "custom-deepspeed", false, spec -> replaceImage(spec));
        cluster.deriveRuntime("torch-distributed", "torch-no-retries", true, RealCluster.backoffLimit(0));
    }

    @AfterAll
    static void stop() {
        cluster.close();
    }

    private static void write(String name, String content) throws IOException {
        Path file = image.resolve(name);
        Files.writeString(file, content);
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-r--r--"));
    }

    @SuppressWarnings("unchecked")
    private static void replaceImage(Map<String, Object> spec) {
        Map<String, Object> replaced = Serialization.unmarshal(
                Serialization.asJson(spec).replace("ghcr.io/kubeflow/trainer/deepspeed-runtime", CUSTOM_IMAGE),
                Map.class);
        spec.clear();
        spec.putAll(replaced);
    }

    /** Trains, follows every rank's log to its end, and waits for the end: the job's last exchange and its log. */
    private record Run(Exchange trained, Exchange done, String log) {}

    private static Run run(String options, boolean mustComplete) throws Exception {
        Exchange trained = cluster.request("kubeflow-trainer:train?" + options, null);
        // the wait runs beside the follow, as a route does: it sees the pods before the Job controller deletes them
        Future<Exchange> following =
                cluster.template.asyncSend("kubeflow-trainer:logs?follow=true&logStep=all", trained.copy());
        Exchange done = cluster.template.send(
                "kubeflow-trainer:wait?waitFor=Complete&waitTimeout=240s" + "&throwOnFailure=false", trained.copy());
        Exchange logs = following.get(60, TimeUnit.SECONDS);
        assertNull(logs.getException(), () -> String.valueOf(logs.getException()));
        String log = logs.getMessage().getBody(String.class);
        if (mustComplete) {
            assertEquals(
                    "Complete",
                    done.getMessage().getHeader("CamelKubeflowTrainerStatus"),
                    () -> done.getMessage().getHeaders() + "\n" + log);
        }
        return new Run(trained, done, log);
    }

    /** The host of each rank that printed "PREFIX rank R of W on HOST: all-reduced V", by rank. */
    private static Map<Integer, String> ranks(String log, String prefix, int world, String reduced) {
        Map<Integer, String> hosts = new TreeMap<>();
        Matcher m = Pattern.compile(prefix + " rank (\\d+) of (\\d+) on ([a-z0-9.-]+): all-reduced ([0-9.]+)")
                .matcher(log);
        while (m.find()) {
            assertEquals(String.valueOf(world), m.group(2), m.group());
            assertEquals(reduced, m.group(4), m.group());
            hosts.put(Integer.valueOf(m.group(1)), m.group(3));
        }
        return hosts;
    }

    @Test
    @Timeout(300)
    void torchDdpAllReducesAcrossTwoNodesOfTwoProcessesThroughTheRendezvousTorchrunMakes() throws Exception {
        Run run = run(
                "runtime=torch-distributed&numNodes=2&numProcPerNode=2&pythonFile=" + image.resolve("ddp.py"), true);
        Map<Integer, String> hosts = ranks(run.log(), "ddp", 4, "10.0");
        assertEquals(List.of(0, 1, 2, 3), List.copyOf(hosts.keySet()), run.log());
        String job = run.trained().getMessage().getHeader("CamelKubeflowTrainerJobName", String.class);
        // two processes on each node pod: ranks 0 and 1 on node 0, 2 and 3 on node 1
        assertEquals(job + "-node-0-0", hosts.get(0));
        assertEquals(job + "-node-0-0", hosts.get(1));
        assertEquals(job + "-node-0-1", hosts.get(2));
        assertEquals(job + "-node-0-1", hosts.get(3));
    }

    /**
     * XGBoost's collective through the tracker rank 0 runs where the Trainer's DMLC_TRACKER_URI points, and JAX's
     * process_allgather through the coordinator its JAX_COORDINATOR_ADDRESS names: each framework's own start-up.
     */
    @ParameterizedTest(name = "{0}")
    @CsvSource({"xgboost-distributed, xgb_rank.py, xgboost", "jax-distributed, jax_rank.py, jax"})
    @Timeout(300)
    void theFrameworksOfThePlainPythonRuntimesAllReduceAcrossTwoNodes(String runtime, String file, String prefix)
            throws Exception {
        Run run = run("runtime=" + runtime + "&numNodes=2&pythonFile=" + image.resolve(file), true);
        String job = run.trained().getMessage().getHeader("CamelKubeflowTrainerJobName", String.class);
        assertEquals(Map.of(0, job + "-node-0-0", 1, job + "-node-0-1"), ranks(run.log(), prefix, 2, "3.0"), run.log());
    }

    @Test
    @Timeout(300)
    void eachPodHasItsAddressAndNameFindsItsPeersByTheHeadlessServiceAndReachesNothingElse() throws Exception {
        Run run = run("runtime=torch-distributed&numNodes=2&command=python3 " + image.resolve("network.py"), true);
        String job = run.trained().getMessage().getHeader("CamelKubeflowTrainerJobName", String.class);
        Map<String, String> podIps = new TreeMap<>();
        cluster.admin
                .pods()
                .inNamespace(cluster.namespace)
                .withLabel("jobset.sigs.k8s.io/jobset-name", job)
                .list()
                .getItems()
                .forEach(pod ->
                        podIps.put(pod.getSpec().getHostname(), pod.getStatus().getPodIP()));
        String first = podIps.get(job + "-node-0-0");
        String second = podIps.get(job + "-node-0-1");
        assertTrue(
                first != null && second != null && !first.equals(second) && !first.startsWith("127."),
                podIps::toString);
        // each pod's own name gives its own address (the kubelet's /etc/hosts); the peer's comes from CoreDNS
        String master = job + "-node-0-0." + job;
        assertTrue(
                run.log()
                        .contains(
                                "rank 0 is " + job + "-node-0-0 at " + first + " and finds " + master + " at " + first),
                run.log());
        assertTrue(
                run.log()
                        .contains("rank 1 is " + job + "-node-0-1 at " + second + " and finds " + master + " at "
                                + first),
                run.log());
        // no route out and no name from outside the cluster, on either node
        assertEquals(
                2,
                run.log()
                        .lines()
                        .filter(line -> line.endsWith("pypi.org does not resolve"))
                        .count(),
                run.log());
        assertEquals(
                2,
                run.log()
                        .lines()
                        .filter(line -> line.endsWith("the outside is ENETUNREACH"))
                        .count(),
                run.log());
    }

    @Test
    @Timeout(300)
    void theFirstSeedACustomImageMpiRuntimeRunsItsRanksOnBothNodePodsOverSsh() throws Exception {
        Run run = run(
                "runtime=custom-deepspeed&runtimeKind=TrainingRuntime&numNodes=2&pythonFile="
                        + image.resolve("mpi_rank.py"),
                true);
        assertEquals("mpirun", run.trained().getMessage().getHeader("CamelKubeflowTrainerLauncherChosen"));
        assertEquals("ML_POLICY", run.trained().getMessage().getHeader("CamelKubeflowTrainerLauncherRule"));
        String reason = run.trained().getMessage().getHeader("CamelKubeflowTrainerLauncherReason", String.class);
        assertTrue(reason.contains("mlPolicy.mpi"), reason);
        String job = run.trained().getMessage().getHeader("CamelKubeflowTrainerJobName", String.class);
        // runLauncherAsNode: the launcher is one node, the node pod the other; mpirun reached it over ssh
        assertEquals(
                Map.of(0, job + "-launcher-0-0", 1, job + "-node-0-0"), ranks(run.log(), "mpi", 2, "3"), run.log());
    }

    @Test
    @Timeout(300)
    void onTheSameRuntimeTheTorchrunJobThePreFixSdkWroteRunsWithoutItsRanksOnTheOtherNode() throws Exception {
        // what the SDK wrote before the fix: the custom image's name matched no rule, so torchrun
        Run run = run(
                "runtime=custom-deepspeed&runtimeKind=TrainingRuntime&numNodes=2&launcher=torchrun" + "&pythonFile="
                        + image.resolve("mpi_rank.py"),
                false);
        String job = run.trained().getMessage().getHeader("CamelKubeflowTrainerJobName", String.class);
        Map<Integer, String> hosts = ranks(run.log(), "mpi", 1, "1");
        // one process in the launcher, alone in its world: nothing ran on the node pod
        assertEquals(Map.of(0, job + "-launcher-0-0"), hosts, run.log());
        assertTrue(!run.log().contains(job + "-node-0-0:"), run.log());
    }

    @Test
    @Timeout(300)
    void theSecondSeedAnMpiCommandWithPackagesInstallsThemForTheUserOnEveryNodeFromAWheelOffline() throws Exception {
        Path wheels = Files.createDirectory(image.resolve("wheels"));
        wheel(wheels.resolve("seedpkg-1.0-py3-none-any.whl"));
        Run run = run(
                "runtime=custom-deepspeed&runtimeKind=TrainingRuntime&numNodes=2&packages=seedpkg"
                        + "&env.PIP_NO_INDEX=1&env.PIP_FIND_LINKS=" + wheels
                        + "&command=python -c \"import seedpkg, site, socket; print('imported', seedpkg.NAME, 'from the user"
                        + " site', seedpkg.__file__.startswith(site.getusersitepackages()), 'on', socket.gethostname())\"",
                true);
        String job = run.trained().getMessage().getHeader("CamelKubeflowTrainerJobName", String.class);
        assertTrue(
                run.log().contains("imported seedpkg from the user site True on " + job + "-launcher-0-0"), run.log());
        assertTrue(run.log().contains("imported seedpkg from the user site True on " + job + "-node-0-0"), run.log());
    }

    @Test
    @Timeout(300)
    void anMpiWorkspaceIsUnpackedOnEveryNodeBeforeItsRankStarts() throws Exception {
        Path project = Files.createDirectory(image.resolve("project"));
        Files.writeString(project.resolve("train.py"), """
                import os, socket
                from helper import greeting
                print(greeting(), "rank", os.environ["OMPI_COMM_WORLD_RANK"], "on", socket.gethostname(), flush=True)
                """);
        Files.writeString(project.resolve("helper.py"), "def greeting():\n    return 'workspace'\n");
        Run run = run(
                "runtime=custom-deepspeed&runtimeKind=TrainingRuntime&numNodes=2&workspace=" + project
                        + "&pythonFile=train.py",
                true);
        String job = run.trained().getMessage().getHeader("CamelKubeflowTrainerJobName", String.class);
        assertTrue(run.log().contains("workspace rank 0 on " + job + "-launcher-0-0"), run.log());
        assertTrue(run.log().contains("workspace rank 1 on " + job + "-node-0-0"), run.log());
    }

    @Test
    @Timeout(300)
    void anMpiCommandWithoutPackagesRunsUnwrappedOnEveryRank() throws Exception {
        Run run = run(
                "runtime=custom-deepspeed&runtimeKind=TrainingRuntime&numNodes=2&command=python "
                        + image.resolve("mpi_rank.py"),
                true);
        TrainJob job = run.done().getMessage().getBody(TrainJob.class);
        assertEquals(
                List.of(
                        "mpirun",
                        "--hostfile",
                        "/etc/mpi/hostfile",
                        "python",
                        image.resolve("mpi_rank.py").toString()),
                job.getSpec().trainer().command());
        assertEquals(2, ranks(run.log(), "mpi", 2, "3").size(), run.log());
    }

    @Test
    @Timeout(300)
    void aRankThatFailsFailsTheTrainJobAndWaitNamesThePodAndItsExitCode() throws Exception {
        Run run = run(
                "runtime=torch-no-retries&runtimeKind=TrainingRuntime&numNodes=2&numProcPerNode=1" + "&pythonFile="
                        + image.resolve("fail_rank.py"),
                false);
        assertEquals("Failed", run.done().getMessage().getHeader("CamelKubeflowTrainerStatus"));
        String failure = run.done().getMessage().getHeader("CamelKubeflowTrainerPodFailure", String.class);
        String job = run.trained().getMessage().getHeader("CamelKubeflowTrainerJobName", String.class);
        // torchrun ends with 1 when a worker fails, on the node that ran rank 1 (one process a node: node 1)
        assertTrue(
                failure != null && failure.contains(job + "-node-0-1") && failure.contains("exited with code 1"),
                failure + "\n" + run.log());
        assertTrue(run.log().contains("rank 1 fails"), run.log());
    }

    /** A wheel of one module, as pip wheel would make it, built here: no index is reached. */
    private static void wheel(Path file) throws IOException {
        Map<String, String> entries = new LinkedHashMap<>();
        entries.put("seedpkg/__init__.py", "NAME = 'seedpkg'\n");
        entries.put("seedpkg-1.0.dist-info/METADATA", "Metadata-Version: 2.1\nName: seedpkg\nVersion: 1.0\n");
        entries.put(
                "seedpkg-1.0.dist-info/WHEEL",
                "Wheel-Version: 1.0\nGenerator: e2e\nRoot-Is-Purelib: true\n" + "Tag: py3-none-any\n");
        entries.put("seedpkg-1.0.dist-info/RECORD", "");
        try (OutputStream out = Files.newOutputStream(file);
                ZipOutputStream zip = new ZipOutputStream(out)) {
            for (Map.Entry<String, String> entry : entries.entrySet()) {
                zip.putNextEntry(new ZipEntry(entry.getKey()));
                zip.write(entry.getValue().getBytes(StandardCharsets.UTF_8));
                zip.closeEntry();
            }
        }
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-r--r--"));
    }
}
