package io.camelkubeflow.trainer.sandbox.cluster;

import static io.camelkubeflow.trainer.sandbox.cluster.ControllerWrites.annotations;
import static io.camelkubeflow.trainer.sandbox.cluster.ControllerWrites.counted;
import static io.camelkubeflow.trainer.sandbox.cluster.ControllerWrites.hasCondition;
import static io.camelkubeflow.trainer.sandbox.cluster.ControllerWrites.isFinished;
import static io.camelkubeflow.trainer.sandbox.cluster.ControllerWrites.jobCounts;
import static io.camelkubeflow.trainer.sandbox.cluster.ControllerWrites.merged;
import static io.camelkubeflow.trainer.sandbox.cluster.ControllerWrites.reportsProgress;
import static io.camelkubeflow.trainer.sandbox.store.JsonMaps.list;
import static io.camelkubeflow.trainer.sandbox.store.JsonMaps.map;

import io.camelkubeflow.trainer.sandbox.http.PodLogs;
import io.fabric8.kubernetes.api.model.DeletionPropagation;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiFunction;
import java.util.function.Consumer;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An emulation of what the Kubeflow Trainer controller, JobSet, the Job controller and a kubelet do with a TrainJob,
 * for the local sandbox: it makes the JobSet, Jobs and pods they would make (same names, labels and owner
 * references; pods rendered by {@link PodRendering}; initializers before the jobs that depend on them), moves the pods
 * Pending, Running, then Succeeded or Failed as a kubelet reports them, records their Events, writes the TrainJob's
 * jobsStatus and conditions as the v2.3 controller does (Complete/AllJobsCompleted, Failed/FailedJobs,
 * Failed/DeadlineExceeded, Suspended/Suspended and Resumed) and the JobSet's and Jobs' status, and writes pod logs (a
 * start line, "step=i of n" lines spread over the run, an exit line). It runs no code, except, when asked to, a staged
 * Python script with the local python3, one process per node ({@link StagedScriptRunner}): their output is the pods'
 * logs and their exit codes the job's outcome. Otherwise a job's outcome, run time and log length come from the
 * annotations {@value #OUTCOME_ANNOTATION} (Complete or Failed), {@value #RUN_MILLIS_ANNOTATION} and
 * {@value #LOG_LINES_ANNOTATION}.
 */
public final class TrainJobControllerEmulation implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(TrainJobControllerEmulation.class);
    public static final String OUTCOME_ANNOTATION = "sandbox.camelkubeflow.io/outcome";
    public static final String RUN_MILLIS_ANNOTATION = "sandbox.camelkubeflow.io/run-millis";
    public static final String EXIT_CODE_ANNOTATION = "sandbox.camelkubeflow.io/exit-code";
    /** How many times the trainer pod's container crashes and is restarted during the run (default 0). */
    public static final String RESTARTS_ANNOTATION = "sandbox.camelkubeflow.io/restarts";
    /**
     * How long after a restarted container starts logging its pod's status reports the restart (restartCount, the
     * crashed attempt as lastState), default 0: a kubelet reports it some time after the new container runs.
     */
    public static final String RESTART_STATUS_DELAY_ANNOTATION = "sandbox.camelkubeflow.io/restart-status-delay-millis";
    /** How many "step=i of n" lines each pod logs while it runs (default 10). */
    public static final String LOG_LINES_ANNOTATION = "sandbox.camelkubeflow.io/log-lines";
    /**
     * "true": the job's training code reports its progress, as with the TrainJobStatus feature gate: at each step
     * line the controller writes trainerStatus (percentage, remaining seconds, a loss metric), and 100% at the end.
     */
    public static final String REPORT_PROGRESS_ANNOTATION = "sandbox.camelkubeflow.io/report-progress";
    /** How long an initializer runs in the sandbox before it completes. */
    private static final long INITIALIZER_MILLIS = 100;
    /** How often a pod waiting for a missing ConfigMap volume looks for it again. */
    private static final Duration MOUNT_RETRY = Duration.ofMillis(100);

    public static final String JOBSET_NAME_LABEL = "jobset.sigs.k8s.io/jobset-name";
    public static final String REPLICATED_JOB_LABEL = "jobset.sigs.k8s.io/replicatedjob-name";
    public static final String COMPLETION_INDEX_LABEL = "batch.kubernetes.io/job-completion-index";
    static final ResourceDefinitionContext TRAINJOBS = context("TrainJob", "trainjobs", true);

    private final KubernetesClient client;
    private final Duration startDelay;
    private final Duration defaultRunTime;
    /**
     * One thread, as a controller's work queue. Once closed it takes no new work and drops what was scheduled for
     * later, as a stopped controller manager does; {@link #close} lets the write under way finish first.
     */
    private final ScheduledThreadPoolExecutor scheduler = closingQuietly(new ScheduledThreadPoolExecutor(
            1,
            r -> {
                Thread thread = new Thread(r, "trainer-sandbox-controller");
                thread.setDaemon(true);
                return thread;
            },
            new ThreadPoolExecutor.DiscardPolicy()));

    /** How long {@link #close} waits for the write under way: one request to the local API server. */
    private static final Duration CLOSE_GRACE = Duration.ofSeconds(10);
    /** uid of every TrainJob already started, so informer resyncs and status updates never start it twice. */
    private final Set<String> started = ConcurrentHashMap.newKeySet();
    /** uid of every TrainJob whose run has ended (finished, or failed at its deadline), so it ends once. */
    private final Set<String> ended = ConcurrentHashMap.newKeySet();

    private final SharedIndexInformer<GenericKubernetesResource> informer;

    /** The User-Agent of the emulated controller's requests, so counts of a client's requests can leave them out. */
    public static final String USER_AGENT = "trainer-sandbox-controller";

    private final boolean runScripts;
    private final ControllerWrites writes;
    private final Kubelet kubelet;
    private final JobSetEmulation jobSets;
    private final ExecutorService scriptRunners = Executors.newCachedThreadPool(r -> {
        Thread thread = new Thread(r, "trainer-sandbox-script");
        thread.setDaemon(true);
        return thread;
    });

    public TrainJobControllerEmulation(
            KubernetesClient sandboxClient,
            PodLogs podLogs,
            Duration startDelay,
            Duration defaultRunTime,
            boolean runScripts) {
        this.runScripts = runScripts;
        this.client = new KubernetesClientBuilder()
                .withConfig(new ConfigBuilder(sandboxClient.getConfiguration())
                        .withUserAgent(USER_AGENT)
                        .build())
                .build();
        this.startDelay = startDelay;
        this.defaultRunTime = defaultRunTime;
        this.writes = new ControllerWrites(client);
        this.kubelet = new Kubelet(client, podLogs, scheduler);
        this.jobSets = new JobSetEmulation(client, podLogs, writes);
        this.informer =
                client.genericKubernetesResources(TRAINJOBS).inAnyNamespace().inform(new Handler());
    }

    private final class Handler implements ResourceEventHandler<GenericKubernetesResource> {
        @Override
        public void onAdd(GenericKubernetesResource job) {
            reconcile(job);
        }

        @Override
        public void onUpdate(GenericKubernetesResource old, GenericKubernetesResource job) {
            reconcile(job);
        }

        @Override
        public void onDelete(GenericKubernetesResource job, boolean unknown) {
            started.remove(job.getMetadata().getUid());
            ended.remove(job.getMetadata().getUid());
        }
    }

    private void reconcile(GenericKubernetesResource job) {
        Map<String, Object> spec = map(job.getAdditionalProperties().get("spec"));
        boolean suspended = Boolean.TRUE.equals(spec.get("suspend"));
        boolean suspendedCondition = hasCondition(job, "Suspended", "True");
        if (suspended
                && !suspendedCondition
                && !started.contains(job.getMetadata().getUid())) {
            scheduler.execute(() -> suspend(job));
        } else if (!suspended
                && !isFinished(job)
                && started.add(job.getMetadata().getUid())) {
            if (suspendedCondition) {
                scheduler.execute(
                        () -> writes.setCondition(job, "Suspended", "False", "Resumed", "TrainJob is resumed"));
            }
            scheduler.execute(() -> start(job));
        }
    }

    /**
     * What the Trainer and JobSet do with a TrainJob created suspended: its JobSet is made, suspended, so no pod
     * starts; the job says so in its Suspended condition, then, in a status write of its own (the Trainer reports the
     * JobSet's status after its conditions), counts each replicated job's Jobs as suspended.
     */
    private void suspend(GenericKubernetesResource job) {
        try {
            GenericKubernetesResource jobSet = jobSets.createJobSet(job);
            writes.setCondition(job, "Suspended", "True", "Suspended", "TrainJob is suspended");
            Map<String, Map<String, Object>> byJob = new LinkedHashMap<>();
            for (Object item :
                    list(map(jobSet.getAdditionalProperties().get("spec")).get("replicatedJobs"))) {
                String name = (String) map(item).get("name");
                byJob.put(
                        name,
                        new LinkedHashMap<>(Map.of(
                                "name",
                                name,
                                "active",
                                0,
                                "ready",
                                0,
                                "succeeded",
                                0,
                                "failed",
                                0,
                                "suspended",
                                number(map(item).get("replicas"), 1))));
            }
            writes.editStatus(job, status -> status.put("jobsStatus", merged(status.get("jobsStatus"), byJob)));
        } catch (RuntimeException e) {
            LOG.warn(
                    "Sandbox controller could not suspend TrainJob {}: {}",
                    job.getMetadata().getName(),
                    e.getMessage());
        }
    }

    private void start(GenericKubernetesResource job) {
        try {
            GenericKubernetesResource jobSet = jobSets.createJobSet(job);
            Set<String> awaited = awaitedJobs(jobSet);
            if (!awaited.isEmpty()) {
                List<Pod> initializers = jobSets.createPods(job, jobSet, awaited::contains);
                scheduler.schedule(
                        () -> initialize(job, jobSet, initializers, awaited),
                        startDelay.toMillis(),
                        TimeUnit.MILLISECONDS);
                return;
            }
            List<Pod> pods = jobSets.createPods(job, jobSet, name -> true);
            scheduler.schedule(() -> run(job, pods), startDelay.toMillis(), TimeUnit.MILLISECONDS);
            Object deadline = map(job.getAdditionalProperties().get("spec")).get("activeDeadlineSeconds");
            if (deadline instanceof Number seconds) {
                scheduler.schedule(() -> exceedDeadline(job, pods), seconds.longValue(), TimeUnit.SECONDS);
            }
        } catch (RuntimeException e) {
            LOG.warn(
                    "Sandbox controller could not start TrainJob {}: {}",
                    job.getMetadata().getName(),
                    e.getMessage());
        }
    }

    /**
     * The replicated jobs others wait for with JobSet's {@code dependsOn: [{status: Complete}]} (the initializers): JobSet
     * creates the waiting jobs only once these complete.
     */
    private static Set<String> awaitedJobs(GenericKubernetesResource jobSet) {
        Set<String> awaited = new LinkedHashSet<>();
        for (Object item :
                list(map(jobSet.getAdditionalProperties().get("spec")).get("replicatedJobs"))) {
            for (Object dependency : list(map(item).get("dependsOn"))) {
                if ("Complete".equals(map(dependency).get("status"))) {
                    awaited.add((String) map(dependency).get("name"));
                }
            }
        }
        return awaited;
    }

    /**
     * Runs the initializers (each logs the storage it fetched and completes), then, as JobSet does once they are
     * Complete, creates the jobs that depended on them and runs those.
     */
    private void initialize(
            GenericKubernetesResource job,
            GenericKubernetesResource jobSet,
            List<Pod> initializers,
            Set<String> awaited) {
        try {
            for (Pod pod : initializers) {
                kubelet.setPodPhase(pod, "Running", null);
                String uri = pod.getSpec().getContainers().get(0).getEnv().stream()
                        .filter(e -> "STORAGE_URI".equals(e.getName()))
                        .map(EnvVar::getValue)
                        .findFirst()
                        .orElse("nothing");
                kubelet.log(
                        pod,
                        "sandbox: " + pod.getMetadata().getName() + " fetched " + uri
                                + " (nothing is downloaded in the sandbox)");
            }
            writes.updateJobsStatus(job, initializers, "active");
            scheduler.schedule(
                    () -> {
                        try {
                            initializers.forEach(
                                    pod -> kubelet.exit(pod, "sandbox: exited with code 0", "Succeeded", 0));
                            writes.updateJobsStatus(job, initializers, "succeeded");
                            if (ended.contains(job.getMetadata().getUid())
                                    || client.genericKubernetesResources(TRAINJOBS)
                                                    .inNamespace(
                                                            job.getMetadata().getNamespace())
                                                    .withName(job.getMetadata().getName())
                                                    .get()
                                            == null) {
                                return;
                            }
                            List<Pod> pods = jobSets.createPods(job, jobSet, name -> !awaited.contains(name));
                            scheduler.schedule(() -> run(job, pods), startDelay.toMillis(), TimeUnit.MILLISECONDS);
                        } catch (RuntimeException e) {
                            LOG.warn(
                                    "Sandbox controller could not start the trainer of {}: {}",
                                    job.getMetadata().getName(),
                                    e.getMessage());
                        }
                    },
                    INITIALIZER_MILLIS,
                    TimeUnit.MILLISECONDS);
        } catch (RuntimeException e) {
            LOG.warn(
                    "Sandbox controller could not initialize TrainJob {}: {}",
                    job.getMetadata().getName(),
                    e.getMessage());
        }
    }

    private void run(GenericKubernetesResource job, List<Pod> pods) {
        try {
            String namespace = job.getMetadata().getNamespace();
            if (StagedScriptRunner.mountedConfigMaps(job).stream()
                    .anyMatch(name -> client.configMaps()
                                    .inNamespace(namespace)
                                    .withName(name)
                                    .get()
                            == null)) {
                if (client.genericKubernetesResources(TRAINJOBS)
                                .inNamespace(namespace)
                                .withName(job.getMetadata().getName())
                                .get()
                        == null) {
                    return;
                }
                // as a kubelet does: a pod whose ConfigMap volume is missing stays Pending and mounts it once it exists
                scheduler.schedule(() -> run(job, pods), MOUNT_RETRY.toMillis(), TimeUnit.MILLISECONDS);
                return;
            }
            for (Pod pod : pods) {
                kubelet.setPodPhase(pod, "Running", null);
                String image = pod.getSpec().getContainers().get(0).getImage();
                writes.podEvent(
                        pod,
                        "Normal",
                        "Scheduled",
                        "Successfully assigned " + namespace + "/"
                                + pod.getMetadata().getName() + " to sandbox-node",
                        "default-scheduler");
                writes.podEvent(
                        pod,
                        "Normal",
                        "Pulled",
                        "Container image \"" + image + "\" already present on machine",
                        "kubelet");
                // the kubelet of Kubernetes 1.36 no longer names the container in these two messages
                writes.podEvent(pod, "Normal", "Created", "Container created", "kubelet");
                writes.podEvent(pod, "Normal", "Started", "Container started", "kubelet");
            }
            writes.updateJobsStatus(job, pods, "active");
            Map<String, String> annotations = annotations(job);
            long runMillis = annotations.containsKey(RUN_MILLIS_ANNOTATION)
                    ? Long.parseLong(annotations.get(RUN_MILLIS_ANNOTATION))
                    : defaultRunTime.toMillis();
            boolean fail = "Failed".equalsIgnoreCase(annotations.get(OUTCOME_ANNOTATION));
            int exitCode = Integer.parseInt(annotations.getOrDefault(EXIT_CODE_ANNOTATION, "1"));
            int steps = Integer.parseInt(annotations.getOrDefault(LOG_LINES_ANNOTATION, "10"));
            if (runScripts && PodProcess.readsStagedArchive(client, trainerPod(pods))) {
                runOnNodes(
                        job,
                        pods,
                        "its container's command (reading its staged archive)",
                        (pod, log) -> PodProcess.run(client, pod, log));
                return;
            }
            Optional<StagedScriptRunner.Script> script =
                    runScripts ? StagedScriptRunner.find(client, job) : Optional.empty();
            if (script.isPresent()) {
                runOnNodes(
                        job,
                        pods,
                        script.get().fileName() + " with the local python3",
                        (pod, log) -> StagedScriptRunner.run(client, script.get(), pod, log));
                return;
            }
            for (Pod pod : pods) {
                kubelet.log(pod, "sandbox: " + pod.getMetadata().getName() + " started (no code runs in the sandbox)");
            }
            boolean reportProgress = reportsProgress(job);
            for (int step = 1; step <= steps; step++) {
                int line = step;
                long at = runMillis * step / (steps + 1);
                scheduler.schedule(
                        () -> {
                            pods.forEach(pod -> kubelet.log(pod, "step=" + line + " of " + steps));
                            if (reportProgress) {
                                writes.reportProgress(
                                        job, 100 * line / (steps + 1), (runMillis - at) / 1000, 1.0 / line);
                            }
                        },
                        at,
                        TimeUnit.MILLISECONDS);
            }
            int restarts = Integer.parseInt(annotations.getOrDefault(RESTARTS_ANNOTATION, "0"));
            long statusDelay = Long.parseLong(annotations.getOrDefault(RESTART_STATUS_DELAY_ANNOTATION, "0"));
            Pod trainer = trainerPod(pods);
            for (int attempt = 1; attempt <= restarts && trainer != null; attempt++) {
                int restart = attempt;
                // between two step lines, so each attempt's log ends with lines only its previous log holds
                long at = runMillis * (2L * attempt * steps / (restarts + 1) + 1) / (2L * (steps + 1));
                scheduler.schedule(
                        () -> kubelet.restartContainer(trainer, restart, statusDelay), at, TimeUnit.MILLISECONDS);
            }
            scheduler.schedule(() -> finish(job, pods, fail, exitCode), runMillis, TimeUnit.MILLISECONDS);
        } catch (RuntimeException e) {
            LOG.warn(
                    "Sandbox controller could not run TrainJob {}: {}",
                    job.getMetadata().getName(),
                    e.getMessage());
        }
    }

    /**
     * What the Trainer v2.3 does when a TrainJob outlives its activeDeadlineSeconds (seen on the real control plane):
     * it fails with reason DeadlineExceeded and deletes its JobSet, whose Jobs and pods the garbage collector takes;
     * jobsStatus keeps what it last said.
     */
    private void exceedDeadline(GenericKubernetesResource job, List<Pod> pods) {
        if (!ended.add(job.getMetadata().getUid())) {
            return;
        }
        try {
            writes.setCondition(job, "Failed", "True", "DeadlineExceeded", "TrainJob exceeded its active deadline");
            client.genericKubernetesResources(JobSetObjects.JOBSETS)
                    .inNamespace(job.getMetadata().getNamespace())
                    .withName(job.getMetadata().getName())
                    .delete();
        } catch (RuntimeException e) {
            LOG.warn(
                    "Sandbox controller could not end TrainJob {} at its deadline: {}",
                    job.getMetadata().getName(),
                    e.getMessage());
        }
    }

    private void finish(GenericKubernetesResource job, List<Pod> pods, boolean fail, int exitCode) {
        if (!ended.add(job.getMetadata().getUid())) {
            return;
        }
        try {
            if (fail) {
                fail(job, pods, exitCode);
                return;
            }
            for (Pod pod : pods) {
                kubelet.exit(pod, "sandbox: exited with code 0", "Succeeded", 0);
            }
            writes.updateJobsStatus(job, pods, "succeeded");
            String namespace = job.getMetadata().getNamespace();
            pods.stream()
                    .collect(Collectors.toMap(
                            pod -> replicatedJob(pod), pod -> pod, (first, second) -> first, LinkedHashMap::new))
                    .values()
                    .forEach(pod -> writes.jobEvent(pod, "Normal", "Completed", "Job completed"));
            writes.event(
                    namespace,
                    "JobSet",
                    "jobset.x-k8s.io/v1alpha2",
                    job.getMetadata().getName(),
                    "",
                    "Normal",
                    "AllJobsCompleted",
                    "jobset completed successfully",
                    "jobset");
            if (reportsProgress(job)) {
                writes.reportProgress(job, 100, 0, 0.05);
            }
            writes.endJobSet(job, true, "AllJobsCompleted", "jobset completed successfully");
            writes.setCondition(job, "Complete", "True", "AllJobsCompleted", "jobset completed successfully");
        } catch (RuntimeException e) {
            LOG.warn(
                    "Sandbox controller could not finish TrainJob {}: {}",
                    job.getMetadata().getName(),
                    e.getMessage());
        }
    }

    /**
     * The trainer step fails (the MPI launcher if there is one, else the first node) and the job ends as on the real
     * control plane: under the pods' restartPolicy OnFailure the kubelet restarts the failed container until its Job
     * reaches the backoff limit (the Job's default 6: the Trainer's runtimes set none) — compressed here to the one
     * run, the status reporting its exit — then the Job controller deletes the Job's active pods and marks it Failed;
     * JobSet fails and deletes its other active Jobs (their pods with them); the Trainer marks the TrainJob Failed. No
     * pod is left, and every log went with its pod, as on a cluster (seen on kube-apiserver 1.36, Trainer v2.3.0 and
     * JobSet v0.12.0: the pods were gone a second before the TrainJob said Failed).
     */
    private void fail(GenericKubernetesResource job, List<Pod> pods, int exitCode) {
        String namespace = job.getMetadata().getNamespace();
        Pod failed = Objects.requireNonNullElse(trainerPod(pods), pods.get(0));
        String failedJob = failed.getMetadata().getLabels().get("batch.kubernetes.io/job-name");
        // the container exits; under OnFailure the pod is not terminal, the kubelet backs off restarting it
        kubelet.exit(failed, "sandbox: exited with code " + exitCode, "Running", exitCode);
        writes.podEvent(
                failed,
                "Warning",
                "BackOff",
                "Back-off restarting failed container "
                        + failed.getSpec().getContainers().get(0).getName() + " in pod "
                        + failed.getMetadata().getName()
                        + "_" + namespace + "(" + failed.getMetadata().getUid() + ")",
                "kubelet");
        // the Job controller at the backoff limit: the Job's active pods deleted, then the Job Failed
        List<Pod> ofFailedJob = pods.stream()
                .filter(pod -> replicatedJob(pod).equals(replicatedJob(failed)))
                .toList();
        for (Pod pod : ofFailedJob) {
            client.pods()
                    .inNamespace(namespace)
                    .withName(pod.getMetadata().getName())
                    .delete();
            writes.jobEvent(
                    pod,
                    "Normal",
                    "SuccessfulDelete",
                    "Deleted pod: " + pod.getMetadata().getName());
        }
        writes.jobEvent(failed, "Warning", "BackoffLimitExceeded", "Job has reached the specified backoff limit");
        writes.editJobStatus(job, replicatedJob(failed), counted("failed", ofFailedJob.size()), "failed");
        // JobSet fails and deletes its other active Jobs, with their pods; the Trainer reports both
        String message = "jobset failed due to one or more job failures (first failed job: " + failedJob + ")";
        Map<String, Map<String, Object>> byJob = new LinkedHashMap<>();
        for (Pod pod : pods) {
            String replicated = replicatedJob(pod);
            if (!replicated.equals(replicatedJob(failed)) && !byJob.containsKey(replicated)) {
                client.batch()
                        .v1()
                        .jobs()
                        .inNamespace(namespace)
                        .withName(pod.getMetadata().getLabels().get("batch.kubernetes.io/job-name"))
                        .withPropagationPolicy(DeletionPropagation.FOREGROUND)
                        .delete();
            }
            byJob.put(replicated, jobCounts(replicated, replicated.equals(replicatedJob(failed)) ? "failed" : null));
        }
        writes.editStatus(
                job,
                JobSetObjects.JOBSETS,
                status -> status.put("replicatedJobsStatus", merged(status.get("replicatedJobsStatus"), byJob)));
        writes.endJobSet(job, false, "FailedJobs", message);
        writes.event(
                namespace,
                "JobSet",
                "jobset.x-k8s.io/v1alpha2",
                job.getMetadata().getName(),
                "",
                "Warning",
                "FailedJobs",
                message,
                "jobset");
        writes.editStatus(job, TRAINJOBS, status -> status.put("jobsStatus", merged(status.get("jobsStatus"), byJob)));
        writes.setCondition(job, "Failed", "True", "FailedJobs", message);
    }

    /**
     * Runs staged code as the pods would: one local process per trainer node (the MPI launcher alone when there is
     * one: mpirun is not emulated), each with its pod's env resolved (trainer env, PET_*, its node rank), its output
     * that pod's log. The job fails when a process fails (the trainer step reports the first failure's exit code).
     */
    private void runOnNodes(
            GenericKubernetesResource job,
            List<Pod> pods,
            String what,
            BiFunction<Pod, Consumer<String>, Integer> process) {
        Pod trainer = trainerPod(pods);
        List<Pod> runners = "launcher".equals(replicatedJob(trainer))
                ? List.of(trainer)
                : pods.stream().filter(p -> "node".equals(replicatedJob(p))).toList();
        for (Pod pod : pods) {
            kubelet.log(
                    pod,
                    "sandbox: " + pod.getMetadata().getName() + (runners.contains(pod) ? " runs " + what : " started"));
        }
        AtomicInteger running = new AtomicInteger(runners.size());
        AtomicInteger firstFailure = new AtomicInteger();
        for (Pod runner : runners) {
            scriptRunners.execute(() -> {
                int exitCode = PodProcess.containerExit(
                        runner,
                        process.apply(runner, line -> kubelet.log(runner, line)),
                        line -> kubelet.log(runner, line));
                if (exitCode != 0) {
                    firstFailure.compareAndSet(0, exitCode);
                }
                if (running.decrementAndGet() == 0) {
                    int failed = firstFailure.get();
                    scheduler.execute(() -> finish(job, pods, failed != 0, failed));
                }
            });
        }
    }

    /** The pod of the trainer step: the MPI launcher if there is one, else the first node. */
    private static Pod trainerPod(List<Pod> pods) {
        return pods.stream()
                .filter(p -> "launcher".equals(replicatedJob(p)))
                .findFirst()
                .or(() -> pods.stream()
                        .filter(p -> "node".equals(replicatedJob(p)))
                        .findFirst())
                .orElse(null);
    }

    static String replicatedJob(Pod pod) {
        return pod.getMetadata().getLabels().get(REPLICATED_JOB_LABEL);
    }

    static ResourceDefinitionContext context(String kind, String plural, boolean namespaced) {
        return new ResourceDefinitionContext.Builder()
                .withGroup("trainer.kubeflow.org")
                .withVersion("v1alpha1")
                .withKind(kind)
                .withPlural(plural)
                .withNamespaced(namespaced)
                .build();
    }

    static int number(Object value, int fallback) {
        return value instanceof Number n ? n.intValue() : fallback;
    }

    private static ScheduledThreadPoolExecutor closingQuietly(ScheduledThreadPoolExecutor executor) {
        executor.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
        executor.setContinueExistingPeriodicTasksAfterShutdownPolicy(false);
        return executor;
    }

    /**
     * Stops watching, lets the task under way end (it takes no new one and drops what was scheduled for later), then
     * stops the scripts and closes the client: closed under a request in flight, the client's HTTP layer logs an ERROR
     * and the task fails half written.
     */
    @Override
    public void close() {
        closeWithin(CLOSE_GRACE);
    }

    /**
     * Closes without waiting for the task under way, which is interrupted: for when the API server is away and nothing
     * under way could finish (its requests only retry).
     */
    public void closeNow() {
        closeWithin(Duration.ZERO);
    }

    private void closeWithin(Duration grace) {
        informer.close();
        scheduler.shutdown();
        try {
            if (!scheduler.awaitTermination(grace.toMillis(), TimeUnit.MILLISECONDS) && !grace.isZero()) {
                LOG.warn("Sandbox controller: a task still ran {} s after close; it is interrupted", grace.toSeconds());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            scheduler.shutdownNow();
            scriptRunners.shutdownNow();
            client.close();
        }
    }
}
