package io.camelkubeflow.trainer.job;

import io.camelkubeflow.trainer.runtime.ImageRule;
import io.camelkubeflow.trainer.runtime.Launcher;
import io.camelkubeflow.trainer.support.InvalidOptionException;
import java.math.BigInteger;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * Every field of a {@link TrainRequest} a caller can set, declared once: the name callers write (the endpoint option,
 * the request-message field, and, capitalized behind {@code CamelKubeflowTrainer}, the header), the type of value it
 * takes, whether a request message (HTTP, Kafka, S3) may set it or only the route's own options and headers, and how
 * a value lands in the request. The Camel layer reads options and headers through this table, the routes app its
 * message fields, and a test holds the endpoint options, headers and docs to it.
 */
public enum TrainField {
    NAMESPACE("namespace", Kind.TEXT, Exposure.MESSAGE),
    JOB_NAME("jobName", Kind.TEXT, Exposure.MESSAGE),
    JOB_NAME_PREFIX("jobNamePrefix", Kind.TEXT, Exposure.ROUTE),
    IDEMPOTENCY_KEY("idempotencyKey", Kind.TEXT, Exposure.MESSAGE),
    IDEMPOTENCY_SCOPE("idempotencyScope", Kind.TEXT, Exposure.ROUTE),
    RUN_KEY("runKey", Kind.TEXT, Exposure.MESSAGE),
    SKIP_IF_RUNNING("skipIfRunning", Kind.BOOLEAN, Exposure.ROUTE),
    MAX_IN_FLIGHT("maxInFlight", Kind.INTEGER, Exposure.ROUTE),
    IN_FLIGHT_GROUP("inFlightGroup", Kind.TEXT, Exposure.ROUTE),
    RUNTIME("runtime", Kind.TEXT, Exposure.MESSAGE),
    RUNTIME_KIND("runtimeKind", Kind.TEXT, Exposure.MESSAGE),
    IMAGE("image", Kind.TEXT, Exposure.MESSAGE),
    LAUNCHER("launcher", Kind.TEXT, Exposure.MESSAGE, (r, v, f) -> r.launcher(Launcher.parse(f, (String) v))),
    IMAGE_RULES("imageRules", Kind.TEXT, Exposure.ROUTE, (r, v, f) -> r.imageRules(ImageRule.parseList(f, (String) v))),
    COMMAND("command", Kind.WORDS, Exposure.MESSAGE, (r, v, f) -> r.command(strings(v))),
    ARGS("args", Kind.WORDS, Exposure.MESSAGE),
    PYTHON_FILE("pythonFile", Kind.TEXT, Exposure.MESSAGE, (r, v, f) -> r.pythonFile((String) v)),
    SCRIPT("script", Kind.TEXT, Exposure.MESSAGE, (r, v, f) -> r.script((String) v)),
    IMAGE_ENTRYPOINT("imageEntrypoint", Kind.BOOLEAN, Exposure.MESSAGE, (r, v, f) -> r.imageEntrypoint((Boolean) v)),
    SCRIPT_FILE_NAME("scriptFileName", Kind.TEXT, Exposure.MESSAGE),
    // a message may name one only where its request policy allows the source (RequestPolicy.checkWorkspaceSource)
    WORKSPACE("workspace", Kind.TEXT, Exposure.MESSAGE, (r, v, f) -> r.workspace((String) v)),
    PACKAGES("packages", Kind.LIST, Exposure.MESSAGE),
    PIP_INDEX_URLS("pipIndexUrls", Kind.LIST, Exposure.MESSAGE),
    ENV(
            "env",
            Kind.MAP,
            Exposure.MESSAGE,
            (r, v, f) -> map(v).forEach((name, value) -> r.env(EnvValues.of(name, value)))),
    NUM_NODES("numNodes", Kind.INTEGER, Exposure.MESSAGE),
    NUM_PROC_PER_NODE("numProcPerNode", Kind.INTEGER, Exposure.MESSAGE),
    // a quantity named twice in one layer (cpu and resources.cpu) is refused, neither dropped
    RESOURCES(
            "resources",
            Kind.MAP,
            Exposure.MESSAGE,
            (r, v, f) -> map(v).forEach((name, value) -> resource(r, name, text(value), f + "." + name))),
    CPU("cpu", Kind.TEXT, Exposure.MESSAGE, (r, v, f) -> resource(r, "cpu", (String) v, f)),
    MEMORY("memory", Kind.TEXT, Exposure.MESSAGE, (r, v, f) -> resource(r, "memory", (String) v, f)),
    GPU("gpu", Kind.TEXT, Exposure.MESSAGE, (r, v, f) -> resource(r, "nvidia.com/gpu", (String) v, f)),
    LABELS(
            "labels",
            Kind.MAP,
            Exposure.MESSAGE,
            (r, v, f) -> map(v).forEach((key, value) -> r.label(key, text(value)))),
    ANNOTATIONS(
            "annotations",
            Kind.MAP,
            Exposure.MESSAGE,
            (r, v, f) -> map(v).forEach((key, value) -> r.annotation(key, text(value)))),
    // Kueue: the LocalQueue that admits the job and its WorkloadPriorityClass, each a label Kueue reads
    QUEUE("queue", Kind.TEXT, Exposure.MESSAGE),
    PRIORITY_CLASS("priorityClass", Kind.TEXT, Exposure.MESSAGE),
    // the initializers: the storage URI, the Secret handed whole to the initializer, the kind when the URI's scheme
    // does not say it, then the typed settings (InitializerSetting), all checked by StorageInitializers
    DATASET_URI(
            "datasetUri", Kind.TEXT, Exposure.MESSAGE, (r, v, f) -> r.dataset().uri((String) v)),
    DATASET_SECRET(
            "datasetSecret",
            Kind.TEXT,
            Exposure.MESSAGE,
            (r, v, f) -> r.dataset().secret((String) v)),
    DATASET_KIND(
            "datasetKind", Kind.TEXT, Exposure.MESSAGE, (r, v, f) -> r.dataset().kind((String) v)),
    DATASET_IGNORE_PATTERNS(InitializerStep.DATASET, InitializerSetting.IGNORE_PATTERNS),
    DATASET_ACCESS_TOKEN(InitializerStep.DATASET, InitializerSetting.ACCESS_TOKEN),
    DATASET_ENDPOINT(InitializerStep.DATASET, InitializerSetting.ENDPOINT),
    DATASET_REGION(InitializerStep.DATASET, InitializerSetting.REGION),
    DATASET_ROLE_ARN(InitializerStep.DATASET, InitializerSetting.ROLE_ARN),
    DATASET_ACCESS_KEY_ID(InitializerStep.DATASET, InitializerSetting.ACCESS_KEY_ID),
    DATASET_SECRET_ACCESS_KEY(InitializerStep.DATASET, InitializerSetting.SECRET_ACCESS_KEY),
    DATASET_CACHE_METADATA_LOC(InitializerStep.DATASET, InitializerSetting.CACHE_METADATA_LOC),
    DATASET_CACHE_DATA_NODES(InitializerStep.DATASET, InitializerSetting.CACHE_DATA_NODES),
    DATASET_CACHE_HEAD_CPU(InitializerStep.DATASET, InitializerSetting.CACHE_HEAD_CPU),
    DATASET_CACHE_HEAD_MEMORY(InitializerStep.DATASET, InitializerSetting.CACHE_HEAD_MEMORY),
    DATASET_CACHE_WORKER_CPU(InitializerStep.DATASET, InitializerSetting.CACHE_WORKER_CPU),
    DATASET_CACHE_WORKER_MEMORY(InitializerStep.DATASET, InitializerSetting.CACHE_WORKER_MEMORY),
    DATASET_CACHE_IAM_ROLE(InitializerStep.DATASET, InitializerSetting.CACHE_IAM_ROLE),
    MODEL_URI("modelUri", Kind.TEXT, Exposure.MESSAGE, (r, v, f) -> r.model().uri((String) v)),
    MODEL_SECRET(
            "modelSecret", Kind.TEXT, Exposure.MESSAGE, (r, v, f) -> r.model().secret((String) v)),
    MODEL_KIND("modelKind", Kind.TEXT, Exposure.MESSAGE, (r, v, f) -> r.model().kind((String) v)),
    MODEL_IGNORE_PATTERNS(InitializerStep.MODEL, InitializerSetting.IGNORE_PATTERNS),
    MODEL_ACCESS_TOKEN(InitializerStep.MODEL, InitializerSetting.ACCESS_TOKEN),
    MODEL_ENDPOINT(InitializerStep.MODEL, InitializerSetting.ENDPOINT),
    MODEL_REGION(InitializerStep.MODEL, InitializerSetting.REGION),
    MODEL_ROLE_ARN(InitializerStep.MODEL, InitializerSetting.ROLE_ARN),
    MODEL_ACCESS_KEY_ID(InitializerStep.MODEL, InitializerSetting.ACCESS_KEY_ID),
    MODEL_SECRET_ACCESS_KEY(InitializerStep.MODEL, InitializerSetting.SECRET_ACCESS_KEY),
    OUTPUT_URI("outputUri", Kind.TEXT, Exposure.MESSAGE),
    TORCHTUNE_DTYPE(
            "torchtuneDtype",
            Kind.TEXT,
            Exposure.MESSAGE,
            (r, v, f) -> r.torchtune().dtype((String) v)),
    TORCHTUNE_BATCH_SIZE(
            "torchtuneBatchSize",
            Kind.INTEGER,
            Exposure.MESSAGE,
            (r, v, f) -> r.torchtune().batchSize((Integer) v)),
    TORCHTUNE_EPOCHS(
            "torchtuneEpochs",
            Kind.INTEGER,
            Exposure.MESSAGE,
            (r, v, f) -> r.torchtune().epochs((Integer) v)),
    TORCHTUNE_LOSS(
            "torchtuneLoss",
            Kind.TEXT,
            Exposure.MESSAGE,
            (r, v, f) -> r.torchtune().loss((String) v)),
    TORCHTUNE_LORA_ATTN_MODULES(
            "torchtuneLoraAttnModules",
            Kind.LIST,
            Exposure.MESSAGE,
            (r, v, f) -> r.torchtune().loraAttnModules(strings(v))),
    TORCHTUNE_LORA_RANK(
            "torchtuneLoraRank",
            Kind.INTEGER,
            Exposure.MESSAGE,
            (r, v, f) -> r.torchtune().loraRank((Integer) v)),
    TORCHTUNE_LORA_ALPHA(
            "torchtuneLoraAlpha",
            Kind.INTEGER,
            Exposure.MESSAGE,
            (r, v, f) -> r.torchtune().loraAlpha((Integer) v)),
    TORCHTUNE_LORA_DROPOUT(
            "torchtuneLoraDropout",
            Kind.DECIMAL,
            Exposure.MESSAGE,
            (r, v, f) -> r.torchtune().loraDropout((Double) v)),
    TORCHTUNE_LORA_APPLY_TO_MLP(
            "torchtuneLoraApplyToMlp",
            Kind.BOOLEAN,
            Exposure.MESSAGE,
            (r, v, f) -> r.torchtune().loraApplyToMlp((Boolean) v)),
    TORCHTUNE_LORA_APPLY_TO_OUTPUT(
            "torchtuneLoraApplyToOutput",
            Kind.BOOLEAN,
            Exposure.MESSAGE,
            (r, v, f) -> r.torchtune().loraApplyToOutput((Boolean) v)),
    TORCHTUNE_QUANTIZE_BASE(
            "torchtuneQuantizeBase",
            Kind.BOOLEAN,
            Exposure.MESSAGE,
            (r, v, f) -> r.torchtune().quantizeBase((Boolean) v)),
    TORCHTUNE_USE_DORA(
            "torchtuneUseDora",
            Kind.BOOLEAN,
            Exposure.MESSAGE,
            (r, v, f) -> r.torchtune().useDora((Boolean) v)),
    TORCHTUNE_DATASET_SOURCE(
            "torchtuneDatasetSource",
            Kind.TEXT,
            Exposure.MESSAGE,
            (r, v, f) -> r.torchtune().datasetSource((String) v)),
    TORCHTUNE_DATASET_SPLIT(
            "torchtuneDatasetSplit",
            Kind.TEXT,
            Exposure.MESSAGE,
            (r, v, f) -> r.torchtune().datasetSplit((String) v)),
    TORCHTUNE_TRAIN_ON_INPUT(
            "torchtuneTrainOnInput",
            Kind.BOOLEAN,
            Exposure.MESSAGE,
            (r, v, f) -> r.torchtune().trainOnInput((Boolean) v)),
    TORCHTUNE_NEW_SYSTEM_PROMPT(
            "torchtuneNewSystemPrompt",
            Kind.TEXT,
            Exposure.MESSAGE,
            (r, v, f) -> r.torchtune().newSystemPrompt((String) v)),
    TORCHTUNE_COLUMN_MAP(
            "torchtuneColumnMap",
            Kind.MAP,
            Exposure.MESSAGE,
            (r, v, f) -> map(v).forEach((key, column) -> r.torchtune().column(key, text(column)))),
    // pod options: a runtime patch of the jobs podJobs names (by default those running the trainer's code)
    NODE_SELECTOR(
            "nodeSelector",
            Kind.MAP,
            Exposure.MESSAGE,
            (r, v, f) -> map(v).forEach((key, value) -> r.nodeSelector(key, text(value)))),
    TOLERATIONS(
            "tolerations",
            Kind.LIST,
            Exposure.MESSAGE,
            (r, v, f) -> r.tolerations(PodOptions.tolerations(f, strings(v)))),
    NODE_AFFINITY(
            "nodeAffinity",
            Kind.LIST,
            Exposure.MESSAGE,
            (r, v, f) -> r.nodeAffinity(PodOptions.nodeAffinity(f, strings(v)))),
    VOLUMES("volumes", Kind.LIST, Exposure.MESSAGE, (r, v, f) -> r.volumes(PodOptions.volumes(f, strings(v)))),
    SERVICE_ACCOUNT_NAME("serviceAccountName", Kind.TEXT, Exposure.MESSAGE),
    IMAGE_PULL_SECRETS("imagePullSecrets", Kind.LIST, Exposure.MESSAGE),
    POD_SECURITY_CONTEXT(
            "podSecurityContext",
            Kind.MAP,
            Exposure.MESSAGE,
            (r, v, f) -> r.podSecurityContext(PodOptions.podSecurityContext(f, map(v)))),
    SECURITY_CONTEXT(
            "securityContext",
            Kind.MAP,
            Exposure.MESSAGE,
            (r, v, f) -> r.securityContext(PodOptions.containerSecurityContext(f, map(v)))),
    POD_JOBS("podJobs", Kind.LIST, Exposure.MESSAGE),
    ACTIVE_DEADLINE_SECONDS("activeDeadlineSeconds", Kind.LONG, Exposure.MESSAGE),
    SUSPEND("suspend", Kind.BOOLEAN, Exposure.MESSAGE),
    MANAGED_BY("managedBy", Kind.TEXT, Exposure.ROUTE),
    TTL_AFTER_FINISHED(
            "ttlAfterFinished",
            Kind.DURATION,
            Exposure.ROUTE,
            (r, v, f) -> r.ttlAfterFinishedSeconds(ttlSeconds((Duration) v)));

