package io.camelkubeflow.trainer.job;

import io.camelkubeflow.trainer.api.KubernetesNames;
import io.camelkubeflow.trainer.api.RuntimePatch;
import io.camelkubeflow.trainer.support.InvalidOptionException;
import io.fabric8.kubernetes.api.model.EnvVar;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Checks a merged {@link TrainRequest} against the rules the API server, the TrainJob CRD (schema and CEL) and the
 * Trainer admission webhook would apply, so a bad request fails here with the field and the fix, before any write:
 * first what {@link TrainRequestSchema} (the contract) says of each field, then, by hand, only what a JSON Schema
 * cannot say (a runtime to run on, sizes in bytes, quantities' exponents, reserved keys, lone surrogates, typed values
 * read from a TrainJob body, rules between the payload, a workspace and the torchtune settings, the initializers'
 * settings).
 * Checks that depend on the runtime live in {@link TrainJobFactory}.
 */
public final class TrainRequestValidator {
    /** The largest power of ten {@code BigDecimal.pow} computes. */
    private static final int MAX_EXPONENT = 999_999_999;
    /** A quantity's decimal exponent: what follows its 'e' or 'E' (an 'E' followed by nothing or 'i' is a suffix). */
    private static final Pattern DECIMAL_EXPONENT = Pattern.compile("[eE]([^i].*)$");
    /**
     * s3://bucket[/prefix] or pvc://claim[/path]: the place (group 2) and the path in it (group 3), of characters
     * that show as what they are (no control, format such as a direction override, or separator but a plain space).
     */
    private static final Pattern OUTPUT =
            Pattern.compile("(s3|pvc)://([a-z0-9][a-z0-9.-]{0,252})(/(?:[^\\p{C}\\p{Z}\\\\]| )*)?");

    private static final Pattern S3_BUCKET = Pattern.compile("[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]");
    /** The CRD's maxItems on trainer.command, trainer.args and env lists (the schema's maxItems of those fields). */
    static final int MAX_LIST_ITEMS = 128;
    /**
     * The largest inline script: it travels as a pod annotation (see {@link TrainJobFactory}), and Kubernetes caps a
     * pod's annotations at 256 KiB in all, which leaves room for the runtime's and JobSet's own.
     */
    public static final int MAX_SCRIPT_BYTES = 200 * 1024;
    /** Kubernetes caps the total size of an object's annotations at 256 KiB. */
    private static final int MAX_ANNOTATIONS_BYTES = 256 * 1024;

    private TrainRequestValidator() {}

    public static void validate(TrainRequest request) {
        // the one field every request must have, from whichever layer: a message may leave it to the route's option
        if (request.runtime() == null || request.runtime().isBlank()) {
            throw new InvalidOptionException(
                    "runtime",
                    "no runtime named; set it to a ClusterTrainingRuntime"
                            + " such as torch-distributed (kubectl get clustertrainingruntimes lists them)");
        }
        TrainRequestSchema.check(request);
        wholeCharacters(request);
        payload(request);
        imageEntrypoint(request);
        torchtune(request);
        workspace(request);
        packages(request);
        if (request.skipIfRunning()
                && (request.runKey() == null || request.runKey().isBlank())) {
            throw new InvalidOptionException(
                    "skipIfRunning",
                    "needs a runKey saying which trainings are the same"
                            + " (e.g. runKey=${header.model}); set runKey or turn skipIfRunning off");
        }
        env(request.env());
        resources(request.resources());
        metadata("labels", request.labels(), true);
        metadata("annotations", request.annotations(), false);
        kueueFreePatches(request);
        StorageInitializers.validate(request);
        output(request.outputUri(), request.env());
        if (request.ttlAfterFinishedSeconds() != null && request.ttlAfterFinishedSeconds() < 1) {
            throw new InvalidOptionException(
                    "ttlAfterFinished",
                    request.ttlAfterFinishedSeconds()
                            + " s is not a time to keep a finished TrainJob; give at least 1s, or leave it unset to keep it");
        }
    }

    /** What the schema cannot weigh: an inline script's size in UTF-8 bytes, as the pods' annotations carry it. */
    private static void payload(TrainRequest request) {
        if (request.script() != null) {
            long bytes = request.script().getBytes(StandardCharsets.UTF_8).length;
            if (bytes > MAX_SCRIPT_BYTES) {
                throw new InvalidOptionException(
                        "script",
                        "the inline script is " + bytes + " bytes, over the "
                                + MAX_SCRIPT_BYTES
                                + "-byte (200 KiB) limit of a script carried in the pods' annotations"
                                + " (Kubernetes allows 256 KiB of them); bake it into the image and use pythonFile");
            }
        }
    }

