package io.camelkubeflow.trainer.job;

import io.camelkubeflow.trainer.api.KubernetesNames;
import io.camelkubeflow.trainer.api.RuntimePatch;
import io.camelkubeflow.trainer.api.RuntimePatch.ContainerPatch;
import io.camelkubeflow.trainer.api.RuntimePatch.JobSetSpecPatch;
import io.camelkubeflow.trainer.api.RuntimePatch.JobSetTemplatePatch;
import io.camelkubeflow.trainer.api.RuntimePatch.JobSpecPatch;
import io.camelkubeflow.trainer.api.RuntimePatch.JobTemplatePatch;
import io.camelkubeflow.trainer.api.RuntimePatch.MetadataPatch;
import io.camelkubeflow.trainer.api.RuntimePatch.PodSpecPatch;
import io.camelkubeflow.trainer.api.RuntimePatch.PodTemplatePatch;
import io.camelkubeflow.trainer.api.RuntimePatch.ReplicatedJobPatch;
import io.camelkubeflow.trainer.api.RuntimePatch.TrainingRuntimeSpecPatch;
import io.camelkubeflow.trainer.api.RuntimeRef;
import io.camelkubeflow.trainer.api.TrainJob;
import io.camelkubeflow.trainer.api.TrainJobSpec;
import io.camelkubeflow.trainer.api.Trainer;
import io.camelkubeflow.trainer.runtime.LauncherDecision;
import io.camelkubeflow.trainer.runtime.LauncherResolver;
import io.camelkubeflow.trainer.runtime.TrainingRuntimeDescriptor;
import io.camelkubeflow.trainer.runtime.TrainingRuntimeDescriptor.ReplicatedJob;
import io.camelkubeflow.trainer.support.InvalidOptionException;
import io.camelkubeflow.trainer.workspace.Workspace;
import io.camelkubeflow.trainer.workspace.WorkspaceBootstrap;
import io.camelkubeflow.trainer.workspace.WorkspaceStaging;
import io.fabric8.kubernetes.api.model.Affinity;
import io.fabric8.kubernetes.api.model.AffinityBuilder;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.LocalObjectReference;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.PodSecurityContext;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ResourceRequirements;
import io.fabric8.kubernetes.api.model.SecurityContext;
import io.fabric8.kubernetes.api.model.Toleration;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeBuilder;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.api.model.VolumeMountBuilder;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiConsumer;

/**
 * Turns a validated {@link TrainRequest} and the runtime it names into the TrainJob to write. Pure: no cluster
 * access, so every path can be tested and the result is known before any write.
 */
public final class TrainJobFactory {
    /** Where an inline script is mounted in every container that may run user code. */
    public static final String SCRIPT_DIR = "/opt/camel-kubeflow-trainer";

    static final String SCRIPT_VOLUME = "camel-kubeflow-trainer-script";
    static final String WORKSPACE_ARCHIVE_VOLUME = "camel-kubeflow-trainer-archive";
    static final String WORKSPACE_VOLUME = "camel-kubeflow-trainer-workspace";
    /** The variable that tells the training code where to write what it makes (outputUri). */
    public static final String OUTPUT_URI_ENV = "OUTPUT_URI";
    /** With a pvc:// outputUri, the folder in the pod where the claim's path is mounted (OUTPUT_MOUNT). */
    public static final String OUTPUT_DIR_ENV = "OUTPUT_DIR";

    static final String OUTPUT_MOUNT = "/mnt/camel-kubeflow-trainer/output";
    static final String OUTPUT_VOLUME = "camel-kubeflow-trainer-output";
    /** The folders under which the component mounts scripts, workspaces and outputs: no other mount may cover them. */
    private static final List<String> COMPONENT_MOUNT_ROOTS = List.of(SCRIPT_DIR, "/mnt/camel-kubeflow-trainer");
    /** The CRD's maxItems on spec.runtimePatches. */
    private static final int MAX_RUNTIME_PATCHES = 16;

    private TrainJobFactory() {}