    /** The Java type a value must have when it reaches {@link #apply}. */
    public enum Kind {
        /** A String. */
        TEXT(String.class),
        INTEGER(Integer.class),
        LONG(Long.class),
        BOOLEAN(Boolean.class),
        /** A Double; as text, a plain decimal number such as 0.05. */
        DECIMAL(Double.class),
        /** A List of Strings, each one word of a process's argv; as text, split like a shell would. */
        WORDS(List.class),
        /** A List of Strings; as text, comma-separated. */
        LIST(List.class),
        /** A Map from String keys. */
        MAP(Map.class),
        DURATION(Duration.class);

        private final Class<?> javaType;

        Kind(Class<?> javaType) {
            this.javaType = javaType;
        }

        public Class<?> javaType() {
            return javaType;
        }
    }

    /** Who may set a field: any request message, or only the route (its options and headers). */
    public enum Exposure {
        MESSAGE,
        ROUTE
    }

    @FunctionalInterface
    private interface Setter {
        void apply(TrainRequest request, Object value, String field);
    }

    /** Text {@link #parseWholeNumber} takes: ASCII digits only (a regex's \\d would take any script's). */
    private static final Pattern WHOLE_NUMBER = Pattern.compile("-?[0-9]+");

    /** Text {@link #decimal} takes: ASCII digits, an optional fraction and exponent (no hex, no NaN, no suffix). */
    private static final Pattern DECIMAL_NUMBER = Pattern.compile("-?([0-9]+(\\.[0-9]*)?|\\.[0-9]+)([eE][-+]?[0-9]+)?");

