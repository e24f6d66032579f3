package io.camelkubeflow.trainer.job;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.camelkubeflow.trainer.api.KubernetesNames;
import io.camelkubeflow.trainer.runtime.RuntimeKind;
import io.camelkubeflow.trainer.support.InvalidOptionException;
import io.fabric8.kubernetes.api.model.EnvVar;

/**
 * Checks a merged {@link TrainRequest} against the rules the API server, the TrainJob CRD (schema and CEL) and the
 * Trainer admission webhook would apply, so a bad request fails here with the field and the fix, before any write.
 * Checks that depend on the runtime live in {@link TrainJobFactory}.
 */
public final class TrainRequestValidator {
    /** The quantity pattern of the CRD's resourcesPerNode (Kubernetes resource.Quantity). */
    static final Pattern QUANTITY = Pattern.compile(
            "(\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))))?");
    /** The largest power of ten {@code BigDecimal.pow} computes. */
    private static final int MAX_EXPONENT = 999_999_999;
    /** A quantity's decimal exponent: what follows its 'e' or 'E' (an 'E' followed by nothing or 'i' is a suffix). */
    private static final Pattern DECIMAL_EXPONENT = Pattern.compile("[eE]([^i].*)$");
    private static final Pattern LABEL_NAME = Pattern.compile("([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]");
    private static final Pattern LABEL_VALUE = Pattern.compile("(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?");
    private static final Pattern ENV_NAME = Pattern.compile("[-._a-zA-Z][-._a-zA-Z0-9]*");
    private static final Pattern SCRIPT_FILE_NAME = Pattern.compile("[-._a-zA-Z0-9]+");
    /** An output location: s3://bucket[/prefix], the bucket as S3 names them. */
    /**
     * s3://bucket[/prefix] or pvc://claim[/path]: the place (group 2) and the path in it (group 3), of characters
     * that show as what they are (no control, format such as a direction override, or separator but a plain space).
     */
    private static final Pattern OUTPUT = Pattern.compile(
            "(s3|pvc)://([a-z0-9][a-z0-9.-]{0,252})(/(?:[^\\p{C}\\p{Z}\\\\]| )*)?");
    private static final Pattern S3_BUCKET = Pattern.compile("[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]");
    /** Variables the Trainer webhook reserves for the launchers it configures. */
    private static final List<String> RESERVED_ENV_PREFIXES = List.of("PET_", "OMPI_MCA_", "DMLC_");
    static final Set<String> MANAGED_BY = Set.of("trainer.kubeflow.org/trainjob-controller",
            "kueue.x-k8s.io/multikueue");
    /** The CRD's maxItems on trainer.command, trainer.args and env lists. */
    static final int MAX_LIST_ITEMS = 128;
    /**
     * The largest inline script: it travels as a pod annotation (see {@link TrainJobFactory}), and Kubernetes caps a
     * pod's annotations at 256 KiB in all, which leaves room for the runtime's and JobSet's own.
     */
    public static final int MAX_SCRIPT_BYTES = 200 * 1024;
    /** Kubernetes caps the total size of an object's annotations at 256 KiB. */
    private static final int MAX_ANNOTATIONS_BYTES = 256 * 1024;
    /** A generated name is prefix + '-' + 12 hex digits and must stay within the 63 characters of an RFC 1035 label. */
    static final int MAX_PREFIX_LENGTH = 63 - 13;

    private TrainRequestValidator() {
    }