    /**
     * @param request         a request already checked by {@link TrainRequestValidator#validate}
     * @param jobName         the final name (explicit or derived from the idempotency key)
     * @param idempotencyKey  recorded on the TrainJob so a retry adopts it; may be null
     */
    public static PreparedTrainJob build(
            TrainRequest request,
            TrainingRuntimeDescriptor runtime,
            String namespace,
            String jobName,
            String idempotencyKey) {
        KubernetesNames.trainJobName(request.jobName() != null ? "jobName" : "jobNamePrefix", jobName);
        String image = request.image() != null ? request.image() : runtime.trainerImage();
        LauncherDecision decision = LauncherResolver.resolve(runtime, image, request.imageRules(), request.launcher());
        TrainRequestFit.check(request, runtime, decision);

        String scriptPath = null;
        List<RuntimePatch> patches = new ArrayList<>();
        // a body copied from an earlier TrainJob may carry this component's patch (a script's or a workspace's, never
        // both, and the pod options): it is rebuilt, not duplicated
        request.runtimePatches().stream()
                .filter(p -> !TrainJobMetadata.PATCH_MANAGER.equals(p.manager()))
                .forEach(patches::add);
        ComponentPatch own = new ComponentPatch();
        if (request.script() != null) {
            String fileName = TrainRequestValidator.scriptFileName(request);
            scriptPath = SCRIPT_DIR + "/" + fileName;
            addScript(own, runtime, fileName, request.script());
        }
        Workspace workspace = request.workspaceContent();
        if (workspace != null) {
            addWorkspace(own, runtime, workspace, request.workspaceUrl() == null);
        }
        if (request.hasPodOptions()) {
            addPodOptions(own, runtime, request);
        }
        if (request.outputUri() != null && request.outputUri().startsWith("pvc://")) {
            addOutputClaim(own, runtime, request.outputUri());
        }
        if (!own.jobs.isEmpty()) {
            patches.add(own.build());
        }
        if (patches.size() > MAX_RUNTIME_PATCHES) {
            throw new InvalidOptionException(
                    "runtimePatches",
                    patches.size() + " runtime patches; the" + " TrainJob CRD allows at most " + MAX_RUNTIME_PATCHES
                            + "; merge patches of one manager");
        }
        List<EnvVar> env = env(request);
        TrainerCommand trainerCommand = TrainerCommand.build(
                decision.launcher(),
                request,
                request.pythonFile() != null ? request.pythonFile() : scriptPath,
                env == null ? List.of() : env.stream().map(EnvVar::getName).toList());

        Trainer trainer = new Trainer(
                request.image(),
                trainerCommand.command(),
                trainerCommand.args(),
                env,
                request.numNodes(),
                request.numProcPerNode(),
                resources(request.resources()));

        TrainJobSpec spec = new TrainJobSpec(
                new RuntimeRef(runtime.name(), runtime.kind(), TrainJob.GROUP),
                trainer,
                StorageInitializers.build(request, runtime),
                patches.isEmpty() ? null : patches,
                request.suspend(),
                request.managedBy(),
                request.activeDeadlineSeconds());

        Map<String, String> labels = new LinkedHashMap<>(request.labels());
        labels.put(TrainJobMetadata.MANAGED_BY_LABEL, TrainJobMetadata.MANAGED_BY_VALUE);
        if (request.queue() != null) {
            labels.put(TrainJobMetadata.QUEUE_LABEL, request.queue());
        }
        if (request.priorityClass() != null) {
            labels.put(TrainJobMetadata.PRIORITY_CLASS_LABEL, request.priorityClass());
        }
        if (request.maxInFlight() != null || request.inFlightGroup() != null) {
            labels.put(
                    TrainJobMetadata.GROUP_LABEL,
                    request.inFlightGroup() != null ? request.inFlightGroup() : TrainJobMetadata.DEFAULT_GROUP);
        }
        Map<String, String> annotations = new LinkedHashMap<>(request.annotations());
        annotations.put(
                TrainJobMetadata.LAUNCHER_ANNOTATION, decision.launcher().optionValue());
        annotations.put(
                TrainJobMetadata.LAUNCHER_RULE_ANNOTATION, decision.rule().name());
        if (request.traceParent() != null) {
            annotations.put(TrainJobMetadata.TRACE_PARENT_ANNOTATION, request.traceParent());
        }
        if (request.outputUri() != null) {
            annotations.put(TrainJobMetadata.OUTPUT_URI_ANNOTATION, request.outputUri());
        }
        annotations.put(
                TrainJobMetadata.CODE_DIGEST_ANNOTATION, codeDigest(image, trainer, request.script(), workspace));
        if (workspace != null) {
            labels.put(WorkspaceStaging.DIGEST_LABEL, workspace.shortDigest());
            annotations.put(WorkspaceStaging.DIGEST_ANNOTATION, workspace.digest());
        }
        if (request.ttlAfterFinishedSeconds() != null) {
            labels.put(TrainJobMetadata.TTL_LABEL, "true");
            annotations.put(TrainJobMetadata.TTL_ANNOTATION, Long.toString(request.ttlAfterFinishedSeconds()));
        }
        if (request.runKey() != null) {
            labels.put(TrainJobMetadata.RUN_KEY_LABEL, TrainJobMetadata.runKeyLabel(request.runKey()));
            if (request.runKey().length() <= TrainJobMetadata.MAX_RECORDED_KEY_LENGTH) {
                annotations.put(TrainJobMetadata.RUN_KEY_ANNOTATION, request.runKey());
            }
        }
        if (idempotencyKey != null) {
            annotations.put(
                    TrainJobMetadata.IDEMPOTENCY_HASH_ANNOTATION,
                    TrainJobMetadata.sha256(TrainJobMetadata.scopedKey(request.idempotencyScope(), idempotencyKey)));
            if (request.idempotencyScope() != null) {
                annotations.put(TrainJobMetadata.IDEMPOTENCY_SCOPE_ANNOTATION, request.idempotencyScope());
            }
            if (idempotencyKey.length() <= TrainJobMetadata.MAX_RECORDED_KEY_LENGTH) {
                annotations.put(TrainJobMetadata.IDEMPOTENCY_KEY_ANNOTATION, idempotencyKey);
            }
        }

        TrainJob trainJob = new TrainJob();
        trainJob.setMetadata(new ObjectMetaBuilder()
                .withName(jobName)
                .withNamespace(namespace)
                .withLabels(labels)
                .withAnnotations(annotations)
                .build());
        trainJob.setSpec(spec);
        trainJob.getMetadata()
                .getAnnotations()
                .put(
                        TrainJobMetadata.REQUEST_FINGERPRINT_ANNOTATION,
                        RequestFingerprint.format(RequestFingerprint.of(trainJob)));
        if (request.workspaceUrl() != null) {
            // after the fingerprint: the URL is signed anew at each create, the request it answers is the same
            trainer.command()
                    .replaceAll(word -> word.equals(WorkspaceBootstrap.storedArchive(workspace))
                            ? request.workspaceUrl().toString()
                            : word);
        }
        return new PreparedTrainJob(trainJob, runtime, decision, workspace, request.workspaceUrl());
    }