    private final String fieldName;
    private final Kind kind;
    private final Exposure exposure;
    private final Setter setter;

    TrainField(String fieldName, Kind kind, Exposure exposure, Setter setter) {
        this.fieldName = fieldName;
        this.kind = kind;
        this.exposure = exposure;
        this.setter = setter;
    }

    /**
     * A plain field: the request keeps its value as it comes, of its kind's Java type, and a higher layer's value
     * replaces a lower one's whole ({@link TrainRequest#value}). The request needs no code of the field's own.
     */
    TrainField(String fieldName, Kind kind, Exposure exposure) {
        this(fieldName, kind, exposure, null);
    }

    /** A typed initializer setting: named, typed and applied as its {@link InitializerSetting} says. */
    TrainField(InitializerStep step, InitializerSetting setting) {
        this(
                setting.field(step),
                switch (setting.form()) {
                    case PATTERNS -> Kind.LIST;
                    case NODES -> Kind.INTEGER;
                    default -> Kind.TEXT;
                },
                Exposure.MESSAGE,
                (r, v, f) -> r.initializer(step).set(setting, v, f));
    }

    /** The name callers write: the endpoint option and the message field. */
    public String fieldName() {
        return fieldName;
    }

    public Kind kind() {
        return kind;
    }

    public boolean inMessages() {
        return exposure == Exposure.MESSAGE;
    }

