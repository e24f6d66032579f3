package io.camelkubeflow.trainer.job;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

import io.camelkubeflow.trainer.access.Access;
import io.camelkubeflow.trainer.runtime.ImageRule;
import io.fabric8.kubernetes.api.model.Quantity;

/**
 * What a request may ask for, whoever sends it and whatever its entry point: the namespaces and runtimes it may name,
 * whether it may replace the runtime's image (and with which images) or give its own command, the Secrets and
 * ConfigMaps it may hand to its pods, and the most nodes, processes, GPUs, CPU, memory, run time and script size it
 * may ask for. Checked on the TrainJob a request would make, before anything is written; a request asking for more
 * fails with {@link PolicyViolationException} naming the rule. Immutable: each {@code with...} gives a new policy.
 * {@link #safeDefaults()} allows no image override and no Secret or ConfigMap, with small maxima.
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
    private Map<String, Quantity> resourceMaxima = Map.of(CPU, new Quantity("32"), MEMORY, new Quantity("256Gi"),
            GPU, new Quantity("8"));
    private long defaultActiveDeadlineSeconds = 24 * 3600L;
    private long maxActiveDeadlineSeconds = 7 * 24 * 3600L;
    private int maxScriptBytes = TrainRequestValidator.MAX_SCRIPT_BYTES;
    private List<String> workspaceSources = List.of();
    private List<String> outputLocations = List.of();

    private RequestPolicy() {
    }

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
            throw new PolicyViolationException("workspaceSources", "workspace '" + location + "' has a '.' or '..'"
                    + " segment, an escaped character or a backslash; name the repository or folder plainly");
        }
        if (workspaceSources.stream().noneMatch(location::startsWith)) {
            throw new PolicyViolationException("workspaceSources", "workspace '" + location + "' is not under an"
                    + " allowed source" + (workspaceSources.isEmpty() ? " (none is)" : "; allowed: "
                            + workspaceSources));
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

    public RequestPolicy withMaxima(int numNodes, int numProcPerNode, String gpu, String cpu, String memory,
            long activeDeadlineSeconds, int scriptBytes) {
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

    /** What the policy sets on a request that leaves it open, before its TrainJob is built: the run time. */
    public void applyDefaults(TrainRequest request) {
        if (request.activeDeadlineSeconds() == null) {
            request.activeDeadlineSeconds(Math.min(defaultActiveDeadlineSeconds, maxActiveDeadlineSeconds));
        }
    }

    /** Refuses, naming the rule, a request whose TrainJob asks for more than this policy allows. */
    public void check(TrainRequest request, PreparedTrainJob prepared) {
        String namespace = prepared.trainJob().getMetadata().getNamespace();
        allowed("namespaces", namespaces, namespace, "namespace");
        allowed("runtimes", runtimes, prepared.runtime().name(), "runtime");
        if (request.image() != null) {
            if (!imageOverride) {
                throw new PolicyViolationException("imageOverride", "the request replaces the runtime's image with '"
                        + request.image() + "'; requests run the runtime's own image here");
            }
            if (!images.isEmpty() && images.stream().map(ImageRule::globPattern).map(Pattern::asMatchPredicate)
                    .noneMatch(matches -> matches.test(request.image()))) {
                throw new PolicyViolationException("images", "image '" + request.image() + "' is none of " + images);
            }
        }
        if (request.command() != null && !commandOverride) {
            throw new PolicyViolationException("commandOverride", "the request gives its own command; give a script or"
                    + " a pythonFile instead");
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
            }
        }
        atMost("maxNumNodes", "numNodes", request.numNodes(), maxNumNodes);
        atMost("maxNumProcPerNode", "numProcPerNode", request.numProcPerNode(), maxNumProcPerNode);
        request.resources().forEach((resource, quantity) -> {
            Quantity max = resourceMaxima.get(resource);
            if (max == null) {
                throw new PolicyViolationException("resources", "resource '" + resource + "' is not one a request"
                        + " may ask for here; allowed: " + resourceMaxima.keySet().stream().sorted().toList());
            }
            atMost(MAXIMUM_RULES.getOrDefault(resource, "resourceMaxima"), GPU.equals(resource) ? "gpu" : resource,
                    quantity, max);
        });
        if (request.activeDeadlineSeconds() != null && request.activeDeadlineSeconds() > maxActiveDeadlineSeconds) {
            throw new PolicyViolationException("maxActiveDeadlineSeconds", "activeDeadlineSeconds "
                    + request.activeDeadlineSeconds() + " is over " + maxActiveDeadlineSeconds);
        }
        if (request.outputUri() != null && outputLocations.stream().noneMatch(request.outputUri()::startsWith)) {
            // the validator has refused '.' and '..' segments already, so a prefix cannot be left by the path
            throw new PolicyViolationException("outputLocations", "outputUri '" + request.outputUri() + "' is not"
                    + " under an allowed output location" + (outputLocations.isEmpty() ? " (none is)"
                            : "; allowed: " + outputLocations));
        }
        if (request.script() != null
                && request.script().getBytes(StandardCharsets.UTF_8).length > maxScriptBytes) {
            throw new PolicyViolationException("maxScriptBytes", "the script is "
                    + request.script().getBytes(StandardCharsets.UTF_8).length + " bytes, over " + maxScriptBytes);
        }
    }

    private static void allowed(String rule, Set<String> allowed, String value, String what) {
        if (!allowed.contains(ANY) && !allowed.contains(value)) {
            throw new PolicyViolationException(rule, what + " '" + value + "' is not allowed"
                    + (allowed.isEmpty() ? " (none is)" : "; allowed: " + allowed.stream().sorted().toList()));
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