    /**
     * The image's own entrypoint runs (the SDK's CustomTrainerContainer): there must be an image of the caller's, and
     * nothing that needs a command of the component's (package installs, a workspace's bootstrap).
     */
    private static void imageEntrypoint(TrainRequest request) {
        if (!request.imageEntrypoint()) {
            return;
        }
        if (request.image() == null) {
            throw new InvalidOptionException(
                    "image",
                    "imageEntrypoint runs the entrypoint of the image given, but no"
                            + " image was given; name the image whose ENTRYPOINT/CMD trains");
        }
        if (!request.packages().isEmpty()) {
            throw new InvalidOptionException(
                    "packages",
                    "packages are installed by a command the component writes,"
                            + " but imageEntrypoint runs the image's own; install them in the image");
        }
        if (request.workspace() != null || request.workspaceContent() != null) {
            throw new InvalidOptionException(
                    "imageEntrypoint/workspace",
                    "a workspace is unpacked by a command the"
                            + " component writes, but imageEntrypoint runs the image's own; give pythonFile or command with"
                            + " the workspace, or put the code into the image");
        }
    }

    /**
     * The torchtune builtin trainer's typed config: its values, and what the Trainer's webhook refuses alongside it
     * (the runtime's own paths in args, LoRA on more than one node). It replaces the payload, so none goes with it.
     */
    private static void torchtune(TrainRequest request) {
        TorchTuneConfig config = request.torchtune();
        if (!config.isSet()) {
            return;
        }
        config.validate();
        String field = config.firstFieldSet();
        String other = request.command() != null
                ? "command"
                : request.pythonFile() != null
                        ? "pythonFile"
                        : request.script() != null
                                ? "script"
                                : request.imageEntrypoint()
                                        ? "imageEntrypoint"
                                        : request.workspace() != null || request.workspaceContent() != null
                                                ? "workspace"
                                                : !request.packages().isEmpty() ? "packages" : null;
        if (other != null) {
            throw new InvalidOptionException(
                    field + "/" + other,
                    "the torchtune settings run the runtime's builtin"
                            + " trainer (tune run, with the recipe the Trainer picks), so no " + other
                            + " can go with them;"
                            + " drop one of the two (raw config overrides go in args)");
        }
        List<String> args = request.args() == null ? List.of() : request.args();
        for (int i = 0; i < args.size(); i++) {
            String key = args.get(i).split("=", 2)[0];
            if (TorchTuneConfig.RUNTIME_CONFIGS.contains(key)) {
                throw new InvalidOptionException(
                        "args",
                        "args[" + i + "] sets " + key + ", which the runtime sets"
                                + " for the builtin trainer (the Trainer's webhook refuses it); remove it");
            }
        }
        if (request.numNodes() != null && request.numNodes() > 1 && config.hasLora()) {
            throw new InvalidOptionException(
                    "numNodes",
                    request.numNodes() + " nodes with LoRA settings ("
                            + field
                            + "): torchtune's LoRA recipes run on one node (the Trainer's webhook refuses more); set"
                            + " numNodes to 1 or drop the LoRA settings");
        }
    }

    /** A workspace holds the code: the entry point is a path inside it, and an inline script has no place there. */
    private static void workspace(TrainRequest request) {
        if (request.workspace() == null && request.workspaceContent() == null) {
            return;
        }
        if (request.workspace() != null && request.workspace().isBlank()) {
            throw new InvalidOptionException(
                    "workspace", "the workspace location is empty; give a project folder," + " a .zip or a .tar.gz");
        }
        if (request.script() != null) {
            throw new InvalidOptionException(
                    "script",
                    "an inline script and a workspace were both given; put the"
                            + " script into the workspace and name it with pythonFile");
        }
        if (request.pythonFile() == null && request.command() == null) {
            throw new InvalidOptionException(
                    "workspace",
                    "nothing says what to run in the workspace; give pythonFile"
                            + " (its path inside the workspace) or command");
        }
        if (request.pythonFile() != null && request.pythonFile().startsWith("/")) {
            throw new InvalidOptionException(
                    "pythonFile",
                    "'" + request.pythonFile() + "' is an absolute path, but"
                            + " with a workspace the code runs in the workspace's root; give the path inside it, e.g."
                            + " train.py or src/train.py");
        }
    }