    /** Whether the request keeps this field's value as it comes ({@link TrainRequest#value}). */
    public boolean isPlain() {
        return setter == null;
    }

    /**
     * Sets a value of this field's {@link #kind()} on the request.
     *
     * @param field the name the caller wrote it under (an option, a header or a message field), for error messages
     */
    public void apply(TrainRequest request, Object value, String field) {
        if (value == null) {
            return;
        }
        if (isPlain()) {
            request.set(this, value, field);
        } else {
            setter.apply(request, value, field);
        }
    }

    /**
     * A plain field's value as it reaches the request: of the kind's Java type, a list's items strings; anything else
     * is refused naming the field as the caller wrote it (each entry converts first: options, headers, messages).
     */
    Object ofKind(Object value, String field) {
        boolean strings = !(value instanceof List<?> list) || list.stream().allMatch(String.class::isInstance);
        if (!kind.javaType().isInstance(value) || !strings) {
            String wanted = value instanceof List
                    ? "a list of strings"
                    : "of type " + kind.javaType().getSimpleName();
            throw new InvalidOptionException(field, describe(value) + " is not " + wanted);
        }
        return value;
    }

    /**
     * A value from a JSON request message (HTTP, Kafka) as this field's kind, never converted from another JSON type:
     * text must be a string; a whole number an integer within the field's range; a flag true or false; a list an array
     * of strings (or one string: a command's words are split here, like a shell would, so a refusal names the field);
     * a map an object of strings. Anything else, a null inside an array or object included, is refused naming the
     * field as the message wrote it ({@code labels.team} for a map's entry), before anything is written.
     */
    public Object fromJson(Object value, String field) {
        return switch (kind) {
            case TEXT -> jsonType(value, String.class, field, "a string");
            case INTEGER -> (int) wholeNumber(value, field, Integer.MIN_VALUE, Integer.MAX_VALUE);
            case LONG -> wholeNumber(value, field, Long.MIN_VALUE, Long.MAX_VALUE);
            case BOOLEAN -> jsonType(value, Boolean.class, field, "true or false");
            case DECIMAL -> decimal(jsonType(value, Number.class, field, "a number"), field);
            case WORDS -> value instanceof String line ? Shell.split(field, line) : jsonStrings(value, field);
            case LIST -> value instanceof String ? value : jsonStrings(value, field);
            case MAP -> jsonStringMap(value, field);
            case DURATION -> value;
        };
    }

