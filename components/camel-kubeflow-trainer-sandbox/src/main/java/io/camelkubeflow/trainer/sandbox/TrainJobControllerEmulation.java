package io.camelkubeflow.trainer.sandbox;

import java.time.Duration;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An emulation of what the Kubeflow Trainer controller and JobSet do with a TrainJob, for the local sandbox: it makes
 * the pods JobSet would make (same names and labels), moves them Pending, Running, then Succeeded or Failed, and
 * writes the TrainJob's jobsStatus and conditions as the v2.3 controller does (Complete/AllJobsCompleted,
 * Failed/FailedJobs, Suspended/Suspended and Resumed), and writes pod logs (a start line, "step=i of n" lines spread
 * over the run, an exit line). It runs no code, except, when asked to, a staged Python script, once, with the local
 * python3 ({@link StagedScriptRunner}): its output is the trainer pod's log and its exit code the job's outcome.
 * Otherwise a job's outcome, run time and log length come from the annotations
 * {@value #OUTCOME_ANNOTATION} (Complete or Failed), {@value #RUN_MILLIS_ANNOTATION} and {@value #LOG_LINES_ANNOTATION}.
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
    /** How often a pod waiting for a missing ConfigMap volume looks for it again. */
    private static final Duration MOUNT_RETRY = Duration.ofMillis(100);
    public static final String JOBSET_NAME_LABEL = "jobset.sigs.k8s.io/jobset-name";
    public static final String REPLICATED_JOB_LABEL = "jobset.sigs.k8s.io/replicatedjob-name";
    public static final String COMPLETION_INDEX_LABEL = "batch.kubernetes.io/job-completion-index";
    static final ResourceDefinitionContext TRAINJOBS = context("TrainJob", "trainjobs", true);

    private final KubernetesClient client;
    private final Duration startDelay;
    private final Duration defaultRunTime;
    private final ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread thread = new Thread(r, "trainer-sandbox-controller");
        thread.setDaemon(true);
        return thread;
    });
    /** uid of every TrainJob already started, so informer resyncs and status updates never start it twice. */
    private final Set<String> started = ConcurrentHashMap.newKeySet();
    private final SharedIndexInformer<GenericKubernetesResource> informer;

    /** The User-Agent of the emulated controller's requests, so counts of a client's requests can leave them out. */
    public static final String USER_AGENT = "trainer-sandbox-controller";

    private final PodLogs podLogs;
    private final boolean runScripts;
    private final java.util.concurrent.ExecutorService scriptRunners = Executors.newCachedThreadPool(r -> {
        Thread thread = new Thread(r, "trainer-sandbox-script");
        thread.setDaemon(true);
        return thread;
    });

    TrainJobControllerEmulation(KubernetesClient sandboxClient, PodLogs podLogs, Duration startDelay,
            Duration defaultRunTime, boolean runScripts) {
        this.podLogs = podLogs;
        this.runScripts = runScripts;
        this.client = new KubernetesClientBuilder().withConfig(new ConfigBuilder(sandboxClient.getConfiguration())
                .withUserAgent(USER_AGENT).build()).build();
        this.startDelay = startDelay;
        this.defaultRunTime = defaultRunTime;
        this.informer = client.genericKubernetesResources(TRAINJOBS).inAnyNamespace().inform(new Handler());
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
        }
    }

    private void reconcile(GenericKubernetesResource job) {
        Map<String, Object> spec = map(job.getAdditionalProperties().get("spec"));
        boolean suspended = Boolean.TRUE.equals(spec.get("suspend"));
        boolean suspendedCondition = hasCondition(job, "Suspended", "True");
        if (suspended && !suspendedCondition && !started.contains(job.getMetadata().getUid())) {
            scheduler.execute(() -> setCondition(job, "Suspended", "True", "Suspended", "TrainJob is suspended"));
        } else if (!suspended && !isFinished(job) && started.add(job.getMetadata().getUid())) {
            if (suspendedCondition) {
                scheduler.execute(() -> setCondition(job, "Suspended", "False", "Resumed", "TrainJob is resumed"));
            }
            scheduler.execute(() -> start(job));
        }
    }

    private void start(GenericKubernetesResource job) {
        try {
            List<Pod> pods = createPods(job);
            scheduler.schedule(() -> run(job, pods), startDelay.toMillis(), TimeUnit.MILLISECONDS);
        } catch (RuntimeException e) {
            LOG.warn("Sandbox controller could not start TrainJob {}: {}", job.getMetadata().getName(), e.getMessage());
        }
    }

    /** The pods JobSet makes: one per index of each replicated job, named and labelled like JobSet's. */
    private List<Pod> createPods(GenericKubernetesResource job) {
        String namespace = job.getMetadata().getNamespace();
        String name = job.getMetadata().getName();
        GenericKubernetesResource runtime = runtime(job);
        Map<String, Object> runtimeSpec = map(runtime.getAdditionalProperties().get("spec"));
        Map<String, Object> mlPolicy = map(runtimeSpec.get("mlPolicy"));
        Map<String, Object> trainer = map(map(job.getAdditionalProperties().get("spec")).get("trainer"));
        int numNodes = number(trainer.get("numNodes"), number(mlPolicy.get("numNodes"), 1));
        boolean mpi = mlPolicy.containsKey("mpi");
        List<Pod> pods = new ArrayList<>();
        for (Object item : list(map(map(runtimeSpec.get("template")).get("spec")).get("replicatedJobs"))) {
            Map<String, Object> replicatedJob = map(item);
            String jobName = (String) replicatedJob.get("name");
            int count = "node".equals(jobName) ? (mpi ? Math.max(numNodes - 1, 1) : numNodes) : 1;
            Map<String, Object> podSpec = map(map(map(map(replicatedJob.get("template")).get("spec")).get("template"))
                    .get("spec"));
            String container = (String) map(list(podSpec.get("containers")).get(0)).get("name");
            for (int index = 0; index < count; index++) {
                Pod pod = new PodBuilder().withNewMetadata()
                        .withName(name + "-" + jobName + "-0-" + index + "-" + UUID.randomUUID().toString().substring(0, 5))
                        .withNamespace(namespace)
                        .addToLabels(JOBSET_NAME_LABEL, name)
                        .addToLabels(REPLICATED_JOB_LABEL, jobName)
                        .addToLabels(COMPLETION_INDEX_LABEL, Integer.toString(index))
                        .endMetadata()
                        .withNewSpec().addNewContainer().withName(container).withImage("sandbox").endContainer().endSpec()
                        .withNewStatus().withPhase("Pending").endStatus()
                        .build();
                podLogs.create(namespace, pod.getMetadata().getName());
                pods.add(client.pods().inNamespace(namespace).resource(pod).create());
            }
        }
        return pods;
    }

    private void run(GenericKubernetesResource job, List<Pod> pods) {
        try {
            String namespace = job.getMetadata().getNamespace();
            if (StagedScriptRunner.mountedConfigMaps(job).stream()
                    .anyMatch(name -> client.configMaps().inNamespace(namespace).withName(name).get() == null)) {
                if (client.genericKubernetesResources(TRAINJOBS).inNamespace(namespace)
                        .withName(job.getMetadata().getName()).get() == null) {
                    return;
                }
                // as a kubelet does: a pod whose ConfigMap volume is missing stays Pending and mounts it once it exists
                scheduler.schedule(() -> run(job, pods), MOUNT_RETRY.toMillis(), TimeUnit.MILLISECONDS);
                return;
            }
            for (Pod pod : pods) {
                setPodPhase(pod, "Running", null);
            }
            updateJobsStatus(job, pods, "active");
            Map<String, String> annotations = annotations(job);
            long runMillis = annotations.containsKey(RUN_MILLIS_ANNOTATION)
                    ? Long.parseLong(annotations.get(RUN_MILLIS_ANNOTATION)) : defaultRunTime.toMillis();
            boolean fail = "Failed".equalsIgnoreCase(annotations.get(OUTCOME_ANNOTATION));
            int exitCode = Integer.parseInt(annotations.getOrDefault(EXIT_CODE_ANNOTATION, "1"));
            int steps = Integer.parseInt(annotations.getOrDefault(LOG_LINES_ANNOTATION, "10"));
            Optional<StagedScriptRunner.Script> script = runScripts ? StagedScriptRunner.find(client, job)
                    : Optional.empty();
            if (script.isPresent()) {
                runScript(job, pods, script.get());
                return;
            }
            for (Pod pod : pods) {
                log(pod, "sandbox: " + pod.getMetadata().getName() + " started (no code runs in the sandbox)");
            }
            boolean reportProgress = reportsProgress(job);
            for (int step = 1; step <= steps; step++) {
                int line = step;
                long at = runMillis * step / (steps + 1);
                scheduler.schedule(() -> {
                    pods.forEach(pod -> log(pod, "step=" + line + " of " + steps));
                    if (reportProgress) {
                        reportProgress(job, 100 * line / (steps + 1), (runMillis - at) / 1000, 1.0 / line);
                    }
                }, at, TimeUnit.MILLISECONDS);
            }
            int restarts = Integer.parseInt(annotations.getOrDefault(RESTARTS_ANNOTATION, "0"));
            long statusDelay = Long.parseLong(annotations.getOrDefault(RESTART_STATUS_DELAY_ANNOTATION, "0"));
            Pod trainer = trainerPod(pods);
            for (int attempt = 1; attempt <= restarts && trainer != null; attempt++) {
                int restart = attempt;
                // between two step lines, so each attempt's log ends with lines only its previous log holds
                long at = runMillis * (2L * attempt * steps / (restarts + 1) + 1) / (2L * (steps + 1));
                scheduler.schedule(() -> restartContainer(trainer, restart, statusDelay), at, TimeUnit.MILLISECONDS);
            }
            scheduler.schedule(() -> finish(job, pods, fail, exitCode), runMillis, TimeUnit.MILLISECONDS);
        } catch (RuntimeException e) {
            LOG.warn("Sandbox controller could not run TrainJob {}: {}", job.getMetadata().getName(), e.getMessage());
        }
    }

    private void finish(GenericKubernetesResource job, List<Pod> pods, boolean fail, int exitCode) {
        try {
            // the trainer step fails: the MPI launcher if there is one, else the first node
            Pod failing = fail ? trainerPod(pods) : null;
            for (Pod pod : pods) {
                int code = pod == failing ? exitCode : 0;
                log(pod, "sandbox: exited with code " + code);
                setPodPhase(pod, pod == failing ? "Failed" : "Succeeded", code);
            }
            updateJobsStatus(job, pods, fail ? "failed" : "succeeded");
            if (fail) {
                setCondition(job, "Failed", "True", "FailedJobs", "jobset failed (first failed job: "
                        + job.getMetadata().getName() + "-" + (failing == null ? "node" : replicatedJob(failing)) + "-0)");
            } else {
                if (reportsProgress(job)) {
                    reportProgress(job, 100, 0, 0.05);
                }
                setCondition(job, "Complete", "True", "AllJobsCompleted", "jobset completed successfully");
            }
        } catch (RuntimeException e) {
            LOG.warn("Sandbox controller could not finish TrainJob {}: {}", job.getMetadata().getName(), e.getMessage());
        }
    }

    /** Runs the staged script on a thread of its own; the trainer pod's log is the script's output. */
    private void runScript(GenericKubernetesResource job, List<Pod> pods, StagedScriptRunner.Script script) {
        Pod trainer = trainerPod(pods);
        for (Pod pod : pods) {
            log(pod, "sandbox: " + pod.getMetadata().getName() + (pod == trainer
                    ? " runs " + script.fileName() + " with the local python3 (one process)" : " started"));
        }
        scriptRunners.execute(() -> {
            int exitCode = StagedScriptRunner.run(script, line -> log(trainer, line));
            scheduler.execute(() -> finish(job, pods, exitCode != 0, exitCode));
        });
    }

    /** The pod of the trainer step: the MPI launcher if there is one, else the first node. */
    private static Pod trainerPod(List<Pod> pods) {
        return pods.stream().filter(p -> "launcher".equals(replicatedJob(p))).findFirst()
                .or(() -> pods.stream().filter(p -> "node".equals(replicatedJob(p))).findFirst()).orElse(null);
    }

    /** The container crashes and a new one starts logging; the pod's status says so {@code statusDelay} ms later. */
    private void restartContainer(Pod pod, int attempt, long statusDelay) {
        log(pod, "sandbox: crashed (attempt " + attempt + ")");
        podLogs.restart(pod.getMetadata().getNamespace(), pod.getMetadata().getName());
        log(pod, "sandbox: restarted (attempt " + (attempt + 1) + ")");
        String finishedAt = now();
        scheduler.schedule(() -> {
            try {
                client.pods().inNamespace(pod.getMetadata().getNamespace()).withName(pod.getMetadata().getName())
                        .editStatus(p -> new PodBuilder(p).editStatus().editFirstContainerStatus()
                                .withRestartCount(attempt)
                                .withNewLastState().withNewTerminated().withExitCode(1).withReason("Error")
                                .withFinishedAt(finishedAt).endTerminated().endLastState()
                                .endContainerStatus().endStatus().build());
            } catch (RuntimeException e) {
                LOG.warn("Sandbox controller could not restart {}: {}", pod.getMetadata().getName(), e.getMessage());
            }
        }, statusDelay, TimeUnit.MILLISECONDS);
    }

    private void log(Pod pod, String line) {
        podLogs.append(pod.getMetadata().getNamespace(), pod.getMetadata().getName(), line);
    }

    private static String replicatedJob(Pod pod) {
        return pod.getMetadata().getLabels().get(REPLICATED_JOB_LABEL);
    }

    private void setPodPhase(Pod pod, String phase, Integer exitCode) {
        client.pods().inNamespace(pod.getMetadata().getNamespace()).withName(pod.getMetadata().getName())
                .editStatus(p -> {
                    String container = p.getSpec().getContainers().get(0).getName();
                    var before = p.getStatus().getContainerStatuses().isEmpty() ? null
                            : p.getStatus().getContainerStatuses().get(0);
                    PodBuilder builder = new PodBuilder(p);
                    // the kubelet's Ready condition: true while the container runs
                    builder.editStatus().withPhase(phase).withContainerStatuses().withConditions(
                            new io.fabric8.kubernetes.api.model.PodConditionBuilder().withType("Ready")
                                    .withStatus(exitCode == null ? "True" : "False")
                                    .withReason(exitCode == null ? null : "PodCompleted")
                                    .withLastTransitionTime(now()).build()).endStatus();
                    if (exitCode == null) {
                        builder.editStatus().addNewContainerStatus().withName(container).withReady(true)
                                .withNewState().withNewRunning().withStartedAt(now()).endRunning().endState()
                                .endContainerStatus().endStatus();
                    } else {
                        builder.editStatus().addNewContainerStatus().withName(container).withReady(false)
                                .withNewState().withNewTerminated().withExitCode(exitCode)
                                .withReason(exitCode == 0 ? "Completed" : "Error").withFinishedAt(now()).endTerminated()
                                .endState().endContainerStatus().endStatus();
                    }
                    if (before != null) {
                        // a restarted container keeps its count and the crash it restarted from
                        builder.editStatus().editFirstContainerStatus().withRestartCount(before.getRestartCount())
                                .withLastState(before.getLastState()).endContainerStatus().endStatus();
                    }
                    return builder.build();
                });
    }

    @SuppressWarnings("unchecked")
    private void updateJobsStatus(GenericKubernetesResource job, List<Pod> pods, String counter) {
        Map<String, Map<String, Object>> byJob = new LinkedHashMap<>();
        for (Pod pod : pods) {
            Map<String, Object> status = byJob.computeIfAbsent(replicatedJob(pod), n -> new LinkedHashMap<>(Map.of(
                    "name", n, "active", 0, "ready", 0, "succeeded", 0, "failed", 0, "suspended", 0)));
            if ("active".equals(counter)) {
                status.merge("active", 1, (a, b) -> (Integer) a + (Integer) b);
                status.merge("ready", 1, (a, b) -> (Integer) a + (Integer) b);
            } else {
                status.merge(counter, 1, (a, b) -> (Integer) a + (Integer) b);
            }
        }
        editStatus(job, status -> status.put("jobsStatus", new ArrayList<>(byJob.values())));
    }

    /** trainerStatus as the training code would report it through the TrainJobStatus feature. */
    private void reportProgress(GenericKubernetesResource job, int percent, long remainingSeconds, double loss) {
        editStatus(job, status -> status.put("trainerStatus", new LinkedHashMap<>(Map.of(
                "progressPercentage", percent, "estimatedRemainingSeconds", remainingSeconds,
                "metrics", List.of(Map.of("name", "loss", "value", String.format(java.util.Locale.ROOT, "%.4f", loss))),
                "lastUpdatedTime", now()))));
    }

    private static boolean reportsProgress(GenericKubernetesResource job) {
        return "true".equals(annotations(job).get(REPORT_PROGRESS_ANNOTATION));
    }

    private static Map<String, String> annotations(GenericKubernetesResource job) {
        return job.getMetadata().getAnnotations() == null ? Map.of() : job.getMetadata().getAnnotations();
    }

    @SuppressWarnings("unchecked")
    private void setCondition(GenericKubernetesResource job, String type, String status, String reason, String message) {
        editStatus(job, jobStatus -> {
            List<Map<String, Object>> conditions = new ArrayList<>((List<Map<String, Object>>) jobStatus
                    .getOrDefault("conditions", List.of()));
            conditions.removeIf(c -> type.equals(c.get("type")));
            conditions.add(new LinkedHashMap<>(Map.of("type", type, "status", status, "reason", reason,
                    "message", message, "lastTransitionTime", now())));
            jobStatus.put("conditions", conditions);
        });
    }

    @SuppressWarnings("unchecked")
    private void editStatus(GenericKubernetesResource job, java.util.function.Consumer<Map<String, Object>> change) {
        try {
            client.genericKubernetesResources(TRAINJOBS).inNamespace(job.getMetadata().getNamespace())
                    .withName(job.getMetadata().getName()).editStatus(current -> {
                        Map<String, Object> status = new LinkedHashMap<>(map(current.getAdditionalProperties()
                                .get("status")));
                        change.accept(status);
                        current.getAdditionalProperties().put("status", status);
                        return current;
                    });
        } catch (KubernetesClientException e) {
            LOG.debug("TrainJob {} changed or vanished under the sandbox controller: {}", job.getMetadata().getName(),
                    e.getMessage());
        }
    }

    private GenericKubernetesResource runtime(GenericKubernetesResource job) {
        Map<String, Object> ref = map(map(job.getAdditionalProperties().get("spec")).get("runtimeRef"));
        boolean namespaced = "TrainingRuntime".equals(ref.get("kind"));
        ResourceDefinitionContext context = namespaced ? context("TrainingRuntime", "trainingruntimes", true)
                : context("ClusterTrainingRuntime", "clustertrainingruntimes", false);
        GenericKubernetesResource runtime = namespaced
                ? client.genericKubernetesResources(context).inNamespace(job.getMetadata().getNamespace())
                        .withName((String) ref.get("name")).get()
                : client.genericKubernetesResources(context).withName((String) ref.get("name")).get();
        if (runtime == null) {
            throw new IllegalStateException("runtime " + ref.get("name") + " not found");
        }
        return runtime;
    }

    private static boolean isFinished(GenericKubernetesResource job) {
        return hasCondition(job, "Complete", "True") || hasCondition(job, "Failed", "True");
    }

    private static boolean hasCondition(GenericKubernetesResource job, String type, String status) {
        return list(map(job.getAdditionalProperties().get("status")).get("conditions")).stream()
                .map(TrainJobControllerEmulation::map)
                .anyMatch(c -> type.equals(c.get("type")) && status.equals(c.get("status")));
    }

    static ResourceDefinitionContext context(String kind, String plural, boolean namespaced) {
        return new ResourceDefinitionContext.Builder().withGroup("trainer.kubeflow.org").withVersion("v1alpha1")
                .withKind(kind).withPlural(plural).withNamespaced(namespaced).build();
    }

    private static String now() {
        return OffsetDateTime.now(ZoneOffset.UTC).truncatedTo(ChronoUnit.SECONDS).format(DateTimeFormatter.ISO_OFFSET_DATE_TIME);
    }

    private static int number(Object value, int fallback) {
        return value instanceof Number n ? n.intValue() : fallback;
    }

    @SuppressWarnings("unchecked")
    static Map<String, Object> map(Object value) {
        return value instanceof Map ? (Map<String, Object>) value : Map.of();
    }

    static List<?> list(Object value) {
        return value instanceof List ? (List<?>) value : List.of();
    }

    @Override
    public void close() {
        informer.close();
        scheduler.shutdownNow();
        scriptRunners.shutdownNow();
        client.close();
    }
}
