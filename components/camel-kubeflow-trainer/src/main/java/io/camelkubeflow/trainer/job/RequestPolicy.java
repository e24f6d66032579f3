package io.camelkubeflow.trainer.job;

import io.camelkubeflow.trainer.access.Access;
import io.camelkubeflow.trainer.api.RuntimePatch;
import io.camelkubeflow.trainer.api.RuntimePatch.ContainerPatch;
import io.camelkubeflow.trainer.api.RuntimePatch.PodSpecPatch;
import io.camelkubeflow.trainer.runtime.ImageRule;
import io.fabric8.kubernetes.api.model.NodeAffinity;
import io.fabric8.kubernetes.api.model.NodeSelectorRequirement;
import io.fabric8.kubernetes.api.model.NodeSelectorTerm;
import io.fabric8.kubernetes.api.model.PodSecurityContext;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.SELinuxOptions;
import io.fabric8.kubernetes.api.model.SecurityContext;
import io.fabric8.kubernetes.api.model.Sysctl;
import io.fabric8.kubernetes.api.model.Toleration;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.WindowsSecurityContextOptions;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * What a request may ask for, whoever sends it and whatever its entry point: the namespaces and runtimes it may name,
 * whether it may replace the runtime's image (and with which images) or give its own command, the Secrets,
 * ConfigMaps and PVCs it may hand to its pods, the nodes, taints and ServiceAccounts its pods may use (no root, no
 * privilege and no node's disk, ever), and the most nodes, processes, GPUs, CPU, memory, run time and script size it
 * may ask for. Checked on the TrainJob a request would make, before anything is written; a request asking for more
 * fails with {@link PolicyViolationException} naming the rule. Immutable: each {@code with...} gives a new policy.
 * {@link #safeDefaults()} allows no image override, no Secret, ConfigMap or PVC, no node selection, toleration or
 * ServiceAccount, with small maxima.
 */
public final class RequestPolicy {
    /** In a set of names: any name. */
    public static final String ANY = "*";

    private static final String CPU = "cpu";
    private static final String MEMORY = "memory";
    private static final String GPU = "nvidia.com/gpu";
    /** The rule each of the default resources is refused under; a configured one's is {@code resourceMaxima}. */
    private static final Map<String, String> MAXIMUM_RULES = Map.of(CPU, "maxCpu", MEMORY, "maxMemory", GPU, "maxGpu");

    // not final only so that each with... can change its own fresh copy; no instance changes once handed out
    private Set<String> namespaces = Set.of(ANY);
    private Set<String> runtimes = Set.of(ANY);
    private boolean imageOverride;
    private List<String> images = List.of();
    private boolean commandOverride;
    private Set<String> secrets = Set.of();
    private Set<String> configMaps = Set.of();
    private int maxNumNodes = 4;
    private int maxNumProcPerNode = 8;
    /** The resources a request may ask for per node, each with its maximum; any other resource is refused. */
    private Map<String, Quantity> resourceMaxima =
            Map.of(CPU, new Quantity("32"), MEMORY, new Quantity("256Gi"), GPU, new Quantity("8"));

    private long defaultActiveDeadlineSeconds = 24 * 3600L;
    private long maxActiveDeadlineSeconds = 7 * 24 * 3600L;
    private int maxScriptBytes = TrainRequestValidator.MAX_SCRIPT_BYTES;
    private List<String> workspaceSources = List.of();
    private List<String> outputLocations = List.of();
    /** Node labels pods may be placed by, each {@code key=value} or {@code key=*} for any value of the key. */
    private Set<String> nodeSelectors = Set.of();

    private Set<String> tolerations = Set.of();
    private Set<String> serviceAccounts = Set.of();
    private Set<String> persistentVolumeClaims = Set.of();
    /** The LocalQueues a request may name (Kueue's queue-name label). */
    private Set<String> queues = Set.of(ANY);
    /** The LocalQueue a request that names none gets (null: none). */
    private String defaultQueue;
    /** Whether a request must end up in a LocalQueue (its own or the default). */
    private boolean queueRequired;
    /** The WorkloadPriorityClasses a request may name: a higher one lets Kueue preempt other teams' jobs. */
    private Set<String> priorityClasses = Set.of();

    private RequestPolicy() {}

    /**
     * Any namespace and runtime; no image or command override (a request runs a script, a Python file or a workspace
     * in the runtime's image, launched as the runtime says); no Secret or ConfigMap; per node at most 32 CPUs, 256Gi of
     * memory and 8 nvidia.com/gpu and no other resource; at most 4 nodes of 8 processes; a run time of 1 day unless the
     * request gives one, 7 days at most; a 200 KiB script (the most any inline script may be).
     */
    public static RequestPolicy safeDefaults() {
        return new RequestPolicy();
    }

    private RequestPolicy copy() {
        RequestPolicy copy = new RequestPolicy();
        copy.namespaces = namespaces;
        copy.runtimes = runtimes;
        copy.imageOverride = imageOverride;
        copy.images = images;
        copy.commandOverride = commandOverride;
        copy.secrets = secrets;
        copy.configMaps = configMaps;
        copy.maxNumNodes = maxNumNodes;
        copy.maxNumProcPerNode = maxNumProcPerNode;
        copy.resourceMaxima = resourceMaxima;
        copy.defaultActiveDeadlineSeconds = defaultActiveDeadlineSeconds;
        copy.maxActiveDeadlineSeconds = maxActiveDeadlineSeconds;
        copy.maxScriptBytes = maxScriptBytes;
        copy.workspaceSources = workspaceSources;
        copy.outputLocations = outputLocations;
        copy.nodeSelectors = nodeSelectors;
        copy.tolerations = tolerations;
        copy.serviceAccounts = serviceAccounts;
        copy.persistentVolumeClaims = persistentVolumeClaims;
        copy.queues = queues;
        copy.defaultQueue = defaultQueue;
        copy.queueRequired = queueRequired;
        copy.priorityClasses = priorityClasses;
        return copy;
    }

    public RequestPolicy withNamespaces(Set<String> names) {
        RequestPolicy policy = copy();
        policy.namespaces = Set.copyOf(names);
        return policy;
    }

    public RequestPolicy withRuntimes(Set<String> names) {
        RequestPolicy policy = copy();
        policy.runtimes = Set.copyOf(names);
        return policy;
    }

    /** @param globs the images allowed (e.g. registry.example.com/team/*); empty: any image */
    public RequestPolicy withImageOverride(boolean allowed, List<String> globs) {
        RequestPolicy policy = copy();
        policy.imageOverride = allowed;
        policy.images = List.copyOf(globs);
        return policy;
    }

    public RequestPolicy withCommandOverride(boolean allowed) {
        RequestPolicy policy = copy();
        policy.commandOverride = allowed;
        return policy;
    }

    public RequestPolicy withSecrets(Set<String> names) {
        RequestPolicy policy = copy();
        policy.secrets = Set.copyOf(names);
        return policy;
    }

    public RequestPolicy withConfigMaps(Set<String> names) {
        RequestPolicy policy = copy();
        policy.configMaps = Set.copyOf(names);
        return policy;
    }

    /**
     * @param labels the node labels a request's pods may be placed by (node selector, node affinity), each
     *               {@code key=value}, or {@code key=*} for any value; empty (the default): none
     */
    public RequestPolicy withNodeSelectors(Set<String> labels) {
        RequestPolicy policy = copy();
        policy.nodeSelectors = Set.copyOf(labels);
        return policy;
    }

    /** @param keys the taint keys a request's pods may tolerate; empty (the default): none */
    public RequestPolicy withTolerations(Set<String> keys) {
        RequestPolicy policy = copy();
        policy.tolerations = Set.copyOf(keys);
        return policy;
    }

    /**
     * @param names the ServiceAccounts a request's pods may run as; empty (the default): none but the namespace's
     *              default. Creating a pod that runs as an account takes no verb of its own on it in Kubernetes (the
     *              TrainJob's pods are made by the Trainer's controllers anyway), so this list is all that binds it.
     */
    public RequestPolicy withServiceAccounts(Set<String> names) {
        RequestPolicy policy = copy();
        policy.serviceAccounts = Set.copyOf(names);
        return policy;
    }

    /** @param names the PersistentVolumeClaims a request's pods may mount; empty (the default): none */
    public RequestPolicy withPersistentVolumeClaims(Set<String> names) {
        RequestPolicy policy = copy();
        policy.persistentVolumeClaims = Set.copyOf(names);
        return policy;
    }

    /**
     * Kueue's LocalQueues (the {@code queue} option): which a request may name, which one it gets when it names none
     * and whether it must be in one. Allowing only the default and requiring a queue forces every job into it.
     *
     * @param names        the LocalQueues a request may name; {@code *} (the default): any
     * @param defaultQueue the LocalQueue of a request that names none; null (the default): none
     * @param required     whether a request without a queue (and no default) is refused, so no job of this policy
     *                     runs outside Kueue's quota
     */
    public RequestPolicy withQueues(Set<String> names, String defaultQueue, boolean required) {
        if (defaultQueue != null && !names.contains(ANY) && !names.contains(defaultQueue)) {
            throw new IllegalArgumentException("the default queue '" + defaultQueue + "' is not among the queues"
                    + " allowed, " + names.stream().sorted().toList());
        }
        RequestPolicy policy = copy();
        policy.queues = Set.copyOf(names);
        policy.defaultQueue = defaultQueue;
        policy.queueRequired = required;
        return policy;
    }

    /**
     * @param names the WorkloadPriorityClasses a request may name (the {@code priorityClass} option); empty (the
     *              default): none. Kueue preempts lower-priority jobs for a higher one and asks no rights to name a
     *              class, so this list is all that binds it.
     */
    public RequestPolicy withPriorityClasses(Set<String> names) {
        RequestPolicy policy = copy();
        policy.priorityClasses = Set.copyOf(names);
        return policy;
    }

    /**
     * @param prefixes where a request may name a workspace from, each the start of a location ending in '/' (e.g.
     *                 {@code git+https://github.com/acme/}, {@code file:/srv/projects/}); empty (the default): nowhere,
     *                 so no request under this policy reads a disk or fetches a URL
     */
    public RequestPolicy withWorkspaceSources(List<String> prefixes) {
        for (String prefix : prefixes) {
            if (!prefix.endsWith("/")) {
                throw new IllegalArgumentException("workspace source '" + prefix + "' must end with '/', so that"
                        + " it names a folder or an owner, not the start of any name");
            }
        }
        RequestPolicy policy = copy();
        policy.workspaceSources = List.copyOf(prefixes);
        return policy;
    }

    /**
     * Refuses a workspace location the policy does not allow: checked before the workspace is read or fetched. A
     * location with a '..' or '.' path segment, an escaped character or a backslash is refused whatever the prefixes
     * (they could lead out of an allowed folder or owner).
     */
    public void checkWorkspaceSource(TrainRequest request) {
        String location = request.workspace();
        if (location == null) {
            return;
        }
        if (location.matches(".*(^|/)\\.{1,2}(/|@|$).*") || location.contains("%") || location.contains("\\")) {
            throw new PolicyViolationException(
                    "workspaceSources",
                    "workspace '" + location + "' has a '.' or '..'"
                            + " segment, an escaped character or a backslash; name the repository or folder plainly");
        }
        if (workspaceSources.stream().noneMatch(location::startsWith)) {
            throw new PolicyViolationException(
                    "workspaceSources",
                    "workspace '" + location + "' is not under an"
                            + " allowed source"
                            + (workspaceSources.isEmpty() ? " (none is)" : "; allowed: " + workspaceSources));
        }
    }

    /**
     * @param prefixes where a request may tell its training to write (outputUri), each the start of a location ending
     *                 in '/' (e.g. {@code s3://models/team-a/}); empty (the default): nowhere, since the pods write
     *                 there with their own credentials, which the caller may not have
     */
    public RequestPolicy withOutputLocations(List<String> prefixes) {
        for (String prefix : prefixes) {
            if (!prefix.endsWith("/")) {
                throw new IllegalArgumentException("output location '" + prefix + "' must end with '/', so that"
                        + " it names a bucket or folder, not the start of any name");
            }
        }
        RequestPolicy policy = copy();
        policy.outputLocations = List.copyOf(prefixes);
        return policy;
    }

    public RequestPolicy withMaxima(
            int numNodes,
            int numProcPerNode,
            String gpu,
            String cpu,
            String memory,
            long activeDeadlineSeconds,
            int scriptBytes) {
        RequestPolicy policy = copy();
        policy.maxNumNodes = numNodes;
        policy.maxNumProcPerNode = numProcPerNode;
        Map<String, Quantity> maxima = new LinkedHashMap<>(resourceMaxima);
        maxima.put(GPU, new Quantity(gpu));
        maxima.put(CPU, new Quantity(cpu));
        maxima.put(MEMORY, new Quantity(memory));
        policy.resourceMaxima = Map.copyOf(maxima);
        policy.maxActiveDeadlineSeconds = activeDeadlineSeconds;
        policy.maxScriptBytes = scriptBytes;
        return policy;
    }

    /**
     * Resources besides cpu, memory and nvidia.com/gpu a request may ask for per node, each with its maximum (e.g.
     * {@code amd.com/gpu=4}); a resource named in no maximum is refused.
     */
    public RequestPolicy withResourceMaxima(Map<String, String> maxima) {
        RequestPolicy policy = copy();
        Map<String, Quantity> merged = new LinkedHashMap<>(resourceMaxima);
        maxima.forEach((name, quantity) -> merged.put(name, new Quantity(quantity)));
        policy.resourceMaxima = Map.copyOf(merged);
        return policy;
    }

    /** The run time a request that gives none gets: a job never runs unbounded. */
    public RequestPolicy withDefaultActiveDeadlineSeconds(long seconds) {
        if (seconds < 1 || seconds > maxActiveDeadlineSeconds) {
            throw new IllegalArgumentException("the default activeDeadlineSeconds " + seconds + " must be between 1"
                    + " and the maximum, " + maxActiveDeadlineSeconds);
        }
        RequestPolicy policy = copy();
        policy.defaultActiveDeadlineSeconds = seconds;
        return policy;
    }

    /** What the policy sets on a request that leaves it open, before its TrainJob is built: the run time, the queue. */
    public void applyDefaults(TrainRequest request) {
        if (request.activeDeadlineSeconds() == null) {
            request.activeDeadlineSeconds(Math.min(defaultActiveDeadlineSeconds, maxActiveDeadlineSeconds));
        }
        if (request.queue() == null && defaultQueue != null) {
            request.queue(defaultQueue);
        }
    }

    /** Refuses, naming the rule, a request whose TrainJob asks for more than this policy allows. */
    public void check(TrainRequest request, PreparedTrainJob prepared) {
        String namespace = prepared.trainJob().getMetadata().getNamespace();
        allowed("namespaces", namespaces, namespace, "namespace");
        allowed("runtimes", runtimes, prepared.runtime().name(), "runtime");
        if (request.queue() != null) {
            allowed("queues", queues, request.queue(), "queue");
        } else if (queueRequired) {
            throw new PolicyViolationException(
                    "queueRequired",
                    "the request names no queue, and every job here is"
                            + " admitted by Kueue: give queue (a LocalQueue of namespace " + namespace + ")");
        }
        if (request.priorityClass() != null) {
            allowed("priorityClasses", priorityClasses, request.priorityClass(), "priorityClass");
        }
        if (request.image() != null) {
            if (!imageOverride) {
                throw new PolicyViolationException(
                        "imageOverride",
                        "the request replaces the runtime's image with '" + request.image()
                                + "'; requests run the runtime's own image here");
            }
            if (!images.isEmpty()
                    && images.stream()
                            .map(ImageRule::globPattern)
                            .map(Pattern::asMatchPredicate)
                            .noneMatch(matches -> matches.test(request.image()))) {
                throw new PolicyViolationException("images", "image '" + request.image() + "' is none of " + images);
            }
        }
        if (request.command() != null && !commandOverride) {
            throw new PolicyViolationException(
                    "commandOverride", "the request gives its own command; give a script or" + " a pythonFile instead");
        }
        // the Secrets and ConfigMaps the pods would be given (a staged workspace's ConfigMap is the job's own)
        for (Access access : TrainJobAccess.required(prepared)) {
            if (access.name() == null) {
                continue;
            }
            if ("secrets".equals(access.resource())) {
                allowed("secrets", secrets, access.name(), "Secret");
            } else if ("configmaps".equals(access.resource())) {
                allowed("configMaps", configMaps, access.name(), "ConfigMap");
            } else if ("persistentvolumeclaims".equals(access.resource())) {
                allowed("persistentVolumeClaims", persistentVolumeClaims, access.name(), "PersistentVolumeClaim");
            }
        }
        // the pod settings of every runtime patch: the request's pod options and a TrainJob body's own patches alike
        if (prepared.trainJob().getSpec().runtimePatches() != null) {
            for (RuntimePatch patch : prepared.trainJob().getSpec().runtimePatches()) {
                patch.podSpecs().forEach(this::checkPod);
            }
        }
        atMost("maxNumNodes", "numNodes", request.numNodes(), maxNumNodes);
        atMost("maxNumProcPerNode", "numProcPerNode", request.numProcPerNode(), maxNumProcPerNode);
        request.resources().forEach((resource, quantity) -> {
            Quantity max = resourceMaxima.get(resource);
            if (max == null) {
                throw new PolicyViolationException(
                        "resources",
                        "resource '" + resource + "' is not one a request" + " may ask for here; allowed: "
                                + resourceMaxima.keySet().stream().sorted().toList());
            }
            atMost(
                    MAXIMUM_RULES.getOrDefault(resource, "resourceMaxima"),
                    GPU.equals(resource) ? "gpu" : resource,
                    quantity,
                    max);
        });
        if (request.activeDeadlineSeconds() != null && request.activeDeadlineSeconds() > maxActiveDeadlineSeconds) {
            throw new PolicyViolationException(
                    "maxActiveDeadlineSeconds",
                    "activeDeadlineSeconds " + request.activeDeadlineSeconds() + " is over "
                            + maxActiveDeadlineSeconds);
        }
        if (request.outputUri() != null && outputLocations.stream().noneMatch(request.outputUri()::startsWith)) {
            // the validator has refused '.' and '..' segments already, so a prefix cannot be left by the path
            throw new PolicyViolationException(
                    "outputLocations",
                    "outputUri '" + request.outputUri() + "' is not"
                            + " under an allowed output location"
                            + (outputLocations.isEmpty() ? " (none is)" : "; allowed: " + outputLocations));
        }
        if (request.script() != null && request.script().getBytes(StandardCharsets.UTF_8).length > maxScriptBytes) {
            throw new PolicyViolationException(
                    "maxScriptBytes",
                    "the script is " + request.script().getBytes(StandardCharsets.UTF_8).length + " bytes, over "
                            + maxScriptBytes);
        }
    }

    /**
     * Where the pods may run and as whom (allow-lists), and what no request gets whatever the lists say: a volume of
     * the node's disk or of any kind but emptyDir, ConfigMap, Secret, PVC and downward API; a privileged container,
     * privilege escalation, added capabilities; root. (hostNetwork, hostPID and hostIPC are no fields of a runtime
     * patch: a TrainJob body that sets them is refused as it is read.)
     */
    private void checkPod(PodSpecPatch pod) {
        if (pod.nodeSelector() != null) {
            pod.nodeSelector().forEach((key, value) -> nodeLabel(key, value, "node selector"));
        }
        if (pod.affinity() != null && pod.affinity().getNodeAffinity() != null) {
            NodeAffinity affinity = pod.affinity().getNodeAffinity();
            List<NodeSelectorTerm> terms = new ArrayList<>();
            if (affinity.getRequiredDuringSchedulingIgnoredDuringExecution() != null) {
                terms.addAll(affinity.getRequiredDuringSchedulingIgnoredDuringExecution()
                        .getNodeSelectorTerms());
            }
            affinity.getPreferredDuringSchedulingIgnoredDuringExecution().forEach(p -> terms.add(p.getPreference()));
            for (NodeSelectorTerm term : terms) {
                List<NodeSelectorRequirement> requirements = new ArrayList<>(term.getMatchExpressions());
                requirements.addAll(term.getMatchFields());
                for (NodeSelectorRequirement requirement : requirements) {
                    if ("In".equals(requirement.getOperator())) {
                        requirement.getValues().forEach(v -> nodeLabel(requirement.getKey(), v, "node affinity"));
                    } else {
                        nodeLabel(requirement.getKey(), ANY, "node affinity");
                    }
                }
            }
        }
        if (pod.tolerations() != null) {
            for (Toleration toleration : pod.tolerations()) {
                String key = toleration.getKey() == null ? "" : toleration.getKey();
                if (!tolerations.contains(ANY) && !tolerations.contains(key)) {
                    throw new PolicyViolationException(
                            "tolerations",
                            (key.isEmpty() ? "a toleration of every taint" : "toleration of '" + key + "'")
                                    + " is not allowed"
                                    + (tolerations.isEmpty()
                                            ? " (none is)"
                                            : "; allowed keys: "
                                                    + tolerations.stream()
                                                            .sorted()
                                                            .toList()));
                }
            }
        }
        if (pod.serviceAccountName() != null) {
            allowed("serviceAccounts", serviceAccounts, pod.serviceAccountName(), "ServiceAccount");
        }
        for (Volume volume : pod.volumes() == null ? List.<Volume>of() : pod.volumes()) {
            if (volume.getHostPath() != null) {
                throw new PolicyViolationException(
                        "hostPath",
                        "volume '" + volume.getName() + "' mounts the node's" + " path "
                                + volume.getHostPath().getPath() + "; no request may mount the node's disk");
            }
            if (volume.getEmptyDir() == null
                    && volume.getConfigMap() == null
                    && volume.getSecret() == null
                    && volume.getPersistentVolumeClaim() == null
                    && volume.getDownwardAPI() == null) {
                throw new PolicyViolationException(
                        "volumeKinds",
                        "volume '" + volume.getName() + "' is of a kind"
                                + " no request may mount; use emptyDir, configMap, secret or a persistentVolumeClaim");
            }
        }
        rootless(
                "the pod",
                pod.securityContext() == null ? null : pod.securityContext().getRunAsUser(),
                pod.securityContext() == null ? null : pod.securityContext().getRunAsNonRoot());
        if (pod.securityContext() != null) {
            PodSecurityContext context = pod.securityContext();
            if (context.getSysctls() != null && !context.getSysctls().isEmpty()) {
                throw new PolicyViolationException(
                        "sysctls",
                        "the pod would set the kernel parameters "
                                + context.getSysctls().stream()
                                        .map(Sysctl::getName)
                                        .toList() + "; no request may");
            }
            confined(
                    "the pod",
                    context.getSeLinuxOptions(),
                    context.getWindowsOptions(),
                    context.getSeccompProfile() == null
                            ? null
                            : context.getSeccompProfile().getType(),
                    context.getAppArmorProfile() == null
                            ? null
                            : context.getAppArmorProfile().getType());
        }
        for (List<ContainerPatch> containers : Arrays.asList(pod.containers(), pod.initContainers())) {
            for (ContainerPatch container : containers == null ? List.<ContainerPatch>of() : containers) {
                SecurityContext context = container.securityContext();
                if (context == null) {
                    continue;
                }
                String where = "container '" + container.name() + "'";
                if (Boolean.TRUE.equals(context.getPrivileged())) {
                    throw new PolicyViolationException(
                            "privileged",
                            where + " would be privileged; no request may" + " run a privileged container");
                }
                if (Boolean.TRUE.equals(context.getAllowPrivilegeEscalation())) {
                    throw new PolicyViolationException(
                            "allowPrivilegeEscalation",
                            where + " would allow privilege"
                                    + " escalation; leave allowPrivilegeEscalation unset or false");
                }
                if (context.getCapabilities() != null
                        && context.getCapabilities().getAdd() != null
                        && !context.getCapabilities().getAdd().isEmpty()) {
                    throw new PolicyViolationException(
                            "addedCapabilities",
                            where + " would add the capabilities "
                                    + context.getCapabilities().getAdd() + "; a request may only drop capabilities");
                }
                rootless(where, context.getRunAsUser(), context.getRunAsNonRoot());
                if (context.getProcMount() != null && !"Default".equals(context.getProcMount())) {
                    throw new PolicyViolationException(
                            "procMount", where + " would see /proc unmasked; leave" + " procMount unset or Default");
                }
                confined(
                        where,
                        context.getSeLinuxOptions(),
                        context.getWindowsOptions(),
                        context.getSeccompProfile() == null
                                ? null
                                : context.getSeccompProfile().getType(),
                        context.getAppArmorProfile() == null
                                ? null
                                : context.getAppArmorProfile().getType());
            }
        }
    }

    /**
     * What the Pod Security Standards' baseline level keeps for any pod, held here for every patch whatever the lists
     * say: the node's SELinux labels, Windows host processes, and the seccomp and AppArmor filters are not for a
     * request to change.
     */
    private static void confined(
            String where,
            SELinuxOptions seLinux,
            WindowsSecurityContextOptions windows,
            String seccomp,
            String appArmor) {
        if (seLinux != null) {
            throw new PolicyViolationException(
                    "seLinuxOptions", where + " would set its own SELinux options; leave" + " seLinuxOptions unset");
        }
        if (windows != null && Boolean.TRUE.equals(windows.getHostProcess())) {
            throw new PolicyViolationException(
                    "hostProcess", where + " would run as a Windows host process; no" + " request may");
        }
        if ("Unconfined".equals(seccomp) || "Unconfined".equals(appArmor)) {
            throw new PolicyViolationException(
                    "unconfined",
                    where + " would run without its "
                            + ("Unconfined".equals(seccomp) ? "seccomp" : "AppArmor") + " profile; leave it unset or"
                            + " RuntimeDefault");
        }
    }

    private void nodeLabel(String key, String value, String what) {
        if (!nodeSelectors.contains(ANY)
                && !nodeSelectors.contains(key + "=" + ANY)
                && !nodeSelectors.contains(key + "=" + value)) {
            throw new PolicyViolationException(
                    "nodeSelectors",
                    what + " '" + key + (ANY.equals(value) ? "" : "=" + value) + "' is not allowed"
                            + (nodeSelectors.isEmpty()
                                    ? " (none is)"
                                    : "; allowed: "
                                            + nodeSelectors.stream().sorted().toList()));
        }
    }

    private static void rootless(String where, Long runAsUser, Boolean runAsNonRoot) {
        if (Long.valueOf(0).equals(runAsUser) || Boolean.FALSE.equals(runAsNonRoot)) {
            throw new PolicyViolationException(
                    "runAsRoot",
                    where + " would run as root (runAsUser 0 or runAsNonRoot"
                            + " false); give a non-zero runAsUser, or leave both unset");
        }
    }

    private static void allowed(String rule, Set<String> allowed, String value, String what) {
        if (!allowed.contains(ANY) && !allowed.contains(value)) {
            throw new PolicyViolationException(
                    rule,
                    what + " '" + value + "' is not allowed"
                            + (allowed.isEmpty()
                                    ? " (none is)"
                                    : "; allowed: " + allowed.stream().sorted().toList()));
        }
    }

    private static void atMost(String rule, String field, Integer value, int max) {
        if (value != null && value > max) {
            throw new PolicyViolationException(rule, field + " " + value + " is over " + max);
        }
    }

    private static void atMost(String rule, String field, String quantity, Quantity max) {
        if (quantity != null) {
            BigDecimal asked = new Quantity(quantity).getNumericalAmount();
            if (asked.compareTo(max.getNumericalAmount()) > 0) {
                throw new PolicyViolationException(rule, field + " " + quantity + " is over " + max);
            }
        }
    }
}
