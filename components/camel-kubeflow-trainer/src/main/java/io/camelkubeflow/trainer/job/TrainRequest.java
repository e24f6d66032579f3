package io.camelkubeflow.trainer.job;

import io.camelkubeflow.trainer.access.Caller;
import io.camelkubeflow.trainer.api.RuntimePatch;
import io.camelkubeflow.trainer.runtime.ImageRule;
import io.camelkubeflow.trainer.runtime.Launcher;
import io.camelkubeflow.trainer.workspace.Workspace;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.NodeAffinity;
import io.fabric8.kubernetes.api.model.PodSecurityContext;
import io.fabric8.kubernetes.api.model.SecurityContext;
import io.fabric8.kubernetes.api.model.Toleration;
import java.net.URI;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Everything a caller can say about the TrainJob it wants, each field optional. Requests are layered (endpoint
 * defaults, then a TrainJob body, then per-message headers) with {@link #overlay}, and the merged request is
 * checked by {@link TrainRequestValidator} and built by {@link TrainJobFactory}.
 */
public final class TrainRequest {
    private String namespace;
    private String jobName;
    private String jobNamePrefix;
    private String idempotencyKey;
    private String idempotencyScope;
    private String runKey;
    private Boolean skipIfRunning;
    private String inFlightGroup;
    private Integer maxInFlight;
    private String runtime;
    private String runtimeKind;
    private String image;
    private Launcher launcher;
    private List<ImageRule> imageRules;
    private List<String> command;
    private boolean verbatimCommand;
    private List<String> args;
    private String pythonFile;
    private String script;
    private Boolean imageEntrypoint;
    private String scriptFileName;
    private String workspace;
    private Workspace workspaceContent;
    private URI workspaceUrl;
    private String traceParent;
    private List<String> packages;
    private List<String> pipIndexUrls;
    private final Map<String, EnvVar> env = new LinkedHashMap<>();
    private Integer numNodes;
    private Integer numProcPerNode;
    private final Map<String, String> resources = new LinkedHashMap<>();
    private final Map<String, String> labels = new LinkedHashMap<>();
    private final Map<String, String> annotations = new LinkedHashMap<>();
    private InitializerRequest dataset = new InitializerRequest();
    private InitializerRequest model = new InitializerRequest();
    private String outputUri;
    private TorchTuneConfig torchtune = new TorchTuneConfig();
    private Long activeDeadlineSeconds;
    private Long ttlAfterFinishedSeconds;
    private Boolean suspend;
    private String managedBy;
    private String queue;
    private String priorityClass;
    private final List<RuntimePatch> runtimePatches = new ArrayList<>();
    private final Map<String, String> nodeSelector = new LinkedHashMap<>();
    private List<Toleration> tolerations;
    private NodeAffinity nodeAffinity;
    private List<PodOptions.PodVolume> volumes;
    private String serviceAccountName;
    private List<String> imagePullSecrets;
    private PodSecurityContext podSecurityContext;
    private SecurityContext securityContext;
    private List<String> podJobs;
    /** Who the request acts for; never from a request's own fields, only from an authenticated identity. */
    private Caller caller;

    /**
     * A new request with this one's values overridden by every value {@code top} sets. The payload (command,
     * pythonFile, script) is taken whole from the top layer when it names any of them, so a header's script replaces
     * an endpoint's command instead of clashing with it; maps and env merge key by key; runtime patches add up.
     */
    public TrainRequest overlay(TrainRequest top) {
        TrainRequest merged = new TrainRequest();
        merged.namespace = pick(top.namespace, namespace);
        merged.jobName = pick(top.jobName, jobName);
        merged.jobNamePrefix = pick(top.jobNamePrefix, jobNamePrefix);
        merged.idempotencyKey = pick(top.idempotencyKey, idempotencyKey);
        merged.idempotencyScope = pick(top.idempotencyScope, idempotencyScope);
        merged.runKey = pick(top.runKey, runKey);
        merged.skipIfRunning = pick(top.skipIfRunning, skipIfRunning);
        merged.inFlightGroup = pick(top.inFlightGroup, inFlightGroup);
        merged.maxInFlight = pick(top.maxInFlight, maxInFlight);
        merged.runtime = pick(top.runtime, runtime);
        merged.runtimeKind = pick(top.runtimeKind, runtimeKind);
        merged.image = pick(top.image, image);
        merged.launcher = pick(top.launcher, launcher);
        merged.imageRules = pick(top.imageRules, imageRules);
        TrainRequest payloadLayer = top.hasPayload() ? top : this;
        merged.command = payloadLayer.command;
        merged.verbatimCommand = payloadLayer.verbatimCommand;
        merged.pythonFile = payloadLayer.pythonFile;
        merged.script = payloadLayer.script;
        merged.imageEntrypoint = payloadLayer.imageEntrypoint;
        merged.args = pick(top.args, args);
        merged.scriptFileName = pick(top.scriptFileName, scriptFileName);
        // a workspace comes whole from one layer: a location or the content read from one
        TrainRequest workspaceLayer = top.workspace != null || top.workspaceContent != null ? top : this;
        merged.workspace = workspaceLayer.workspace;
        merged.workspaceContent = workspaceLayer.workspaceContent;
        merged.workspaceUrl = workspaceLayer.workspaceUrl;
        merged.packages = pick(top.packages, packages);
        merged.pipIndexUrls = pick(top.pipIndexUrls, pipIndexUrls);
        merged.env.putAll(env);
        merged.env.putAll(top.env);
        merged.numNodes = pick(top.numNodes, numNodes);
        merged.numProcPerNode = pick(top.numProcPerNode, numProcPerNode);
        merged.resources.putAll(resources);
        merged.resources.putAll(top.resources);
        merged.labels.putAll(labels);
        merged.labels.putAll(top.labels);
        merged.annotations.putAll(annotations);
        merged.annotations.putAll(top.annotations);
        merged.dataset = dataset.overlay(top.dataset);
        merged.model = model.overlay(top.model);
        merged.outputUri = pick(top.outputUri, outputUri);
        merged.torchtune = torchtune.overlay(top.torchtune);
        merged.activeDeadlineSeconds = pick(top.activeDeadlineSeconds, activeDeadlineSeconds);
        merged.ttlAfterFinishedSeconds = pick(top.ttlAfterFinishedSeconds, ttlAfterFinishedSeconds);
        merged.suspend = pick(top.suspend, suspend);
        merged.managedBy = pick(top.managedBy, managedBy);
        merged.queue = pick(top.queue, queue);
        merged.priorityClass = pick(top.priorityClass, priorityClass);
        merged.runtimePatches.addAll(runtimePatches);
        merged.runtimePatches.addAll(top.runtimePatches);
        merged.nodeSelector.putAll(nodeSelector);
        merged.nodeSelector.putAll(top.nodeSelector);
        merged.tolerations = pick(top.tolerations, tolerations);
        merged.nodeAffinity = pick(top.nodeAffinity, nodeAffinity);
        merged.volumes = pick(top.volumes, volumes);
        merged.serviceAccountName = pick(top.serviceAccountName, serviceAccountName);
        merged.imagePullSecrets = pick(top.imagePullSecrets, imagePullSecrets);
        merged.podSecurityContext = pick(top.podSecurityContext, podSecurityContext);
        merged.securityContext = pick(top.securityContext, securityContext);
        merged.podJobs = pick(top.podJobs, podJobs);
        merged.caller = pick(top.caller, caller);
        return merged;
    }

    private static <T> T pick(T top, T bottom) {
        return top != null ? top : bottom;
    }

    /**
     * True when the request names a payload kind: a command, a Python file in the image, an inline script, or the
     * image's own entrypoint.
     */
    public boolean hasPayload() {
        return command != null || pythonFile != null || script != null || imageEntrypoint();
    }

    /** Adds or replaces a variable, keyed by name. */
    public TrainRequest env(EnvVar var) {
        env.put(var.getName(), var);
        return this;
    }

    public TrainRequest env(String name, String value) {
        return env(new EnvVar(name, value, null));
    }

    public TrainRequest resource(String name, String quantity) {
        resources.put(name, quantity);
        return this;
    }

    public TrainRequest label(String key, String value) {
        labels.put(key, value);
        return this;
    }

    public TrainRequest annotation(String key, String value) {
        annotations.put(key, value);
        return this;
    }

    public TrainRequest nodeSelector(String key, String value) {
        nodeSelector.put(key, value);
        return this;
    }

    /** True when the request sets anything of its pods besides what the Trainer's own fields set. */
    public boolean hasPodOptions() {
        return !nodeSelector.isEmpty()
                || tolerations != null
                || nodeAffinity != null
                || volumes != null
                || serviceAccountName != null
                || imagePullSecrets != null
                || podSecurityContext != null
                || securityContext != null;
    }

    public TrainRequest runtimePatch(RuntimePatch patch) {
        runtimePatches.add(patch);
        return this;
    }

    // fluent setters and getters

    public TrainRequest namespace(String v) {
        namespace = v;
        return this;
    }

    public TrainRequest jobName(String v) {
        jobName = v;
        return this;
    }

    public TrainRequest jobNamePrefix(String v) {
        jobNamePrefix = v;
        return this;
    }

    public TrainRequest idempotencyKey(String v) {
        idempotencyKey = v;
        return this;
    }
    /** The key space of the idempotency key: the same key in two scopes names two jobs. */
    public TrainRequest idempotencyScope(String v) {
        idempotencyScope = v;
        return this;
    }
    /** What "the same training" means for skipIfRunning, e.g. a model name. */
    public TrainRequest runKey(String v) {
        runKey = v;
        return this;
    }

    public TrainRequest skipIfRunning(Boolean v) {
        skipIfRunning = v;
        return this;
    }

    public TrainRequest inFlightGroup(String v) {
        inFlightGroup = v;
        return this;
    }

    public TrainRequest maxInFlight(Integer v) {
        maxInFlight = v;
        return this;
    }

    public TrainRequest runtime(String v) {
        runtime = v;
        return this;
    }

    public TrainRequest runtimeKind(String v) {
        runtimeKind = v;
        return this;
    }

    public TrainRequest image(String v) {
        image = v;
        return this;
    }

    public TrainRequest launcher(Launcher v) {
        launcher = v;
        return this;
    }

    public TrainRequest imageRules(List<ImageRule> v) {
        imageRules = v;
        return this;
    }

    public TrainRequest command(List<String> v) {
        command = v;
        return this;
    }

    public TrainRequest args(List<String> v) {
        args = v;
        return this;
    }
    /** The command is a finished container command (from a TrainJob body): no launcher is put in front of it. */
    public TrainRequest verbatimCommand(boolean v) {
        verbatimCommand = v;
        return this;
    }

    public TrainRequest pythonFile(String v) {
        pythonFile = v;
        return this;
    }

    public TrainRequest script(String v) {
        script = v;
        return this;
    }

    public TrainRequest scriptFileName(String v) {
        scriptFileName = v;
        return this;
    }
    /** Run the image's own ENTRYPOINT/CMD: the TrainJob gives no command (args, if any, replace the image's CMD). */
    public TrainRequest imageEntrypoint(Boolean v) {
        imageEntrypoint = v;
        return this;
    }
    /** A local project folder or archive ({@code file:} optional) the code runs in on every node. */
    public TrainRequest workspace(String v) {
        workspace = v;
        return this;
    }
    /** A workspace already read (e.g. from a message's archive); wins over {@link #workspace(String)}. */
    public TrainRequest workspaceContent(Workspace v) {
        workspaceContent = v;
        return this;
    }
    /** Where the pods fetch a workspace kept in a {@code WorkspaceStore}; set by the submitter, never by a caller. */
    public TrainRequest workspaceUrl(URI v) {
        workspaceUrl = v;
        return this;
    }
    /** The W3C trace context of the exchange that asks for the job; recorded on it, never compared. */
    public TrainRequest traceParent(String v) {
        traceParent = v;
        return this;
    }

    public TrainRequest packages(List<String> v) {
        packages = v;
        return this;
    }

    public TrainRequest pipIndexUrls(List<String> v) {
        pipIndexUrls = v;
        return this;
    }

    public TrainRequest numNodes(Integer v) {
        numNodes = v;
        return this;
    }

    public TrainRequest numProcPerNode(Integer v) {
        numProcPerNode = v;
        return this;
    }

    public TrainRequest outputUri(String v) {
        outputUri = v;
        return this;
    }

    public TrainRequest activeDeadlineSeconds(Long v) {
        activeDeadlineSeconds = v;
        return this;
    }

    public TrainRequest ttlAfterFinishedSeconds(Long v) {
        ttlAfterFinishedSeconds = v;
        return this;
    }

    public TrainRequest suspend(Boolean v) {
        suspend = v;
        return this;
    }

    public TrainRequest managedBy(String v) {
        managedBy = v;
        return this;
    }

    public TrainRequest queue(String v) {
        queue = v;
        return this;
    }

    public TrainRequest priorityClass(String v) {
        priorityClass = v;
        return this;
    }

    public TrainRequest tolerations(List<Toleration> v) {
        tolerations = v;
        return this;
    }

    public TrainRequest nodeAffinity(NodeAffinity v) {
        nodeAffinity = v;
        return this;
    }

    public TrainRequest volumes(List<PodOptions.PodVolume> v) {
        volumes = v;
        return this;
    }

    public TrainRequest serviceAccountName(String v) {
        serviceAccountName = v;
        return this;
    }

    public TrainRequest imagePullSecrets(List<String> v) {
        imagePullSecrets = v;
        return this;
    }

    public TrainRequest podSecurityContext(PodSecurityContext v) {
        podSecurityContext = v;
        return this;
    }
    /** The security context of the container patched in each job (node, or the initializer's own). */
    public TrainRequest securityContext(SecurityContext v) {
        securityContext = v;
        return this;
    }
    /** The replicated jobs the pod options go to; none: every job that runs the trainer's code. */
    public TrainRequest podJobs(List<String> v) {
        podJobs = v;
        return this;
    }
    /** Act within this caller's rights: the submit checks them with the API server before any write. */
    public TrainRequest caller(Caller v) {
        caller = v;
        return this;
    }

    public String namespace() {
        return namespace;
    }

    public String jobName() {
        return jobName;
    }

    public String jobNamePrefix() {
        return jobNamePrefix;
    }

    public String idempotencyKey() {
        return idempotencyKey;
    }

    public String idempotencyScope() {
        return idempotencyScope;
    }

    public String runKey() {
        return runKey;
    }

    public boolean skipIfRunning() {
        return Boolean.TRUE.equals(skipIfRunning);
    }

    public String inFlightGroup() {
        return inFlightGroup;
    }

    public Integer maxInFlight() {
        return maxInFlight;
    }

    public String runtime() {
        return runtime;
    }

    public String runtimeKind() {
        return runtimeKind;
    }

    public String image() {
        return image;
    }

    public Launcher launcher() {
        return launcher;
    }

    public List<ImageRule> imageRules() {
        return imageRules == null ? List.of() : imageRules;
    }

    public List<String> command() {
        return command;
    }

    public List<String> args() {
        return args;
    }

    public boolean verbatimCommand() {
        return verbatimCommand;
    }

    public String pythonFile() {
        return pythonFile;
    }

    public String script() {
        return script;
    }

    public String scriptFileName() {
        return scriptFileName;
    }

    public boolean imageEntrypoint() {
        return Boolean.TRUE.equals(imageEntrypoint);
    }
    /** The torchtune builtin trainer's typed settings, set in place by the fields; empty unless a request sets one. */
    public TorchTuneConfig torchtune() {
        return torchtune;
    }

    public String workspace() {
        return workspace;
    }

    public Workspace workspaceContent() {
        return workspaceContent;
    }

    public URI workspaceUrl() {
        return workspaceUrl;
    }

    public String traceParent() {
        return traceParent;
    }

    public List<String> packages() {
        return packages == null ? List.of() : packages;
    }

    public List<String> pipIndexUrls() {
        return pipIndexUrls == null ? List.of() : pipIndexUrls;
    }

    public Map<String, EnvVar> env() {
        return env;
    }

    public Integer numNodes() {
        return numNodes;
    }

    public Integer numProcPerNode() {
        return numProcPerNode;
    }

    public Map<String, String> resources() {
        return resources;
    }

    public Map<String, String> labels() {
        return labels;
    }

    public Map<String, String> annotations() {
        return annotations;
    }

    public String outputUri() {
        return outputUri;
    }
    /** What the request says about the dataset initializer (storage URI, Secret, kind, settings). */
    public InitializerRequest dataset() {
        return dataset;
    }
    /** What the request says about the model initializer. */
    public InitializerRequest model() {
        return model;
    }

    public InitializerRequest initializer(InitializerStep step) {
        return step == InitializerStep.DATASET ? dataset : model;
    }

    public Long activeDeadlineSeconds() {
        return activeDeadlineSeconds;
    }

    public Long ttlAfterFinishedSeconds() {
        return ttlAfterFinishedSeconds;
    }

    public Boolean suspend() {
        return suspend;
    }

    public String managedBy() {
        return managedBy;
    }

    public String queue() {
        return queue;
    }

    public String priorityClass() {
        return priorityClass;
    }

    public Caller caller() {
        return caller;
    }

    public List<RuntimePatch> runtimePatches() {
        return runtimePatches;
    }

    public Map<String, String> nodeSelector() {
        return nodeSelector;
    }

    public List<Toleration> tolerations() {
        return tolerations;
    }

    public NodeAffinity nodeAffinity() {
        return nodeAffinity;
    }

    public List<PodOptions.PodVolume> volumes() {
        return volumes == null ? List.of() : volumes;
    }

    public String serviceAccountName() {
        return serviceAccountName;
    }

    public List<String> imagePullSecrets() {
        return imagePullSecrets == null ? List.of() : imagePullSecrets;
    }

    public PodSecurityContext podSecurityContext() {
        return podSecurityContext;
    }

    public SecurityContext securityContext() {
        return securityContext;
    }

    public List<String> podJobs() {
        return podJobs;
    }
}