    /**
     * A whole number in [min, max] from a Java number; a fraction, or a number outside the range, is refused, never
     * rounded or wrapped.
     */
    public static long wholeNumber(Object value, String field, long min, long max) {
        String range = "a whole number from " + min + " to " + max;
        if (value instanceof Integer || value instanceof Long || value instanceof Short || value instanceof Byte) {
            long number = ((Number) value).longValue();
            if (number < min || number > max) {
                throw new InvalidOptionException(field, value + " is out of range; give " + range);
            }
            return number;
        }
        if (value instanceof BigInteger big) {
            if (big.bitLength() >= 64 || big.longValue() < min || big.longValue() > max) {
                throw new InvalidOptionException(field, value + " is out of range; give " + range);
            }
            return big.longValue();
        }
        throw new InvalidOptionException(field, describe(value) + " is not " + range);
    }

    /**
     * A finite number from a Java number or from text written as a plain decimal ({@code 0.05}, {@code 1},
     * {@code 1e-5}); anything else (a word, a boolean, NaN, an infinity) is refused, never coerced.
     */
    public static double decimal(Object value, String field) {
        double number;
        if (value instanceof Number n && !(value instanceof Float)) {
            number = n.doubleValue();
        } else if (value instanceof String text && DECIMAL_NUMBER.matcher(text).matches()) {
            number = Double.parseDouble(text);
        } else {
            throw new InvalidOptionException(
                    field, describe(value) + " is not a number; write it as a decimal," + " e.g. 0.05");
        }
        if (!Double.isFinite(number)) {
            throw new InvalidOptionException(field, value + " is not a finite number; give a decimal, e.g. 0.05");
        }
        return number;
    }