    /** The request's variables, and where to write the output when it names a place. */
    private static List<EnvVar> env(TrainRequest request) {
        List<EnvVar> env = new ArrayList<>(request.env().values());
        if (request.outputUri() != null) {
            env.add(new EnvVar(OUTPUT_URI_ENV, request.outputUri(), null));
            if (request.outputUri().startsWith("pvc://")) {
                env.add(new EnvVar(OUTPUT_DIR_ENV, OUTPUT_MOUNT, null));
            }
        }
        return env.isEmpty() ? null : env;
    }

    /**
     * {@code sha256:<hex>} of what decides the code a job runs: the image as named (the request's, else the
     * runtime's), the trainer's command and args (a staged script's or workspace's bootstrap included), the inline
     * script and the workspace's digest; the same request on the same runtime gives the same digest.
     */
    static String codeDigest(String image, Trainer trainer, String script, Workspace workspace) {
        StringBuilder canonical = new StringBuilder();
        BiConsumer<String, Object> part = (name, value) -> canonical
                .append(name)
                .append('=')
                .append(value == null ? "" : Serialization.asJson(value))
                .append('\n');
        part.accept("image", image);
        part.accept("command", trainer.command());
        part.accept("args", trainer.args());
        part.accept("script", script == null ? null : TrainJobMetadata.sha256(script));
        part.accept("workspace", workspace == null ? null : workspace.digest());
        return "sha256:" + TrainJobMetadata.sha256(canonical.toString());
    }

