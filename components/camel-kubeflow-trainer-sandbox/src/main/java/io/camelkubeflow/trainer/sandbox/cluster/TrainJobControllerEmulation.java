package io.camelkubeflow.trainer.sandbox.cluster;

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

import io.camelkubeflow.trainer.sandbox.http.PodLogs;
import io.camelkubeflow.trainer.sandbox.store.JsonMaps;
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
import io.fabric8.kubernetes.client.utils.Serialization;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import static io.camelkubeflow.trainer.sandbox.store.JsonMaps.list;
import static io.camelkubeflow.trainer.sandbox.store.JsonMaps.map;

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
    private final ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread thread = new Thread(r, "trainer-sandbox-controller");
        thread.setDaemon(true);
        return thread;
    });
    /** uid of every TrainJob already started, so informer resyncs and status updates never start it twice. */
    private final Set<String> started = ConcurrentHashMap.newKeySet();
    /** uid of every TrainJob whose run has ended (finished, or failed at its deadline), so it ends once. */
    private final Set<String> ended = ConcurrentHashMap.newKeySet();
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

    public TrainJobControllerEmulation(KubernetesClient sandboxClient, PodLogs podLogs, Duration startDelay,
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
            ended.remove(job.getMetadata().getUid());
        }
    }

    private void reconcile(GenericKubernetesResource job) {
        Map<String, Object> spec = map(job.getAdditionalProperties().get("spec"));
        boolean suspended = Boolean.TRUE.equals(spec.get("suspend"));
        boolean suspendedCondition = hasCondition(job, "Suspended", "True");
        if (suspended && !suspendedCondition && !started.contains(job.getMetadata().getUid())) {
            scheduler.execute(() -> suspend(job));
        } else if (!suspended && !isFinished(job) && started.add(job.getMetadata().getUid())) {
            if (suspendedCondition) {
                scheduler.execute(() -> setCondition(job, "Suspended", "False", "Resumed", "TrainJob is resumed"));
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
            GenericKubernetesResource jobSet = createJobSet(job);
            setCondition(job, "Suspended", "True", "Suspended", "TrainJob is suspended");
            Map<String, Map<String, Object>> byJob = new LinkedHashMap<>();
            for (Object item : list(map(jobSet.getAdditionalProperties().get("spec")).get("replicatedJobs"))) {
                String name = (String) map(item).get("name");
                byJob.put(name, new LinkedHashMap<>(Map.of("name", name, "active", 0, "ready", 0, "succeeded", 0,
                        "failed", 0, "suspended", number(map(item).get("replicas"), 1))));
            }
            editStatus(job, status -> status.put("jobsStatus", merged(status.get("jobsStatus"), byJob)));
        } catch (RuntimeException e) {
            LOG.warn("Sandbox controller could not suspend TrainJob {}: {}", job.getMetadata().getName(),
                    e.getMessage());
        }
    }

    private void start(GenericKubernetesResource job) {
        try {
            GenericKubernetesResource jobSet = createJobSet(job);
            Set<String> awaited = awaitedJobs(jobSet);
            if (!awaited.isEmpty()) {
                List<Pod> initializers = createPods(job, jobSet, awaited::contains);
                scheduler.schedule(() -> initialize(job, jobSet, initializers, awaited), startDelay.toMillis(),
                        TimeUnit.MILLISECONDS);
                return;
            }
            List<Pod> pods = createPods(job, jobSet, name -> true);
            scheduler.schedule(() -> run(job, pods), startDelay.toMillis(), TimeUnit.MILLISECONDS);
            Object deadline = map(job.getAdditionalProperties().get("spec")).get("activeDeadlineSeconds");
            if (deadline instanceof Number seconds) {
                scheduler.schedule(() -> exceedDeadline(job, pods), seconds.longValue(), TimeUnit.SECONDS);
            }
        } catch (RuntimeException e) {
            LOG.warn("Sandbox controller could not start TrainJob {}: {}", job.getMetadata().getName(), e.getMessage());
        }
    }

    /**
     * The replicated jobs others wait for with JobSet's {@code dependsOn: [{status: Complete}]} (the initializers): JobSet
     * creates the waiting jobs only once these complete.
     */
    private static Set<String> awaitedJobs(GenericKubernetesResource jobSet) {
        Set<String> awaited = new java.util.LinkedHashSet<>();
        for (Object item : list(map(jobSet.getAdditionalProperties().get("spec")).get("replicatedJobs"))) {
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
    private void initialize(GenericKubernetesResource job, GenericKubernetesResource jobSet, List<Pod> initializers,
            Set<String> awaited) {
        try {
            for (Pod pod : initializers) {
                setPodPhase(pod, "Running", null);
                String uri = pod.getSpec().getContainers().get(0).getEnv().stream()
                        .filter(e -> "STORAGE_URI".equals(e.getName())).map(io.fabric8.kubernetes.api.model.EnvVar::getValue)
                        .findFirst().orElse("nothing");
                log(pod, "sandbox: " + pod.getMetadata().getName() + " fetched " + uri
                        + " (nothing is downloaded in the sandbox)");
            }
            updateJobsStatus(job, initializers, "active");
            scheduler.schedule(() -> {
                try {
                    initializers.forEach(pod -> exit(pod, "sandbox: exited with code 0", "Succeeded", 0));
                    updateJobsStatus(job, initializers, "succeeded");
                    if (ended.contains(job.getMetadata().getUid()) || client.genericKubernetesResources(TRAINJOBS)
                            .inNamespace(job.getMetadata().getNamespace()).withName(job.getMetadata().getName())
                            .get() == null) {
                        return;
                    }
                    List<Pod> pods = createPods(job, jobSet, name -> !awaited.contains(name));
                    scheduler.schedule(() -> run(job, pods), startDelay.toMillis(), TimeUnit.MILLISECONDS);
                } catch (RuntimeException e) {
                    LOG.warn("Sandbox controller could not start the trainer of {}: {}", job.getMetadata().getName(),
                            e.getMessage());
                }
            }, INITIALIZER_MILLIS, TimeUnit.MILLISECONDS);
        } catch (RuntimeException e) {
            LOG.warn("Sandbox controller could not initialize TrainJob {}: {}", job.getMetadata().getName(),
                    e.getMessage());
        }
    }

    /** The TrainJob's JobSet, as the Trainer's jobset plugin makes it (kept if it exists: a resumed job has one). */
    private GenericKubernetesResource createJobSet(GenericKubernetesResource job) {
        Map<String, Object> runtimeSpec = map(TrainerObjects.runtime(client, job, () -> runtime(job))
                .getAdditionalProperties().get("spec"));
        TrainerObjects.writeMpi(client, job, runtimeSpec, numNodes(job, runtimeSpec));
        var jobSets = client.genericKubernetesResources(JobSetObjects.JOBSETS).inNamespace(job.getMetadata().getNamespace());
        GenericKubernetesResource existing = jobSets.withName(job.getMetadata().getName()).get();
        boolean suspended = Boolean.TRUE.equals(map(job.getAdditionalProperties().get("spec")).get("suspend"));
        if (existing != null && !suspended && Boolean.TRUE.equals(map(existing.getAdditionalProperties().get("spec"))
                .get("suspend"))) {
            // resumed: the Trainer lets JobSet go on
            return jobSets.withName(job.getMetadata().getName()).edit(jobSet -> {
                map(jobSet.getAdditionalProperties().get("spec")).put("suspend", false);
                return jobSet;
            });
        }
        return existing != null ? existing
                : jobSets.resource(JobSetObjects.jobSet(job, runtimeSpec, numNodes(job, runtimeSpec))).create();
    }

    private static int numNodes(GenericKubernetesResource job, Map<String, Object> runtimeSpec) {
        Map<String, Object> trainer = map(map(job.getAdditionalProperties().get("spec")).get("trainer"));
        return number(trainer.get("numNodes"), number(map(runtimeSpec.get("mlPolicy")).get("numNodes"), 1));
    }

    /**
     * The Jobs and pods JobSet makes from its replicated jobs' templates: a Job per replicated job, a pod per index,
     * named, labelled and owned like JobSet's.
     */
    private List<Pod> createPods(GenericKubernetesResource job, GenericKubernetesResource jobSet,
            java.util.function.Predicate<String> replicatedJobs) {
        String namespace = job.getMetadata().getNamespace();
        String name = job.getMetadata().getName();
        List<Pod> pods = new ArrayList<>();
        List<?> all = list(map(jobSet.getAdditionalProperties().get("spec")).get("replicatedJobs"));
        int globalReplicas = all.stream().mapToInt(item -> number(map(item).get("replicas"), 1)).sum();
        int globalIndex = -1;
        for (Object item : all) {
            Map<String, Object> replicatedJob = map(item);
            String jobName = (String) replicatedJob.get("name");
            // every replicated job has one Job (replicas 1, as the Trainer's runtimes have), the next global index
            globalIndex++;
            if (!replicatedJobs.test(jobName)) {
                continue;
            }
            String childJob = name + "-" + jobName + "-0";
            // JobSet's labels and annotations on the Job's pod template, each pod of it carrying them
            Map<String, String> jobSetMarks = new java.util.LinkedHashMap<>();
            jobSetMarks.put(JOBSET_NAME_LABEL, name);
            jobSetMarks.put("jobset.sigs.k8s.io/jobset-uid", jobSet.getMetadata().getUid());
            jobSetMarks.put(REPLICATED_JOB_LABEL, jobName);
            jobSetMarks.put("jobset.sigs.k8s.io/replicatedjob-replicas",
                    Integer.toString(number(replicatedJob.get("replicas"), 1)));
            jobSetMarks.put("jobset.sigs.k8s.io/global-replicas", Integer.toString(globalReplicas));
            jobSetMarks.put("jobset.sigs.k8s.io/group-name", "default");
            jobSetMarks.put("jobset.sigs.k8s.io/group-replicas", Integer.toString(globalReplicas));
            jobSetMarks.put("jobset.sigs.k8s.io/job-index", "0");
            jobSetMarks.put("jobset.sigs.k8s.io/job-group-index", Integer.toString(globalIndex));
            jobSetMarks.put("jobset.sigs.k8s.io/job-global-index", Integer.toString(globalIndex));
            jobSetMarks.put("jobset.sigs.k8s.io/job-key", sha1(namespace + "/" + childJob));
            jobSetMarks.put("jobset.sigs.k8s.io/restart-attempt", "0");
            Map<String, Object> jobSpec = map(map(replicatedJob.get("template")).get("spec"));
            Map<String, Object> podTemplate = map(jobSpec.get("template"));
            int count = number(jobSpec.get("parallelism"), 1);
            io.fabric8.kubernetes.api.model.batch.v1.Job owner = client.batch().v1().jobs().inNamespace(namespace)
                    .resource(JobSetObjects.job(jobSet, jobName)).create();
            for (int index = 0; index < count; index++) {
                Pod pod = new PodBuilder().withMetadata(Serialization.jsonMapper().convertValue(podTemplate.get("metadata"),
                        io.fabric8.kubernetes.api.model.ObjectMeta.class)).editMetadata()
                        .withName(name + "-" + jobName + "-0-" + index + "-" + UUID.randomUUID().toString().substring(0, 5))
                        .withNamespace(namespace)
                        .addToLabels(jobSetMarks)
                        .addToLabels("jobset.sigs.k8s.io/priority", "0")
                        .addToAnnotations(jobSetMarks)
                        // the Job controller's: its Job's name and uid, and the pod's index
                        .addToLabels("batch.kubernetes.io/controller-uid", owner.getMetadata().getUid())
                        .addToLabels("controller-uid", owner.getMetadata().getUid())
                        .addToLabels("batch.kubernetes.io/job-name", childJob)
                        .addToLabels("job-name", childJob)
                        .addToLabels(COMPLETION_INDEX_LABEL, Integer.toString(index))
                        .addToAnnotations(COMPLETION_INDEX_LABEL, Integer.toString(index))
                        .withOwnerReferences(JobSetObjects.ownedBy(owner))
                        .endMetadata()
                        .withSpec(Serialization.jsonMapper().convertValue(podTemplate.get("spec"),
                                io.fabric8.kubernetes.api.model.PodSpec.class))
                        .editSpec().withHostname(name + "-" + jobName + "-0-" + index).withSubdomain(name)
                        .withRestartPolicy("OnFailure").withNodeName("sandbox-node").endSpec()
                        .withNewStatus().withPhase("Pending").withQosClass("BestEffort").endStatus()
                        .build();
                asTheJobControllerAndApiServerComplete(pod.getSpec());
                podLogs.waitingToStart(namespace, pod.getMetadata().getName(),
                        pod.getSpec().getContainers().get(0).getName());
                Pod created = client.pods().inNamespace(namespace).resource(pod).create();
                pods.add(created);
                jobEvent(created, "Normal", "SuccessfulCreate", "Created pod: " + created.getMetadata().getName());
            }
        }
        return pods;
    }

    /** JobSet's job key: the SHA-1 of "namespace/job", in hex. */
    private static String sha1(String text) {
        try {
            return java.util.HexFormat.of().formatHex(java.security.MessageDigest.getInstance("SHA-1")
                    .digest(text.getBytes(java.nio.charset.StandardCharsets.UTF_8)));
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * What a pod of an Indexed Job gets on its way into the store: the Job controller gives every container its
     * completion index as JOB_COMPLETION_INDEX, and the API server's defaulting names the version of every field
     * reference ("v1").
     */
    static void asTheJobControllerAndApiServerComplete(io.fabric8.kubernetes.api.model.PodSpec spec) {
        List<io.fabric8.kubernetes.api.model.Container> containers = new ArrayList<>(spec.getInitContainers());
        containers.addAll(spec.getContainers());
        for (io.fabric8.kubernetes.api.model.Container container : containers) {
            List<io.fabric8.kubernetes.api.model.EnvVar> env = new ArrayList<>(container.getEnv());
            if (env.stream().noneMatch(var -> "JOB_COMPLETION_INDEX".equals(var.getName()))) {
                env.add(new io.fabric8.kubernetes.api.model.EnvVarBuilder().withName("JOB_COMPLETION_INDEX")
                        .withNewValueFrom().withNewFieldRef().withFieldPath("metadata.labels['"
                                + COMPLETION_INDEX_LABEL + "']").endFieldRef().endValueFrom().build());
            }
            env.stream().map(io.fabric8.kubernetes.api.model.EnvVar::getValueFrom)
                    .filter(from -> from != null && from.getFieldRef() != null
                            && from.getFieldRef().getApiVersion() == null)
                    .forEach(from -> from.getFieldRef().setApiVersion("v1"));
            container.setEnv(env);
        }
        spec.getVolumes().stream().filter(volume -> volume.getDownwardAPI() != null)
                .flatMap(volume -> volume.getDownwardAPI().getItems().stream())
                .filter(item -> item.getFieldRef() != null && item.getFieldRef().getApiVersion() == null)
                .forEach(item -> item.getFieldRef().setApiVersion("v1"));
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
                String image = pod.getSpec().getContainers().get(0).getImage();
                podEvent(pod, "Normal", "Scheduled", "Successfully assigned " + namespace + "/"
                        + pod.getMetadata().getName() + " to sandbox-node", "default-scheduler");
                podEvent(pod, "Normal", "Pulled", "Container image \"" + image + "\" already present on machine",
                        "kubelet");
                // the kubelet of Kubernetes 1.36 no longer names the container in these two messages
                podEvent(pod, "Normal", "Created", "Container created", "kubelet");
                podEvent(pod, "Normal", "Started", "Container started", "kubelet");
            }
            updateJobsStatus(job, pods, "active");
            Map<String, String> annotations = annotations(job);
            long runMillis = annotations.containsKey(RUN_MILLIS_ANNOTATION)
                    ? Long.parseLong(annotations.get(RUN_MILLIS_ANNOTATION)) : defaultRunTime.toMillis();
            boolean fail = "Failed".equalsIgnoreCase(annotations.get(OUTCOME_ANNOTATION));
            int exitCode = Integer.parseInt(annotations.getOrDefault(EXIT_CODE_ANNOTATION, "1"));
            int steps = Integer.parseInt(annotations.getOrDefault(LOG_LINES_ANNOTATION, "10"));
            if (runScripts && PodProcess.readsStagedArchive(client, trainerPod(pods))) {
                runOnNodes(job, pods, "its container's command (reading its staged archive)",
                        (pod, log) -> PodProcess.run(client, pod, log));
                return;
            }
            Optional<StagedScriptRunner.Script> script = runScripts ? StagedScriptRunner.find(client, job)
                    : Optional.empty();
            if (script.isPresent()) {
                runOnNodes(job, pods, script.get().fileName() + " with the local python3",
                        (pod, log) -> StagedScriptRunner.run(client, script.get(), pod, log));
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

    /** A core/v1 Event, as the component named by {@code source} records one on {@code kind}/{@code name}. */
    private void event(String namespace, String kind, String apiVersion, String name, String uid, String type,
            String reason, String message, String source) {
        try {
            String now = now();
            client.v1().events().inNamespace(namespace).resource(new io.fabric8.kubernetes.api.model.EventBuilder()
                    .withNewMetadata().withName(name + "." + Long.toHexString(System.nanoTime())).withNamespace(namespace)
                    .endMetadata()
                    .withNewInvolvedObject().withKind(kind).withApiVersion(apiVersion).withName(name)
                    .withNamespace(namespace).withUid(uid).endInvolvedObject()
                    .withType(type).withReason(reason).withMessage(message).withCount(1)
                    .withFirstTimestamp(now).withLastTimestamp(now)
                    .withNewSource().withComponent(source).endSource().withReportingComponent(source)
                    .withReportingInstance(source).build()).create();
        } catch (KubernetesClientException e) {
            LOG.debug("Sandbox could not record event {} on {}: {}", reason, name, e.getMessage());
        }
    }

    private void podEvent(Pod pod, String type, String reason, String message, String source) {
        event(pod.getMetadata().getNamespace(), "Pod", "v1", pod.getMetadata().getName(), pod.getMetadata().getUid(),
                type, reason, message, source);
    }

    private void jobEvent(Pod pod, String type, String reason, String message) {
        event(pod.getMetadata().getNamespace(), "Job", "batch/v1", pod.getMetadata().getLabels()
                .get("batch.kubernetes.io/job-name"), "", type, reason, message, "job-controller");
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
            setCondition(job, "Failed", "True", "DeadlineExceeded", "TrainJob exceeded its active deadline");
            client.genericKubernetesResources(JobSetObjects.JOBSETS).inNamespace(job.getMetadata().getNamespace())
                    .withName(job.getMetadata().getName()).delete();
        } catch (RuntimeException e) {
            LOG.warn("Sandbox controller could not end TrainJob {} at its deadline: {}", job.getMetadata().getName(),
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
                exit(pod, "sandbox: exited with code 0", "Succeeded", 0);
            }
            updateJobsStatus(job, pods, "succeeded");
            String namespace = job.getMetadata().getNamespace();
            pods.stream().collect(java.util.stream.Collectors.toMap(pod -> replicatedJob(pod), pod -> pod,
                    (first, second) -> first, LinkedHashMap::new))
                    .values().forEach(pod -> jobEvent(pod, "Normal", "Completed", "Job completed"));
            event(namespace, "JobSet", "jobset.x-k8s.io/v1alpha2", job.getMetadata().getName(), "", "Normal",
                    "AllJobsCompleted", "jobset completed successfully", "jobset");
            if (reportsProgress(job)) {
                reportProgress(job, 100, 0, 0.05);
            }
            endJobSet(job, true, "AllJobsCompleted", "jobset completed successfully");
            setCondition(job, "Complete", "True", "AllJobsCompleted", "jobset completed successfully");
        } catch (RuntimeException e) {
            LOG.warn("Sandbox controller could not finish TrainJob {}: {}", job.getMetadata().getName(), e.getMessage());
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
        Pod failed = java.util.Objects.requireNonNullElse(trainerPod(pods), pods.get(0));
        String failedJob = failed.getMetadata().getLabels().get("batch.kubernetes.io/job-name");
        // the container exits; under OnFailure the pod is not terminal, the kubelet backs off restarting it
        exit(failed, "sandbox: exited with code " + exitCode, "Running", exitCode);
        podEvent(failed, "Warning", "BackOff", "Back-off restarting failed container "
                + failed.getSpec().getContainers().get(0).getName() + " in pod " + failed.getMetadata().getName()
                + "_" + namespace + "(" + failed.getMetadata().getUid() + ")", "kubelet");
        // the Job controller at the backoff limit: the Job's active pods deleted, then the Job Failed
        List<Pod> ofFailedJob = pods.stream().filter(pod -> replicatedJob(pod).equals(replicatedJob(failed))).toList();
        for (Pod pod : ofFailedJob) {
            client.pods().inNamespace(namespace).withName(pod.getMetadata().getName()).delete();
            jobEvent(pod, "Normal", "SuccessfulDelete", "Deleted pod: " + pod.getMetadata().getName());
        }
        jobEvent(failed, "Warning", "BackoffLimitExceeded", "Job has reached the specified backoff limit");
        editJobStatus(job, replicatedJob(failed), counted("failed", ofFailedJob.size()), "failed");
        // JobSet fails and deletes its other active Jobs, with their pods; the Trainer reports both
        String message = "jobset failed due to one or more job failures (first failed job: " + failedJob + ")";
        Map<String, Map<String, Object>> byJob = new LinkedHashMap<>();
        for (Pod pod : pods) {
            String replicated = replicatedJob(pod);
            if (!replicated.equals(replicatedJob(failed)) && !byJob.containsKey(replicated)) {
                client.batch().v1().jobs().inNamespace(namespace).withName(pod.getMetadata().getLabels()
                        .get("batch.kubernetes.io/job-name"))
                        .withPropagationPolicy(io.fabric8.kubernetes.api.model.DeletionPropagation.FOREGROUND).delete();
            }
            byJob.put(replicated, jobCounts(replicated, replicated.equals(replicatedJob(failed)) ? "failed" : null));
        }
        editStatus(job, JobSetObjects.JOBSETS, status -> status.put("replicatedJobsStatus",
                merged(status.get("replicatedJobsStatus"), byJob)));
        endJobSet(job, false, "FailedJobs", message);
        event(namespace, "JobSet", "jobset.x-k8s.io/v1alpha2", job.getMetadata().getName(), "", "Warning",
                "FailedJobs", message, "jobset");
        editStatus(job, TRAINJOBS, status -> status.put("jobsStatus", merged(status.get("jobsStatus"), byJob)));
        setCondition(job, "Failed", "True", "FailedJobs", message);
    }

    /**
     * Runs staged code as the pods would: one local process per trainer node (the MPI launcher alone when there is
     * one: mpirun is not emulated), each with its pod's env resolved (trainer env, PET_*, its node rank), its output
     * that pod's log. The job fails when a process fails (the trainer step reports the first failure's exit code).
     */
    private void runOnNodes(GenericKubernetesResource job, List<Pod> pods, String what,
            java.util.function.BiFunction<Pod, java.util.function.Consumer<String>, Integer> process) {
        Pod trainer = trainerPod(pods);
        List<Pod> runners = "launcher".equals(replicatedJob(trainer)) ? List.of(trainer)
                : pods.stream().filter(p -> "node".equals(replicatedJob(p))).toList();
        for (Pod pod : pods) {
            log(pod, "sandbox: " + pod.getMetadata().getName() + (runners.contains(pod)
                    ? " runs " + what : " started"));
        }
        java.util.concurrent.atomic.AtomicInteger running = new java.util.concurrent.atomic.AtomicInteger(runners.size());
        java.util.concurrent.atomic.AtomicInteger firstFailure = new java.util.concurrent.atomic.AtomicInteger();
        for (Pod runner : runners) {
            scriptRunners.execute(() -> {
                int exitCode = PodProcess.containerExit(runner, process.apply(runner, line -> log(runner, line)),
                        line -> log(runner, line));
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

    /** The pod's container writes its last line and exits: its log streams end, its phase is final. */
    private void exit(Pod pod, String lastLine, String phase, int exitCode) {
        log(pod, lastLine);
        podLogs.end(pod.getMetadata().getNamespace(), pod.getMetadata().getName());
        setPodPhase(pod, phase, exitCode);
    }

    private void log(Pod pod, String line) {
        podLogs.append(pod.getMetadata().getNamespace(), pod.getMetadata().getName(), line);
    }

    private static String replicatedJob(Pod pod) {
        return pod.getMetadata().getLabels().get(REPLICATED_JOB_LABEL);
    }

    private void setPodPhase(Pod pod, String phase, Integer exitCode) {
        podLogs.started(pod.getMetadata().getNamespace(), pod.getMetadata().getName());
        client.pods().inNamespace(pod.getMetadata().getNamespace()).withName(pod.getMetadata().getName())
                .editStatus(p -> {
                    var spec = p.getSpec().getContainers().get(0);
                    String container = spec.getName();
                    var before = p.getStatus().getContainerStatuses().isEmpty() ? null
                            : p.getStatus().getContainerStatuses().get(0);
                    PodBuilder builder = new PodBuilder(p);
                    // the kubelet's Ready condition: true while the container runs
                    builder.editStatus().withPhase(phase).withContainerStatuses().withConditions(
                            new io.fabric8.kubernetes.api.model.PodConditionBuilder().withType("Ready")
                                    .withStatus(exitCode == null ? "True" : "False")
                                    .withReason(exitCode == null ? null : "PodCompleted")
                                    .withLastTransitionTime(now()).build()).endStatus();
                    // what a kubelet always reports of a container: its image, the digest it ran, its restarts
                    if (p.getStatus().getStartTime() == null) {
                        builder.editStatus().withStartTime(now()).withHostIP("10.0.0.1").withPodIP(podIp(p))
                                .withPodIPs(new io.fabric8.kubernetes.api.model.PodIP(podIp(p)))
                                .endStatus();
                    }
                    if (exitCode == null) {
                        builder.editStatus().addNewContainerStatus().withName(container).withReady(true)
                                .withStarted(true).withImage(spec.getImage()).withImageID(PodRendering.imageId(
                                        spec.getImage())).withRestartCount(0).withContainerID(containerId(p))
                                .withNewState().withNewRunning().withStartedAt(now()).endRunning().endState()
                                .endContainerStatus().endStatus();
                    } else {
                        String startedAt = before == null || before.getState().getRunning() == null ? now()
                                : before.getState().getRunning().getStartedAt();
                        builder.editStatus().addNewContainerStatus().withName(container).withReady(false)
                                .withStarted(false).withImage(spec.getImage()).withImageID(PodRendering.imageId(
                                        spec.getImage())).withRestartCount(0).withContainerID(containerId(p))
                                .withNewState().withNewTerminated().withExitCode(exitCode)
                                .withReason(exitCode == 0 ? "Completed" : "Error").withStartedAt(startedAt)
                                .withFinishedAt(now()).withContainerID(containerId(p)).endTerminated()
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

    private static String podIp(Pod pod) {
        return "10.244.0." + (Math.floorMod(pod.getMetadata().getName().hashCode(), 250) + 2);
    }

    private static String containerId(Pod pod) {
        return "containerd://" + PodRendering.imageId(pod.getMetadata().getUid()).replaceAll(".*sha256:", "");
    }

    /**
     * The replicated jobs of {@code pods} moved to {@code counter} (active, succeeded): the JobSet's and the TrainJob's
     * jobsStatus count each replicated job's one Job, the Job's own status its pods.
     */
    private void updateJobsStatus(GenericKubernetesResource job, List<Pod> pods, String counter) {
        Map<String, Map<String, Object>> byJob = new LinkedHashMap<>();
        Map<String, Integer> podsByJob = new LinkedHashMap<>();
        for (Pod pod : pods) {
            byJob.put(replicatedJob(pod), jobCounts(replicatedJob(pod), counter));
            podsByJob.merge(replicatedJob(pod), 1, Integer::sum);
        }
        // the other replicated jobs keep the counts they had; the JobSet holds the same counts
        editStatus(job, TRAINJOBS, status -> status.put("jobsStatus", merged(status.get("jobsStatus"), byJob)));
        editStatus(job, JobSetObjects.JOBSETS, status -> status.put("replicatedJobsStatus",
                merged(status.get("replicatedJobsStatus"), byJob)));
        podsByJob.forEach((replicated, count) -> editJobStatus(job, replicated, counted(counter, count), counter));
    }

    /** A replicated job's entry in jobsStatus: its one Job counted as {@code counter} (none when null). */
    private static Map<String, Object> jobCounts(String replicated, String counter) {
        Map<String, Object> counts = counted(counter, counter == null ? 0 : 1);
        counts.put("name", replicated);
        counts.put("suspended", 0);
        return counts;
    }

    /** Counts of active (each also ready), succeeded and failed: {@code n} as {@code counter}, the others 0. */
    private static Map<String, Object> counted(String counter, int n) {
        Map<String, Object> counts = new LinkedHashMap<>(Map.of("active", 0, "ready", 0, "succeeded", 0,
                "failed", 0));
        if (counter != null) {
            counts.put(counter, n);
            if ("active".equals(counter)) {
                counts.put("ready", n);
            }
        }
        return counts;
    }

    private static List<Map<String, Object>> merged(Object current, Map<String, Map<String, Object>> byJob) {
        List<Map<String, Object>> jobs = new ArrayList<>();
        for (Object existing : list(current)) {
            if (!byJob.containsKey((String) map(existing).get("name"))) {
                jobs.add(map(existing));
            }
        }
        jobs.addAll(byJob.values());
        return jobs;
    }

    /** The Job controller's status of a replicated job's Job: its pod counts, and its condition once it ended. */
    private void editJobStatus(GenericKubernetesResource job, String replicated, Map<String, Object> counts,
            String counter) {
        try {
            client.batch().v1().jobs().inNamespace(job.getMetadata().getNamespace())
                    .withName(job.getMetadata().getName() + "-" + replicated + "-0").editStatus(j -> {
                        var status = new io.fabric8.kubernetes.api.model.batch.v1.JobStatusBuilder(j.getStatus() == null
                                ? new io.fabric8.kubernetes.api.model.batch.v1.JobStatus() : j.getStatus())
                                .withActive((Integer) counts.get("active")).withReady((Integer) counts.get("ready"))
                                .withSucceeded((Integer) counts.get("succeeded")).withFailed((Integer) counts.get("failed"));
                        if (j.getStatus() == null || j.getStatus().getStartTime() == null) {
                            status.withStartTime(now());
                        }
                        if ("succeeded".equals(counter)) {
                            status.withCompletionTime(now()).withConditions(
                                    new io.fabric8.kubernetes.api.model.batch.v1.JobConditionBuilder()
                                            .withType("Complete").withStatus("True").withReason("CompletionsReached")
                                            .withMessage("Reached expected number of succeeded pods")
                                            .withLastTransitionTime(now()).build());
                        } else if ("failed".equals(counter)) {
                            // the Job controller's FailureTarget, then Failed once the pods it deleted are gone
                            status.withConditions(List.of("FailureTarget", "Failed").stream().map(type ->
                                    new io.fabric8.kubernetes.api.model.batch.v1.JobConditionBuilder()
                                            .withType(type).withStatus("True").withReason("BackoffLimitExceeded")
                                            .withMessage("Job has reached the specified backoff limit")
                                            .withLastProbeTime(now()).withLastTransitionTime(now()).build())
                                    .toList());
                        }
                        j.setStatus(status.build());
                        return j;
                    });
        } catch (KubernetesClientException e) {
            LOG.debug("Job of {} changed or vanished under the sandbox controller: {}", job.getMetadata().getName(),
                    e.getMessage());
        }
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

    /** JobSet's own end: its Completed or Failed condition and terminal state. */
    private void endJobSet(GenericKubernetesResource job, boolean completed, String reason, String message) {
        editStatus(job, JobSetObjects.JOBSETS, status -> {
            status.put("terminalState", completed ? "Completed" : "Failed");
            status.put("conditions", List.of(new LinkedHashMap<>(Map.of("type", completed ? "Completed" : "Failed",
                    "status", "True", "reason", reason, "message", message, "lastTransitionTime", now()))));
        });
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

    private void editStatus(GenericKubernetesResource job, java.util.function.Consumer<Map<String, Object>> change) {
        editStatus(job, TRAINJOBS, change);
    }

    /** Edits the status of the TrainJob, or of its JobSet (same name and namespace). */
    private void editStatus(GenericKubernetesResource job, ResourceDefinitionContext kind,
            java.util.function.Consumer<Map<String, Object>> change) {
        try {
            client.genericKubernetesResources(kind).inNamespace(job.getMetadata().getNamespace())
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
                .map(JsonMaps::map)
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

    @Override
    public void close() {
        informer.close();
        scheduler.shutdownNow();
        scriptRunners.shutdownNow();
        client.close();
    }
}