    /** A whole number in [min, max] given as a Java number ({@link #wholeNumber}) or as text ({@link #parseWholeNumber}). */
    public static long wholeNumberOrDigits(Object value, String field, long min, long max) {
        return value instanceof String text
                ? parseWholeNumber(text, field, min, max)
                : wholeNumber(value, field, min, max);
    }

    /**
     * A whole number in [min, max] written as text (an endpoint option, a header): ASCII digits with an optional
     * leading '-', nothing else. No unit ({@code 2s} is not 2000), sign '+', space, fraction, exponent or other base
     * or script of digits is taken, and a number outside the range is refused, never wrapped.
     */
    public static long parseWholeNumber(String text, String field, long min, long max) {
        String range = "a whole number from " + min + " to " + max;
        if (!WHOLE_NUMBER.matcher(text).matches()) {
            throw new InvalidOptionException(
                    field,
                    "'" + text + "' is not " + range + "; write it in plain digits"
                            + " (no unit, sign '+', space or fraction), e.g. 2");
        }
        BigInteger number = new BigInteger(text);
        if (number.compareTo(BigInteger.valueOf(min)) < 0 || number.compareTo(BigInteger.valueOf(max)) > 0) {
            throw new InvalidOptionException(field, "'" + text + "' is not " + range + "; give one within it");
        }
        return number.longValueExact();
    }