    private static ResourceRequirements resources(Map<String, String> resources) {
        if (resources.isEmpty()) {
            return null;
        }
        // requests equal limits, as the Kubeflow SDK does: extended resources (GPUs) require it anyway
        Map<String, Quantity> quantities = new LinkedHashMap<>();
        resources.forEach((name, value) -> quantities.put(name, new Quantity(value)));
        ResourceRequirements requirements = new ResourceRequirements();
        requirements.setLimits(quantities);
        requirements.setRequests(new LinkedHashMap<>(quantities));
        return requirements;
    }

    /**
     * Mounts an emptyDir to unpack the workspace into, and the workspace's ConfigMap (read-only) unless the pods fetch
     * it from a workspace store, on the node container of every replicated job that may run user code; the trainer
     * command's bootstrap ({@link WorkspaceBootstrap}) does the rest. The ConfigMap is staged by the submitter once the
     * job exists ({@link WorkspaceStaging}).
     */
    private static void addWorkspace(
            ComponentPatch own, TrainingRuntimeDescriptor runtime, Workspace workspace, boolean inConfigMap) {
        for (ReplicatedJob job : jobsRunningCode(runtime, "workspace", "to unpack the workspace into")) {
            PodParts pod = own.job(job.name());
            pod.volumes.add(new VolumeBuilder()
                    .withName(WORKSPACE_VOLUME)
                    .withNewEmptyDir()
                    .endEmptyDir()
                    .build());
            pod.mounts(TrainingRuntimeDescriptor.TRAINER_CONTAINER)
                    .add(new VolumeMountBuilder()
                            .withName(WORKSPACE_VOLUME)
                            .withMountPath(WorkspaceBootstrap.WORKSPACE_DIR)
                            .build());
            if (inConfigMap) {
                pod.volumes.add(new VolumeBuilder()
                        .withName(WORKSPACE_ARCHIVE_VOLUME)
                        .withNewConfigMap()
                        .withName(WorkspaceStaging.configMapName(workspace))
                        .withDefaultMode(0444)
                        .endConfigMap()
                        .build());
                pod.mounts(TrainingRuntimeDescriptor.TRAINER_CONTAINER)
                        .add(new VolumeMountBuilder()
                                .withName(WORKSPACE_ARCHIVE_VOLUME)
                                .withMountPath(WorkspaceBootstrap.ARCHIVE_DIR)
                                .withReadOnly(true)
                                .build());
            }
        }
    }

    /**
     * Puts the script into the pods of every replicated job that may run user code, as the file {@code fileName} of a
     * downward API volume over a pod annotation mounted on the node container (SDK-style: in the TrainJob itself, so
     * one request creates everything, nothing outlives the job and no second object can race the first; the
     * annotation limit of 256 KiB bounds the script, see {@link TrainRequestValidator#MAX_SCRIPT_BYTES}).
     */
    private static void addScript(
            ComponentPatch own, TrainingRuntimeDescriptor runtime, String fileName, String script) {
        for (ReplicatedJob job : jobsRunningCode(
                runtime,
                "script",
                "to stage the script into; use pythonFile or" + " command with an image that holds the code")) {
            PodParts pod = own.job(job.name());
            pod.annotations.put(TrainJobMetadata.SCRIPT_ANNOTATION, script);
            pod.volumes.add(new VolumeBuilder()
                    .withName(SCRIPT_VOLUME)
                    .withNewDownwardAPI()
                    .withDefaultMode(0444)
                    .addNewItem()
                    .withPath(fileName)
                    .withNewFieldRef()
                    .withFieldPath("metadata.annotations['" + TrainJobMetadata.SCRIPT_ANNOTATION + "']")
                    .endFieldRef()
                    .endItem()
                    .endDownwardAPI()
                    .build());
            pod.mounts(TrainingRuntimeDescriptor.TRAINER_CONTAINER)
                    .add(new VolumeMountBuilder()
                            .withName(SCRIPT_VOLUME)
                            .withMountPath(SCRIPT_DIR)
                            .withReadOnly(true)
                            .build());
        }
    }