    public static void validate(TrainRequest request) {
        if (request.runtime() == null || request.runtime().isBlank()) {
            throw new InvalidOptionException("runtime", "no runtime named; set it to a ClusterTrainingRuntime"
                    + " such as torch-distributed (kubectl get clustertrainingruntimes lists them)");
        }
        KubernetesNames.objectName("runtime", request.runtime());
        if (request.runtimeKind() != null && RuntimeKind.of(request.runtimeKind()) == null) {
            throw new InvalidOptionException("runtimeKind", "'" + request.runtimeKind()
                    + "' is not a runtime kind; use ClusterTrainingRuntime or TrainingRuntime");
        }
        if (request.namespace() != null) {
            KubernetesNames.namespace("namespace", request.namespace());
        }
        if (request.jobName() != null) {
            KubernetesNames.trainJobName("jobName", request.jobName());
            if (TrainJobMetadata.isDerivedName(request.jobName())) {
                throw new InvalidOptionException("jobName", "'" + request.jobName() + "' has the shape of the names"
                        + " made from idempotency keys (a prefix, '-' and 12 hex digits), which are kept for those:"
                        + " choose a name of another shape, or give an idempotency key and let the name be made");
            }
        }
        if (request.jobNamePrefix() != null) {
            if (request.jobNamePrefix().length() > MAX_PREFIX_LENGTH
                    || !KubernetesNames.RFC1035_LABEL.matcher(request.jobNamePrefix()).matches()) {
                throw new InvalidOptionException("jobNamePrefix", "'" + request.jobNamePrefix()
                        + "' must be an RFC 1035 label of at most " + MAX_PREFIX_LENGTH
                        + " characters (lowercase letter first, then lowercase letters, digits, '-')");
            }
        }
        if (request.image() != null && (request.image().isBlank() || request.image().length() > 500
                || request.image().chars().anyMatch(Character::isWhitespace))) {
            throw new InvalidOptionException("image", "'" + request.image()
                    + "' is not an image reference (non-empty, no whitespace, at most 500 characters)");
        }
        if (request.idempotencyKey() != null && request.idempotencyKey().isBlank()) {
            // a blank key would make every request that sends one the same request
            throw new InvalidOptionException("idempotencyKey", "the idempotency key is empty; give a key that names"
                    + " this request, or none for a new TrainJob each time");
        }
        noNul(request);
        payload(request);
        imageEntrypoint(request);
        torchtune(request);
        workspace(request);
        packages(request);
        admission(request);
        env(request.env());
        positive("numNodes", request.numNodes());
        positive("numProcPerNode", request.numProcPerNode());
        resources(request.resources());
        metadata("labels", request.labels(), true);
        metadata("annotations", request.annotations(), false);
        podOptions(request);
        StorageInitializers.validate(request);
        output(request.outputUri(), request.env());
        if (request.ttlAfterFinishedSeconds() != null && request.ttlAfterFinishedSeconds() < 1) {
            throw new InvalidOptionException("ttlAfterFinished", request.ttlAfterFinishedSeconds()
                    + " s is not a time to keep a finished TrainJob; give at least 1s, or leave it unset to keep it");
        }
        if (request.activeDeadlineSeconds() != null && request.activeDeadlineSeconds() < 1) {
            throw new InvalidOptionException("activeDeadlineSeconds", request.activeDeadlineSeconds()
                    + " is not allowed; give a number of seconds of at least 1, or leave it unset for no deadline");
        }
        if (request.managedBy() != null && !MANAGED_BY.contains(request.managedBy())) {
            throw new InvalidOptionException("managedBy", "'" + request.managedBy() + "' is not accepted by the"
                    + " TrainJob CRD; use one of " + MANAGED_BY);
        }
    }

    /** The names the pod options give; the typed ones (tolerations, volumes, ...) were checked as they were read. */
    private static void podOptions(TrainRequest request) {
        request.nodeSelector().forEach((key, value) -> {
            qualifiedName("nodeSelector." + key, key);
            if (value == null || !isLabelValue(value)) {
                throw new InvalidOptionException("nodeSelector." + key, "'" + value + "' is not a label value: at"
                        + " most 63 letters, digits, '-', '_' or '.', starting and ending with a letter or digit");
            }
        });
        if (request.serviceAccountName() != null) {
            KubernetesNames.objectName("serviceAccountName", request.serviceAccountName());
        }
        request.imagePullSecrets().forEach(name -> KubernetesNames.objectName("imagePullSecrets", name));
        if (request.podJobs() != null) {
            for (String job : request.podJobs()) {
                if (job.length() > 63 || !KubernetesNames.RFC1123_LABEL.matcher(job).matches()) {
                    throw new InvalidOptionException("podJobs", "'" + job + "' is not a replicated job's name (an"
                            + " RFC 1123 label, e.g. node, launcher, dataset-initializer)");
                }
            }
        }
    }