    private static Object jsonType(Object value, Class<?> type, String field, String wanted) {
        if (!type.isInstance(value)) {
            throw new InvalidOptionException(
                    field, describe(value) + " is not " + wanted + "; write it as " + wanted + " in the JSON");
        }
        return value;
    }

    private static List<String> jsonStrings(Object value, String field) {
        if (!(value instanceof List<?> list)) {
            throw new InvalidOptionException(field, describe(value) + " is not an array of strings");
        }
        for (int i = 0; i < list.size(); i++) {
            if (!(list.get(i) instanceof String)) {
                throw new InvalidOptionException(
                        field,
                        "item " + i + " is " + describe(list.get(i))
                                + ", not a string; write every item as a JSON string, e.g. [\"--lr\", \"0.1\"]");
            }
        }
        @SuppressWarnings("unchecked")
        List<String> strings = (List<String>) list;
        return strings;
    }

    private static Map<?, ?> jsonStringMap(Object value, String field) {
        if (!(value instanceof Map<?, ?> map)) {
            throw new InvalidOptionException(field, describe(value) + " is not an object of strings");
        }
        map.forEach((key, item) -> {
            if (!(item instanceof String)) {
                throw new InvalidOptionException(
                        field + "." + key,
                        describe(item) + " is not a string; write it as" + " a JSON string, e.g. \"" + key
                                + "\": \"4\"");
            }
        });
        return map;
    }

    /** A value as the caller sent it, with its JSON type: {@code the number 1.5}, {@code an object}. */
    static String describe(Object value) {
        if (value == null) {
            return "null";
        }
        if (value instanceof Map) {
            return "an object";
        }
        if (value instanceof List) {
            return "an array";
        }
        if (value instanceof Number) {
            return "the number " + value;
        }
        if (value instanceof Boolean) {
            return "the boolean " + value;
        }
        return value instanceof String
                ? "the string '" + value + "'"
                : "a " + value.getClass().getSimpleName();
    }

    /** The field callers write under this name, or null. */
    public static TrainField named(String name) {
        for (TrainField field : values()) {
            if (field.fieldName.equals(name)) {
                return field;
            }
        }
        return null;
    }

    @SuppressWarnings("unchecked")
    private static List<String> strings(Object value) {
        return (List<String>) value;
    }

    @SuppressWarnings("unchecked")
    /**
     * Sets a resource quantity per node. Its own field (cpu, memory, gpu) and the resources map may both name it; one
     * layer giving both is refused naming the field, whatever the values, rather than one of them dropped. A rule
     * beyond the request schema (docs/http-api.md): the merged request it runs on holds each quantity once.
     */
    private static void resource(TrainRequest request, String name, String quantity, String field) {
        String given = request.resources().get(name);
        if (given != null) {
            String own = switch (name) {
                case "nvidia.com/gpu" -> "gpu";
                default -> name;
            };
            throw new InvalidOptionException(
                    field,
                    name + " given twice (" + own + " and resources." + name + "): '" + quantity + "' and '" + given
                            + "'; give it once: " + own + ", or " + name + " in resources");
        }
        request.resource(name, quantity);
    }

    private static Map<String, Object> map(Object value) {
        return (Map<String, Object>) value;
    }

    private static String text(Object value) {
        return value == null ? null : value.toString();
    }

    /** Whole seconds, rounded up; zero means no TTL, and a negative value is kept for the validator to refuse. */
    private static Long ttlSeconds(Duration ttl) {
        long millis = ttl.toMillis();
        return millis == 0 ? null : millis < 0 ? millis : (millis + 999) / 1000;
    }
}