    /**
     * The request's pod options, in the jobs {@code podJobs} names or, by default, in every job that runs the trainer's
     * code (the {@code node} job for torch and plain python; for MPI the {@code launcher} job and the {@code node}
     * job its mpirun reaches, so both are scheduled, mounted and secured alike). Container settings (mounts, the
     * security context) go to the job's {@code node} container, or in an initializer job to the container named after
     * it. A job the runtime lacks is refused here, as the Trainer's webhook would refuse the patch.
     */
    private static void addPodOptions(ComponentPatch own, TrainingRuntimeDescriptor runtime, TrainRequest request) {
        List<ReplicatedJob> targets = new ArrayList<>();
        if (request.podJobs() == null) {
            targets.addAll(jobsRunningCode(
                    runtime, "podJobs", "; name the jobs the pod options go to, among " + jobNames(runtime)));
        } else {
            for (String name : request.podJobs()) {
                ReplicatedJob job = runtime.replicatedJob(name);
                if (job == null) {
                    throw new InvalidOptionException(
                            "podJobs",
                            "'" + name + "' is not a replicated job of "
                                    + runtime.describe()
                                    + ", and the Trainer refuses a patch of a job its runtime lacks;"
                                    + " name one of " + jobNames(runtime));
                }
                targets.add(job);
            }
        }
        for (ReplicatedJob job : targets) {
            PodParts pod = own.job(job.name());
            if (!request.volumes().isEmpty() || request.securityContext() != null) {
                String container = job.hasContainer(TrainingRuntimeDescriptor.TRAINER_CONTAINER)
                        ? TrainingRuntimeDescriptor.TRAINER_CONTAINER
                        : job.hasContainer(job.name()) ? job.name() : null;
                if (container == null) {
                    throw new InvalidOptionException(
                            !request.volumes().isEmpty() ? "volumes" : "securityContext",
                            "the replicated job '" + job.name() + "' of " + runtime.describe() + " has neither a '"
                                    + TrainingRuntimeDescriptor.TRAINER_CONTAINER + "' container nor one named after"
                                    + " it (it has " + job.containerImages().keySet() + "); name other podJobs");
                }
                for (PodOptions.PodVolume volume : request.volumes()) {
                    pod.volumes.add(volume.volume());
                    pod.mounts(container).add(volume.mount());
                }
                if (request.securityContext() != null) {
                    pod.securityContexts.put(container, request.securityContext());
                }
            }
            if (!request.nodeSelector().isEmpty()) {
                pod.nodeSelector = new LinkedHashMap<>(request.nodeSelector());
            }
            pod.tolerations = request.tolerations();
            if (request.nodeAffinity() != null) {
                pod.affinity = new AffinityBuilder()
                        .withNodeAffinity(request.nodeAffinity())
                        .build();
            }
            pod.serviceAccountName = request.serviceAccountName();
            if (!request.imagePullSecrets().isEmpty()) {
                pod.imagePullSecrets = request.imagePullSecrets().stream()
                        .map(LocalObjectReference::new)
                        .toList();
            }
            pod.securityContext = request.podSecurityContext();
        }
    }

    /**
     * A pvc:// output: the claim's path (only that: a subPath, so an allowed output location's prefix holds) mounted
     * read-write at {@link #OUTPUT_MOUNT} on the node container of every job that runs the code, as the launcher
     * decides (torch's nodes, MPI's launcher and nodes); reviewed and policed as any mounted claim of the TrainJob.
     */
    private static void addOutputClaim(ComponentPatch own, TrainingRuntimeDescriptor runtime, String outputUri) {
        String path = outputUri.substring("pvc://".length());
        String claim = path.contains("/") ? path.substring(0, path.indexOf('/')) : path;
        String subPath = path.substring(claim.length()).replaceAll("^/+|/+$", "");
        for (ReplicatedJob job : jobsRunningCode(runtime, "outputUri", "to mount the claim in")) {
            PodParts pod = own.job(job.name());
            pod.volumes.add(new VolumeBuilder()
                    .withName(OUTPUT_VOLUME)
                    .withNewPersistentVolumeClaim()
                    .withClaimName(claim)
                    .endPersistentVolumeClaim()
                    .build());
            pod.mounts(TrainingRuntimeDescriptor.TRAINER_CONTAINER)
                    .add(new VolumeMountBuilder()
                            .withName(OUTPUT_VOLUME)
                            .withMountPath(OUTPUT_MOUNT)
                            .withSubPath(subPath.isEmpty() ? null : subPath)
                            .build());
        }
    }