    /**
     * No text of the request holds half of a surrogate pair: a lone one is a code point of its own (a pair is one
     * supplementary code point), which no UTF-8 text, and so no JSON message, can carry; it would be stored as '?'.
     * Headers and options are Java strings, which can.
     */
    private static void wholeCharacters(TrainRequest request) {
        wholeCharacters("command", request.command());
        wholeCharacters("args", request.args());
        wholeCharacters("packages", request.packages());
        wholeCharacters("pipIndexUrls", request.pipIndexUrls());
        wholeCharacters("script", request.script());
        wholeCharacters("torchtuneDatasetSplit", request.torchtune().datasetSplit());
        wholeCharacters("torchtuneNewSystemPrompt", request.torchtune().newSystemPrompt());
        wholeCharacters("scriptFileName", request.scriptFileName());
        wholeCharacters("workspace", request.workspace());
        wholeCharacters("image", request.image());
        wholeCharacters("runKey", request.runKey());
        wholeCharacters("idempotencyKey", request.idempotencyKey());
        request.env().forEach((name, value) -> wholeCharacters("env", "env " + name, value.getValue()));
        request.labels().forEach((key, value) -> wholeCharacters("labels", "label " + key, value));
        request.annotations().forEach((key, value) -> wholeCharacters("annotations", "annotation " + key, value));
    }

    private static void wholeCharacters(String field, List<String> values) {
        if (values != null) {
            for (int i = 0; i < values.size(); i++) {
                wholeCharacters(field, field + "[" + i + "]", values.get(i));
            }
        }
    }

    private static void wholeCharacters(String field, String value) {
        wholeCharacters(field, field, value);
    }

    /** @param what the field, or the item of it, that holds the value */
    private static void wholeCharacters(String field, String what, String value) {
        if (value != null && value.codePoints().anyMatch(c -> Character.getType(c) == Character.SURROGATE)) {
            throw new InvalidOptionException(
                    field,
                    what + " contains half of a surrogate pair, which no UTF-8 text"
                            + " can carry (it would be stored as '?'); send the whole character");
        }
    }

    public static String scriptFileName(TrainRequest request) {
        return request.scriptFileName() == null ? "train.py" : request.scriptFileName();
    }

    private static void packages(TrainRequest request) {
        for (String url : request.pipIndexUrls()) {
            URI uri;
            try {
                uri = URI.create(url);
            } catch (IllegalArgumentException e) {
                uri = null;
            }
            if (uri == null
                    || uri.getHost() == null
                    || !("https".equals(uri.getScheme()) || "http".equals(uri.getScheme()))) {
                throw new InvalidOptionException(
                        "pipIndexUrls",
                        "'" + url + "' is not an http(s) URL; give the"
                                + " index URL, e.g. https://pypi.org/simple (the first is --index-url, the rest --extra-index-url)");
            }
        }
    }

    /** A TrainJob body's variable, typed: a value or a valueFrom, which its JSON form does not tell apart. */
    private static void env(Map<String, EnvVar> env) {
        for (EnvVar var : env.values()) {
            String name = var.getName();
            if (var.getValue() != null && var.getValueFrom() != null) {
                throw new InvalidOptionException("env", "'" + name + "' has both a value and a valueFrom; give one");
            }
        }
    }

    private static void resources(Map<String, String> resources) {
        for (Map.Entry<String, String> entry : resources.entrySet()) {
            if (!isQuantity(entry.getValue())) {
                throw new InvalidOptionException(
                        fieldForResource(entry.getKey()),
                        "'" + entry.getValue()
                                + "' has a decimal exponent beyond " + MAX_EXPONENT + " either way; write e.g. 2, 500m,"
                                + " 16Gi or 1.5");
            }
        }
    }

    /**
     * Whether {@code value} is a quantity of zero or more by the schema's (the CRD's pattern) whose decimal exponent, if
     * it has one, is a whole number of at most {@value #MAX_EXPONENT} either way: the API server reads it as an int32,
     * and fabric8's {@code Quantity} (the factory's and the policy's) raises 10 to it with {@code BigDecimal.pow}, which
     * fails beyond that (the pattern also lets {@code 1e1.5}, {@code 1e2147483648} and {@code 5E1000806378} through).
     */
    static boolean isQuantity(String value) {
        if (value == null || !TrainRequestSchema.isA("quantity", value)) {
            return false;
        }
        Matcher exponent = DECIMAL_EXPONENT.matcher(value);
        if (!exponent.find()) {
            return true;
        }
        try {
            return Math.abs(Integer.parseInt(exponent.group(1))) <= MAX_EXPONENT;
        } catch (NumberFormatException e) {
            return false;
        }
    }

    private static String fieldForResource(String resource) {
        return switch (resource) {
            case "cpu" -> "cpu";
            case "memory" -> "memory";
            case "nvidia.com/gpu" -> "gpu";
            default -> "resources." + resource;
        };
    }

