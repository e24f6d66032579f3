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
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Everything a caller can say about the TrainJob it wants, each field optional. Requests are layered (endpoint
 * defaults, then a TrainJob body, then per-message headers) with {@link #overlay}, and the merged request is
 * checked by {@link TrainRequestValidator} and built by {@link TrainJobFactory}.
 */
public final class TrainRequest {
    private Launcher launcher;
    private List<ImageRule> imageRules;
    private List<String> command;
    private boolean verbatimCommand;
    private String pythonFile;
    private String script;
    private Boolean imageEntrypoint;
    private String workspace;
    private Workspace workspaceContent;
    private URI workspaceUrl;
    private String traceParent;
    private final Map<String, EnvVar> env = new LinkedHashMap<>();
    private final Map<String, String> resources = new LinkedHashMap<>();
    private final Map<String, String> labels = new LinkedHashMap<>();
    private final Map<String, String> annotations = new LinkedHashMap<>();
    private InitializerRequest dataset = new InitializerRequest();
    private InitializerRequest model = new InitializerRequest();
    private TorchTuneConfig torchtune = new TorchTuneConfig();
    private Long ttlAfterFinishedSeconds;
    private final List<RuntimePatch> runtimePatches = new ArrayList<>();
    private final Map<String, String> nodeSelector = new LinkedHashMap<>();
    private List<Toleration> tolerations;
    private NodeAffinity nodeAffinity;
    private List<PodOptions.PodVolume> volumes;
    private PodSecurityContext podSecurityContext;
    private SecurityContext securityContext;
    /** The plain fields' values ({@link TrainField#isPlain}), each of its kind's Java type; none is null. */
    private final Map<TrainField, Object> plain = new EnumMap<>(TrainField.class);
    /** Who the request acts for; never from a request's own fields, only from an authenticated identity. */
    private Caller caller;

    /**
     * A new request with this one's values overridden by every value {@code top} sets. The payload (command,
     * pythonFile, script) is taken whole from the top layer when it names any of them, so a header's script replaces
     * an endpoint's command instead of clashing with it; maps and env merge key by key; runtime patches add up.
     */
    public TrainRequest overlay(TrainRequest top) {
        TrainRequest merged = new TrainRequest();
        merged.plain.putAll(plain);
        merged.plain.putAll(top.plain);
        merged.launcher = pick(top.launcher, launcher);
        merged.imageRules = pick(top.imageRules, imageRules);
        TrainRequest payloadLayer = top.hasPayload() ? top : this;
        merged.command = payloadLayer.command;
        merged.verbatimCommand = payloadLayer.verbatimCommand;
        merged.pythonFile = payloadLayer.pythonFile;
        merged.script = payloadLayer.script;
        merged.imageEntrypoint = payloadLayer.imageEntrypoint;
        // a workspace comes whole from one layer: a location or the content read from one
        TrainRequest workspaceLayer = top.workspace != null || top.workspaceContent != null ? top : this;
        merged.workspace = workspaceLayer.workspace;
        merged.workspaceContent = workspaceLayer.workspaceContent;
        merged.workspaceUrl = workspaceLayer.workspaceUrl;
        merged.env.putAll(env);
        merged.env.putAll(top.env);
        merged.resources.putAll(resources);
        merged.resources.putAll(top.resources);
        merged.labels.putAll(labels);
        merged.labels.putAll(top.labels);
        merged.annotations.putAll(annotations);
        merged.annotations.putAll(top.annotations);
        merged.dataset = dataset.overlay(top.dataset);
        merged.model = model.overlay(top.model);
        merged.torchtune = torchtune.overlay(top.torchtune);
        merged.ttlAfterFinishedSeconds = pick(top.ttlAfterFinishedSeconds, ttlAfterFinishedSeconds);
        merged.runtimePatches.addAll(runtimePatches);
        merged.runtimePatches.addAll(top.runtimePatches);
        merged.nodeSelector.putAll(nodeSelector);
        merged.nodeSelector.putAll(top.nodeSelector);
        merged.tolerations = pick(top.tolerations, tolerations);
        merged.nodeAffinity = pick(top.nodeAffinity, nodeAffinity);
        merged.volumes = pick(top.volumes, volumes);
        merged.podSecurityContext = pick(top.podSecurityContext, podSecurityContext);
        merged.securityContext = pick(top.securityContext, securityContext);
        merged.caller = pick(top.caller, caller);
        return merged;
    }

    /**
     * Sets a plain field's value as it comes, or unsets it (null). A value not of the field's kind is refused
     * ({@link TrainField#ofKind}); a field that is not plain is a mistake of the code calling.
     */
    public TrainRequest set(TrainField field, Object value) {
        return set(field, value, field.fieldName());
    }

    /** {@link #set(TrainField, Object)}, a refusal naming the field as the caller wrote it. */
    TrainRequest set(TrainField field, Object value, String asWritten) {
        if (!field.isPlain()) {
            throw new IllegalArgumentException(field + " is not a plain field: set it through the field");
        }
        if (value == null) {
            plain.remove(field);
        } else {
            plain.put(field, field.ofKind(value, asWritten));
        }
        return this;
    }

    /** A plain field's value, of its kind's Java type, or null when no layer sets it. */
    public Object value(TrainField field) {
        return plain.get(field);
    }

    /** A plain field's list of strings, or {@code unset}. */
    @SuppressWarnings("unchecked")
    private List<String> strings(TrainField field, List<String> unset) {
        return (List<String>) plain.getOrDefault(field, unset);
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
                || plain.containsKey(TrainField.SERVICE_ACCOUNT_NAME)
                || plain.containsKey(TrainField.IMAGE_PULL_SECRETS)
                || podSecurityContext != null
                || securityContext != null;
    }

    public TrainRequest runtimePatch(RuntimePatch patch) {
        runtimePatches.add(patch);
        return this;
    }

    // fluent setters and getters

    public TrainRequest namespace(String v) {
        return set(TrainField.NAMESPACE, v);
    }

    public TrainRequest jobName(String v) {
        return set(TrainField.JOB_NAME, v);
    }

    public TrainRequest jobNamePrefix(String v) {
        return set(TrainField.JOB_NAME_PREFIX, v);
    }

    public TrainRequest idempotencyKey(String v) {
        return set(TrainField.IDEMPOTENCY_KEY, v);
    }
    /** The key space of the idempotency key: the same key in two scopes names two jobs. */
    public TrainRequest idempotencyScope(String v) {
        return set(TrainField.IDEMPOTENCY_SCOPE, v);
    }
    /** What "the same training" means for skipIfRunning, e.g. a model name. */
    public TrainRequest runKey(String v) {
        return set(TrainField.RUN_KEY, v);
    }

    public TrainRequest skipIfRunning(Boolean v) {
        return set(TrainField.SKIP_IF_RUNNING, v);
    }

    public TrainRequest inFlightGroup(String v) {
        return set(TrainField.IN_FLIGHT_GROUP, v);
    }

    public TrainRequest maxInFlight(Integer v) {
        return set(TrainField.MAX_IN_FLIGHT, v);
    }

    public TrainRequest runtime(String v) {
        return set(TrainField.RUNTIME, v);
    }

    public TrainRequest runtimeKind(String v) {
        return set(TrainField.RUNTIME_KIND, v);
    }

    public TrainRequest image(String v) {
        return set(TrainField.IMAGE, v);
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
        return set(TrainField.ARGS, v);
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
        return set(TrainField.SCRIPT_FILE_NAME, v);
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
        return set(TrainField.PACKAGES, v);
    }

    public TrainRequest pipIndexUrls(List<String> v) {
        return set(TrainField.PIP_INDEX_URLS, v);
    }

    public TrainRequest numNodes(Integer v) {
        return set(TrainField.NUM_NODES, v);
    }

    public TrainRequest numProcPerNode(Integer v) {
        return set(TrainField.NUM_PROC_PER_NODE, v);
    }

    public TrainRequest outputUri(String v) {
        return set(TrainField.OUTPUT_URI, v);
    }

    public TrainRequest activeDeadlineSeconds(Long v) {
        return set(TrainField.ACTIVE_DEADLINE_SECONDS, v);
    }

    public TrainRequest ttlAfterFinishedSeconds(Long v) {
        ttlAfterFinishedSeconds = v;
        return this;
    }

    public TrainRequest suspend(Boolean v) {
        return set(TrainField.SUSPEND, v);
    }

    public TrainRequest managedBy(String v) {
        return set(TrainField.MANAGED_BY, v);
    }

    public TrainRequest queue(String v) {
        return set(TrainField.QUEUE, v);
    }

    public TrainRequest priorityClass(String v) {
        return set(TrainField.PRIORITY_CLASS, v);
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
        return set(TrainField.SERVICE_ACCOUNT_NAME, v);
    }

    public TrainRequest imagePullSecrets(List<String> v) {
        return set(TrainField.IMAGE_PULL_SECRETS, v);
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
        return set(TrainField.POD_JOBS, v);
    }
    /** Act within this caller's rights: the submit checks them with the API server before any write. */
    public TrainRequest caller(Caller v) {
        caller = v;
        return this;
    }

    public String namespace() {
        return (String) plain.get(TrainField.NAMESPACE);
    }

    public String jobName() {
        return (String) plain.get(TrainField.JOB_NAME);
    }

    public String jobNamePrefix() {
        return (String) plain.get(TrainField.JOB_NAME_PREFIX);
    }

    public String idempotencyKey() {
        return (String) plain.get(TrainField.IDEMPOTENCY_KEY);
    }

    public String idempotencyScope() {
        return (String) plain.get(TrainField.IDEMPOTENCY_SCOPE);
    }

    public String runKey() {
        return (String) plain.get(TrainField.RUN_KEY);
    }

    public boolean skipIfRunning() {
        return Boolean.TRUE.equals(plain.get(TrainField.SKIP_IF_RUNNING));
    }

    public String inFlightGroup() {
        return (String) plain.get(TrainField.IN_FLIGHT_GROUP);
    }

    public Integer maxInFlight() {
        return (Integer) plain.get(TrainField.MAX_IN_FLIGHT);
    }

    public String runtime() {
        return (String) plain.get(TrainField.RUNTIME);
    }

    public String runtimeKind() {
        return (String) plain.get(TrainField.RUNTIME_KIND);
    }

    public String image() {
        return (String) plain.get(TrainField.IMAGE);
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
        return strings(TrainField.ARGS, null);
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
        return (String) plain.get(TrainField.SCRIPT_FILE_NAME);
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
        return strings(TrainField.PACKAGES, List.of());
    }

    public List<String> pipIndexUrls() {
        return strings(TrainField.PIP_INDEX_URLS, List.of());
    }

    public Map<String, EnvVar> env() {
        return env;
    }

    public Integer numNodes() {
        return (Integer) plain.get(TrainField.NUM_NODES);
    }

    public Integer numProcPerNode() {
        return (Integer) plain.get(TrainField.NUM_PROC_PER_NODE);
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
        return (String) plain.get(TrainField.OUTPUT_URI);
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
        return (Long) plain.get(TrainField.ACTIVE_DEADLINE_SECONDS);
    }

    public Long ttlAfterFinishedSeconds() {
        return ttlAfterFinishedSeconds;
    }

    public Boolean suspend() {
        return (Boolean) plain.get(TrainField.SUSPEND);
    }

    public String managedBy() {
        return (String) plain.get(TrainField.MANAGED_BY);
    }

    public String queue() {
        return (String) plain.get(TrainField.QUEUE);
    }

    public String priorityClass() {
        return (String) plain.get(TrainField.PRIORITY_CLASS);
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
        return (String) plain.get(TrainField.SERVICE_ACCOUNT_NAME);
    }

    public List<String> imagePullSecrets() {
        return strings(TrainField.IMAGE_PULL_SECRETS, List.of());
    }

    public PodSecurityContext podSecurityContext() {
        return podSecurityContext;
    }

    public SecurityContext securityContext() {
        return securityContext;
    }

    public List<String> podJobs() {
        return strings(TrainField.POD_JOBS, null);
    }
}