    /** The component's mount root that a mount at {@code path} would be at, under or over; null when none. */
    static String componentMountAt(String path) {
        String folder = path.endsWith("/") ? path : path + "/";
        return COMPONENT_MOUNT_ROOTS.stream()
                .filter(root -> folder.startsWith(root + "/") || (root + "/").startsWith(folder))
                .findFirst()
                .orElse(null);
    }

    /** The jobs that may run user code, or a refusal naming the field that needed one ({@code what} it was for). */
    private static List<ReplicatedJob> jobsRunningCode(TrainingRuntimeDescriptor runtime, String field, String what) {
        List<ReplicatedJob> jobs = runtime.jobsRunningUserCode();
        if (jobs.isEmpty()) {
            throw new InvalidOptionException(
                    field,
                    runtime.describe() + " has no replicated job with a '"
                            + TrainingRuntimeDescriptor.TRAINER_CONTAINER + "' container"
                            + (what.startsWith(";") ? "" : " ")
                            + what);
        }
        return jobs;
    }

    private static List<String> jobNames(TrainingRuntimeDescriptor runtime) {
        return runtime.replicatedJobs().stream().map(ReplicatedJob::name).toList();
    }

    /**
     * This component's one runtime patch: spec.runtimePatches is a list keyed by manager, and a patch's replicated
     * jobs a list keyed by name, so the script or workspace and the pod options of one job are one entry of one patch.
     */
    private static final class ComponentPatch {
        private final Map<String, PodParts> jobs = new LinkedHashMap<>();

        PodParts job(String name) {
            return jobs.computeIfAbsent(name, n -> new PodParts());
        }

        RuntimePatch build() {
            List<ReplicatedJobPatch> replicatedJobs = new ArrayList<>();
            jobs.forEach((name, pod) -> replicatedJobs.add(
                    new ReplicatedJobPatch(name, new JobTemplatePatch(null, new JobSpecPatch(pod.template())))));
            return new RuntimePatch(
                    TrainJobMetadata.PATCH_MANAGER,
                    null,
                    new TrainingRuntimeSpecPatch(new JobSetTemplatePatch(null, new JobSetSpecPatch(replicatedJobs))));
        }
    }

    /** What this component's patch sets in one replicated job's pods. */
    private static final class PodParts {
        private final Map<String, String> annotations = new LinkedHashMap<>();
        private final List<Volume> volumes = new ArrayList<>();
        private final Map<String, List<VolumeMount>> mounts = new LinkedHashMap<>();
        private final Map<String, SecurityContext> securityContexts = new LinkedHashMap<>();
        private Map<String, String> nodeSelector;
        private List<Toleration> tolerations;
        private Affinity affinity;
        private String serviceAccountName;
        private List<LocalObjectReference> imagePullSecrets;
        private PodSecurityContext securityContext;

        List<VolumeMount> mounts(String container) {
            return mounts.computeIfAbsent(container, c -> new ArrayList<>());
        }

        PodTemplatePatch template() {
            Map<String, ContainerPatch> containers = new LinkedHashMap<>();
            mounts.forEach((name, list) -> containers.put(name, new ContainerPatch(name, null, list, null)));
            securityContexts.forEach((name, context) -> containers.merge(
                    name,
                    new ContainerPatch(name, null, null, context),
                    (a, b) -> new ContainerPatch(name, null, a.volumeMounts(), context)));
            PodSpecPatch spec = new PodSpecPatch(
                    volumes.isEmpty() ? null : volumes,
                    containers.isEmpty() ? null : List.copyOf(containers.values()),
                    null,
                    serviceAccountName,
                    nodeSelector,
                    affinity,
                    tolerations,
                    imagePullSecrets,
                    securityContext,
                    null,
                    null);
            MetadataPatch metadata =
                    annotations.isEmpty() ? null : new MetadataPatch(null, annotations, null, null, null);
            return new PodTemplatePatch(metadata, spec);
        }
    }
}