    private static void admission(TrainRequest request) {
        positive("maxInFlight", request.maxInFlight());
        if (request.skipIfRunning() && (request.runKey() == null || request.runKey().isBlank())) {
            throw new InvalidOptionException("skipIfRunning", "needs a runKey saying which trainings are the same"
                    + " (e.g. runKey=${header.model}); set runKey or turn skipIfRunning off");
        }
        if (request.inFlightGroup() != null && (request.inFlightGroup().length() > 63
                || !LABEL_VALUE.matcher(request.inFlightGroup()).matches() || request.inFlightGroup().isEmpty())) {
            throw new InvalidOptionException("inFlightGroup", "'" + request.inFlightGroup() + "' is not a label"
                    + " value: at most 63 letters, digits, '-', '_' or '.', starting and ending with a letter or digit");
        }
    }

    private static void payload(TrainRequest request) {
        List<String> kinds = new ArrayList<>();
        if (request.command() != null) {
            kinds.add("command");
        }
        if (request.pythonFile() != null) {
            kinds.add("pythonFile");
        }
        if (request.script() != null) {
            kinds.add("script");
        }
        if (request.imageEntrypoint() && !kinds.isEmpty()) {
            throw new InvalidOptionException("imageEntrypoint/" + kinds.get(0), "imageEntrypoint runs the image's own"
                    + " entrypoint, so no " + kinds.get(0) + " can be given with it; give exactly one payload");
        }
        if (kinds.size() > 1) {
            throw new InvalidOptionException("command/pythonFile/script", "more than one payload given ("
                    + String.join(", ", kinds) + "); give exactly one");
        }
        if (request.command() != null) {
            if (request.command().isEmpty() || request.command().get(0).isBlank()) {
                throw new InvalidOptionException("command", "the command is empty; give the program and its"
                        + " arguments, e.g. python -u train.py");
            }
        }
        // a leading '-' would be read by the launcher as one of its options (torchrun --no-python, python -c): a
        // command override past the policy's commandOverride
        if (request.pythonFile() != null && (request.pythonFile().isBlank() || request.pythonFile().startsWith("-")
                || request.pythonFile().chars().anyMatch(c -> c == '\n' || c == 0))) {
            throw new InvalidOptionException("pythonFile", "'" + request.pythonFile()
                    + "' is not a file path; give the path of a .py file inside the image, e.g. /app/train.py");
        }
        if (request.script() != null) {
            if (request.script().isBlank()) {
                throw new InvalidOptionException("script", "the inline script is empty; give the Python source");
            }
            String fileName = scriptFileName(request);
            if (fileName.length() > 253 || !SCRIPT_FILE_NAME.matcher(fileName).matches() || fileName.equals(".")
                    || fileName.equals("..")) {
                throw new InvalidOptionException("scriptFileName", "'" + fileName
                        + "' is not a plain file name; use letters, digits, '-', '_' or '.', e.g. train.py");
            }
            long bytes = request.script().getBytes(StandardCharsets.UTF_8).length;
            if (bytes > MAX_SCRIPT_BYTES) {
                throw new InvalidOptionException("script", "the inline script is " + bytes + " bytes, over the "
                        + MAX_SCRIPT_BYTES + "-byte (200 KiB) limit of a script carried in the pods' annotations"
                        + " (Kubernetes allows 256 KiB of them); bake it into the image and use pythonFile");
            }
        }
        if (request.args() != null && request.args().size() > MAX_LIST_ITEMS) {
            throw new InvalidOptionException("args", request.args().size() + " arguments given; the TrainJob CRD"
                    + " allows at most " + MAX_LIST_ITEMS + "; pass the rest in a config file or env");
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
            throw new InvalidOptionException("image", "imageEntrypoint runs the entrypoint of the image given, but no"
                    + " image was given; name the image whose ENTRYPOINT/CMD trains");
        }
        if (!request.packages().isEmpty()) {
            throw new InvalidOptionException("packages", "packages are installed by a command the component writes,"
                    + " but imageEntrypoint runs the image's own; install them in the image");
        }
        if (request.workspace() != null || request.workspaceContent() != null) {
            throw new InvalidOptionException("imageEntrypoint/workspace", "a workspace is unpacked by a command the"
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
        String other = request.command() != null ? "command" : request.pythonFile() != null ? "pythonFile"
                : request.script() != null ? "script" : request.imageEntrypoint() ? "imageEntrypoint"
                : request.workspace() != null || request.workspaceContent() != null ? "workspace"
                : !request.packages().isEmpty() ? "packages" : null;
        if (other != null) {
            throw new InvalidOptionException(field + "/" + other, "the torchtune settings run the runtime's builtin"
                    + " trainer (tune run, with the recipe the Trainer picks), so no " + other + " can go with them;"
                    + " drop one of the two (raw config overrides go in args)");
        }
        List<String> args = request.args() == null ? List.of() : request.args();
        for (int i = 0; i < args.size(); i++) {
            String key = args.get(i).split("=", 2)[0];
            if (TorchTuneConfig.RUNTIME_CONFIGS.contains(key)) {
                throw new InvalidOptionException("args", "args[" + i + "] sets " + key + ", which the runtime sets"
                        + " for the builtin trainer (the Trainer's webhook refuses it); remove it");
            }
        }
        if (request.numNodes() != null && request.numNodes() > 1 && config.hasLora()) {
            throw new InvalidOptionException("numNodes", request.numNodes() + " nodes with LoRA settings ("
                    + field + "): torchtune's LoRA recipes run on one node (the Trainer's webhook refuses more); set"
                    + " numNodes to 1 or drop the LoRA settings");
        }
    }

    /** A workspace holds the code: the entry point is a path inside it, and an inline script has no place there. */
    private static void workspace(TrainRequest request) {
        if (request.workspace() == null && request.workspaceContent() == null) {
            return;
        }
        if (request.workspace() != null && request.workspace().isBlank()) {
            throw new InvalidOptionException("workspace", "the workspace location is empty; give a project folder,"
                    + " a .zip or a .tar.gz");
        }
        if (request.script() != null) {
            throw new InvalidOptionException("script", "an inline script and a workspace were both given; put the"
                    + " script into the workspace and name it with pythonFile");
        }
        if (request.pythonFile() == null && request.command() == null) {
            throw new InvalidOptionException("workspace", "nothing says what to run in the workspace; give pythonFile"
                    + " (its path inside the workspace) or command");
        }
        if (request.pythonFile() != null && request.pythonFile().startsWith("/")) {
            throw new InvalidOptionException("pythonFile", "'" + request.pythonFile() + "' is an absolute path, but"
                    + " with a workspace the code runs in the workspace's root; give the path inside it, e.g."
                    + " train.py or src/train.py");
        }
    }

    /**
     * No text of the request holds a NUL character: no process argument, environment value or file can carry one, and
     * the API server would store what the pod cannot use.
     */
    private static void noNul(TrainRequest request) {
        noNul("command", request.command());
        noNul("args", request.args());
        noNul("packages", request.packages());
        noNul("pipIndexUrls", request.pipIndexUrls());
        noNul("script", request.script());
        noNul("torchtuneDatasetSplit", request.torchtune().datasetSplit());
        noNul("torchtuneNewSystemPrompt", request.torchtune().newSystemPrompt());
        noNul("scriptFileName", request.scriptFileName());
        noNul("workspace", request.workspace());
        noNul("image", request.image());
        noNul("runKey", request.runKey());
        noNul("idempotencyKey", request.idempotencyKey());
        request.env().forEach((name, value) -> noNul("env", "env " + name, value.getValue()));
        request.labels().forEach((key, value) -> noNul("labels", "label " + key, value));
        request.annotations().forEach((key, value) -> noNul("annotations", "annotation " + key, value));
    }

    private static void noNul(String field, List<String> values) {
        if (values != null) {
            for (int i = 0; i < values.size(); i++) {
                noNul(field, field + "[" + i + "]", values.get(i));
            }
        }
    }

    static void noNul(String field, String value) {
        noNul(field, field, value);
    }

    /** @param what the field, or the item of it, that holds the value */
    private static void noNul(String field, String what, String value) {
        if (value != null && value.indexOf('\0') >= 0) {
            throw new InvalidOptionException(field, what + " contains a NUL character (\\u0000), which no process"
                    + " argument, environment value or file name can carry; remove it");
        }
        // a lone surrogate is a code point of its own (a pair is one supplementary code point)
        if (value != null && value.codePoints().anyMatch(c -> Character.getType(c) == Character.SURROGATE)) {
            throw new InvalidOptionException(field, what + " contains half of a surrogate pair, which no UTF-8 text"
                    + " can carry (it would be stored as '?'); send the whole character");
        }
    }

    public static String scriptFileName(TrainRequest request) {
        return request.scriptFileName() == null ? "train.py" : request.scriptFileName();
    }

    private static void packages(TrainRequest request) {
        for (String pkg : request.packages()) {
            // quoting stops shell injection; a leading '-' would still be read by pip as an option
            if (pkg.isBlank() || pkg.startsWith("-") || pkg.chars().anyMatch(Character::isWhitespace)) {
                throw new InvalidOptionException("packages", "'" + pkg + "' is not a pip requirement; give names"
                        + " like torch==2.5.0 or numpy>=2 (no spaces, no leading '-'); put index URLs in pipIndexUrls");
            }
        }
        for (String url : request.pipIndexUrls()) {
            URI uri;
            try {
                uri = URI.create(url);
            } catch (IllegalArgumentException e) {
                uri = null;
            }
            if (uri == null || uri.getHost() == null
                    || !("https".equals(uri.getScheme()) || "http".equals(uri.getScheme()))) {
                throw new InvalidOptionException("pipIndexUrls", "'" + url + "' is not an http(s) URL; give the"
                        + " index URL, e.g. https://pypi.org/simple (the first is --index-url, the rest --extra-index-url)");
            }
        }
    }

    private static void env(Map<String, EnvVar> env) {
        if (env.size() > MAX_LIST_ITEMS) {
            throw new InvalidOptionException("env", env.size() + " variables given; the TrainJob CRD allows at"
                    + " most " + MAX_LIST_ITEMS);
        }
        for (EnvVar var : env.values()) {
            String name = var.getName();
            if (name == null || !ENV_NAME.matcher(name).matches()) {
                throw new InvalidOptionException("env", "'" + name + "' is not a valid variable name; use"
                        + " letters, digits, '_', '-' or '.', not starting with a digit");
            }
            for (String prefix : RESERVED_ENV_PREFIXES) {
                if (name.startsWith(prefix)) {
                    throw new InvalidOptionException("env", "'" + name + "' is reserved: the Trainer webhook"
                            + " rejects " + prefix + "* variables because the runtime sets them; use numNodes and"
                            + " numProcPerNode, or rename the variable");
                }
            }
            if (var.getValue() != null && var.getValueFrom() != null) {
                throw new InvalidOptionException("env", "'" + name + "' has both a value and a valueFrom; give one");
            }
        }
    }

    private static void positive(String field, Integer value) {
        if (value != null && value < 1) {
            throw new InvalidOptionException(field, value + " is not allowed; give a whole number of at least 1");
        }
    }

    private static void resources(Map<String, String> resources) {
        for (Map.Entry<String, String> entry : resources.entrySet()) {
            String field = fieldForResource(entry.getKey());
            qualifiedName(field, entry.getKey());
            if (entry.getValue() == null || !isQuantity(entry.getValue())) {
                throw new InvalidOptionException(field, "'" + entry.getValue() + "' is not a Kubernetes"
                        + " quantity; write e.g. 2, 500m, 16Gi or 1.5");
            }
            if (entry.getValue().startsWith("-")) {
                throw new InvalidOptionException(field, "'" + entry.getValue() + "' is negative; give a"
                        + " quantity of zero or more");
            }
        }
    }

    /**
     * Whether {@code value} is a quantity by the CRD's pattern whose decimal exponent, if it has one, is a whole number
     * of at most {@value #MAX_EXPONENT} either way: the API server reads it as an int32, and fabric8's {@code Quantity}
     * (the factory's and the policy's) raises 10 to it with {@code BigDecimal.pow}, which fails beyond that (the
     * pattern also lets {@code 1e1.5}, {@code 1e2147483648} and {@code 5E1000806378} through).
     */
    static boolean isQuantity(String value) {
        if (!QUANTITY.matcher(value).matches()) {
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

    private static void metadata(String field, Map<String, String> entries, boolean labels) {
        int bytes = 0;
        for (Map.Entry<String, String> entry : entries.entrySet()) {
            qualifiedName(field + "." + entry.getKey(), entry.getKey());
            if (TrainJobMetadata.isReserved(entry.getKey())) {
                throw new InvalidOptionException(field + "." + entry.getKey(), "'" + entry.getKey() + "' is reserved:"
                        + " the component sets it (idempotency, in-flight groups, run keys, TTLs, handled marks), so a"
                        + " request cannot; use a key of your own domain, e.g. example.com/team");
            }
            String value = entry.getValue();
            if (value == null) {
                throw new InvalidOptionException(field + "." + entry.getKey(), "no value given; give a string");
            }
            if (labels && !isLabelValue(value)) {
                throw new InvalidOptionException(field + "." + entry.getKey(), "'" + value + "' is not a label"
                        + " value: at most 63 letters, digits, '-', '_' or '.', starting and ending with a letter or"
                        + " digit; put free text in an annotation");
            }
            bytes += entry.getKey().length() + value.length();
        }
        if (!labels && bytes > MAX_ANNOTATIONS_BYTES) {
            throw new InvalidOptionException(field, "annotations total " + bytes + " bytes, over Kubernetes'"
                    + " 256 KiB limit; store large values elsewhere (a ConfigMap) and reference them");
        }
    }

    /** A label or annotation key, or a resource name: an optional DNS-subdomain prefix and a name of 63 characters. */
    private static void qualifiedName(String field, String key) {
        if (!isQualifiedName(key)) {
            throw new InvalidOptionException(field, "'" + key + "' is not a valid key: an optional DNS"
                    + " prefix and '/', then at most 63 letters, digits, '-', '_' or '.', starting and ending with a"
                    + " letter or digit (e.g. example.com/team)");
        }
    }

    /** Whether {@code key} may be a label key: an optional DNS-subdomain prefix and '/', then a name of 63 characters. */
    static boolean isQualifiedName(String key) {
        String prefix = null;
        String name = key;
        int slash = key.indexOf('/');
        if (slash >= 0) {
            prefix = key.substring(0, slash);
            name = key.substring(slash + 1);
        }
        boolean validPrefix = prefix == null
                || (prefix.length() <= 253 && KubernetesNames.RFC1123_SUBDOMAIN.matcher(prefix).matches());
        return validPrefix && name.length() <= 63 && LABEL_NAME.matcher(name).matches();
    }

    /** Whether {@code value} may be a label value: empty, or 63 characters starting and ending alphanumeric. */
    static boolean isLabelValue(String value) {
        return value.length() <= 63 && LABEL_VALUE.matcher(value).matches();
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
        boolean valid = uri.length() <= 1024 && output.matches()
                && (!output.group(1).equals("s3") || S3_BUCKET.matcher(output.group(2)).matches())
                && (output.group(3) == null || Arrays.stream(output.group(3).split("/", -1))
                        .noneMatch(segment -> segment.equals(".") || segment.equals("..")));
        if (!valid) {
            throw new InvalidOptionException("outputUri", "'" + uri + "' is not an output location; write"
                    + " s3://bucket/prefix/ (a bucket of 3 to 63 lowercase letters, digits, '.' or '-') or"
                    + " pvc://claim/path/ (a PersistentVolumeClaim of the job's namespace), the prefix or path of"
                    + " printable characters without '.' or '..' segments; at most 1024 characters");
        }
        if (output.group(1).equals("pvc")) {
            KubernetesNames.objectName("outputUri", output.group(2));
        }
        for (String name : List.of(TrainJobFactory.OUTPUT_URI_ENV, TrainJobFactory.OUTPUT_DIR_ENV)) {
            if (env.containsKey(name)) {
                throw new InvalidOptionException("env." + name, "is set from outputUri; give the location once,"
                        + " as outputUri");
            }
        }
    }
}