    /**
     * A TrainJob body's runtime patches neither speak for Kueue (a manager of its domain is Kueue's own patch, with
     * the flavor's placement) nor carry a label or annotation Kueue reads from the JobSet, Jobs and pods it admits
     * (topology, pod-set groups): the queue and priority go through the two options, which the policy sees.
     */
    private static void kueueFreePatches(TrainRequest request) {
        for (RuntimePatch patch : request.runtimePatches()) {
            if (patch.manager() != null && TrainJobMetadata.isKueues(patch.manager())) {
                throw new InvalidOptionException(
                        "runtimePatches.manager",
                        "'" + patch.manager() + "' is Kueue's: a"
                                + " request's runtime patch cannot stand for Kueue's own; give it a manager of your domain");
            }
            for (RuntimePatch.MetadataPatch metadata : patch.metadata()) {
                for (Map<String, String> keys : Arrays.asList(metadata.labels(), metadata.annotations())) {
                    if (keys == null) {
                        continue;
                    }
                    keys.keySet().forEach(key -> notKueues("runtimePatches.metadata", key));
                }
            }
        }
    }

    /** Refuses a label or annotation key of Kueue's domain, named as {@code field.key}. */
    private static void notKueues(String field, String key) {
        if (TrainJobMetadata.isKueues(key)) {
            throw new InvalidOptionException(
                    field + "." + key,
                    "'" + key + "' is Kueue's (it decides a job's queue,"
                            + " priority and admission): name the LocalQueue with queue and the WorkloadPriorityClass with"
                            + " priorityClass, which a request policy holds to what it allows");
        }
    }

    private static void metadata(String field, Map<String, String> entries, boolean labels) {
        int bytes = 0;
        for (Map.Entry<String, String> entry : entries.entrySet()) {
            if (TrainJobMetadata.isReserved(entry.getKey())) {
                throw new InvalidOptionException(
                        field + "." + entry.getKey(),
                        "'" + entry.getKey() + "' is reserved:"
                                + " the component sets it (idempotency, in-flight groups, run keys, TTLs, handled marks), so a"
                                + " request cannot; use a key of your own domain, e.g. example.com/team");
            }
            notKueues(field, entry.getKey());
            bytes += entry.getKey().length() + entry.getValue().length();
        }
        if (!labels && bytes > MAX_ANNOTATIONS_BYTES) {
            throw new InvalidOptionException(
                    field,
                    "annotations total " + bytes + " bytes, over Kubernetes'"
                            + " 256 KiB limit; store large values elsewhere (a ConfigMap) and reference them");
        }
    }

    /** Whether {@code key} may be a label key: an optional DNS-subdomain prefix and '/', then a name of 63 characters. */
    static boolean isQualifiedName(String key) {
        return TrainRequestSchema.isA("qualifiedName", key);
    }

    /** Whether {@code value} may be a label value: empty, or 63 characters starting and ending alphanumeric. */
    static boolean isLabelValue(String value) {
        return TrainRequestSchema.isA("labelValue", value);
    }

    /**
     * An output location the training is told about: {@code s3://bucket[/prefix]}, the bucket as S3 names them, the
     * prefix of printable characters without '.' or '..' segments (a policy's allowed prefix cannot be left).
     */
    private static void output(String uri, Map<String, EnvVar> env) {
        if (uri == null) {
            return;
        }
        Matcher output = OUTPUT.matcher(uri);
        boolean valid = uri.length() <= 1024
                && output.matches()
                && (!output.group(1).equals("s3")
                        || S3_BUCKET.matcher(output.group(2)).matches())
                && (output.group(3) == null
                        || Arrays.stream(output.group(3).split("/", -1))
                                .noneMatch(segment -> segment.equals(".") || segment.equals("..")));
        if (!valid) {
            throw new InvalidOptionException(
                    "outputUri",
                    "'" + uri + "' is not an output location; write"
                            + " s3://bucket/prefix/ (a bucket of 3 to 63 lowercase letters, digits, '.' or '-') or"
                            + " pvc://claim/path/ (a PersistentVolumeClaim of the job's namespace), the prefix or path of"
                            + " printable characters without '.' or '..' segments; at most 1024 characters");
        }
        if (output.group(1).equals("pvc")) {
            KubernetesNames.objectName("outputUri", output.group(2));
        }
        for (String name : List.of(TrainJobFactory.OUTPUT_URI_ENV, TrainJobFactory.OUTPUT_DIR_ENV)) {
            if (env.containsKey(name)) {
                throw new InvalidOptionException(
                        "env." + name, "is set from outputUri; give the location once," + " as outputUri");
            }
        }
    }
}
