package io.camelkubeflow.trainer.job;

import io.camelkubeflow.trainer.api.Initializer;
import io.camelkubeflow.trainer.api.StorageInitializer;
import io.camelkubeflow.trainer.runtime.TrainingRuntimeDescriptor;
import io.camelkubeflow.trainer.support.InvalidOptionException;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.EnvVarBuilder;
import io.fabric8.kubernetes.api.model.LocalObjectReference;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * A request's initializers as the TrainJob's {@code spec.initializer.dataset} and {@code .model}: which initializer
 * fetches (the storage URI's scheme, or the request's kind), the typed settings checked against that kind and written
 * as the variables the Trainer's initializer images read, credentials as Secret references only, and the runtime's
 * fitness for it (the Trainer webhook's rule, and the data cache's own initializer).
 */
public final class StorageInitializers {
    /** The CRD's CEL rule for initializer storageUri. */
    static final Pattern STORAGE_URI = Pattern.compile("[A-Za-z][A-Za-z0-9+.-]*://.+");

    private static final int MAX_URI_LENGTH = 2048;
    private static final Pattern WORD = Pattern.compile("[A-Za-z0-9_-]{1,64}");
    private static final Pattern ARN = Pattern.compile("arn:[A-Za-z0-9-]+:[A-Za-z0-9-]+:\\S*");
    /** What the SDK's model initializers skip unless told otherwise: weights in formats training does not load. */
    static final List<String> DEFAULT_MODEL_IGNORE_PATTERNS = List.of("*.msgpack", "*.h5", "*.bin", "*.pt", "*.pth");
    /** The Trainer v2.3 default runtimes that carry both initializers, named when a runtime lacks one. */
    static final List<String> DEFAULT_RUNTIMES_WITH_INITIALIZERS =
            List.of("torchtune-llama3.2-1b", "torchtune-llama3.2-3b", "torchtune-qwen2.5-1.5b");
    /** The Trainer v2.3 default runtime whose dataset initializer runs the data cache. */
    static final String DEFAULT_CACHE_RUNTIME = "torch-distributed-with-cache";

    private StorageInitializers() {}

    /** Checks both initializers of a request, as far as that can be done without the runtime. */
    static void validate(TrainRequest request) {
        validate(InitializerStep.DATASET, request.dataset());
        validate(InitializerStep.MODEL, request.model());
    }

    /** The spec.initializer for the request on this runtime, or null when the request names no initializer. */
    static Initializer build(TrainRequest request, TrainingRuntimeDescriptor runtime) {
        StorageInitializer dataset = build(InitializerStep.DATASET, request.dataset(), runtime);
        StorageInitializer model = build(InitializerStep.MODEL, request.model(), runtime);
        return dataset == null && model == null ? null : new Initializer(dataset, model);
    }

    private static void validate(InitializerStep step, InitializerRequest request) {
        if (request.isEmpty()) {
            return;
        }
        String uriField = step.field("Uri");
        String uri = request.uri();
        InitializerKind kind = kind(step, request);
        if (uri != null && !uri.isEmpty()) {
            String written = effectiveUri(uri, kind);
            if (written.length() > MAX_URI_LENGTH
                    || !STORAGE_URI.matcher(written).matches()
                    || written.chars().anyMatch(Character::isWhitespace)) {
                throw new InvalidOptionException(
                        uriField,
                        "'" + uri + "' is not a storage URI; write"
                                + " scheme://location, e.g. s3://bucket/data or hf://tatsu-lab/alpaca (at most "
                                + MAX_URI_LENGTH + " characters), or name the kind with " + step.field("Kind"));
            }
            int authority = written.indexOf("://") + 3;
            int end = written.indexOf('/', authority);
            if (written.substring(authority, end < 0 ? written.length() : end).contains("@")) {
                // the URI is not repeated: what stands before '@' is a user name and maybe a password or token
                throw new InvalidOptionException(
                        uriField,
                        "the storage URI carries credentials before '@' (not"
                                + " repeated here); never put them in a request: store them in a Secret and name it with "
                                + step.field("Secret")
                                + " (keys ACCESS_TOKEN, or ACCESS_KEY_ID and SECRET_ACCESS_KEY), or"
                                + " reference its keys with " + InitializerSetting.ACCESS_TOKEN.field(step)
                                + "=secretKeyRef:<secret>/<key>");
            }
            if (kind == InitializerKind.CACHE) {
                String[] parts = written.substring(authority).split("/", -1);
                if (parts.length != 2 || parts[0].isEmpty() || parts[1].isEmpty()) {
                    throw new InvalidOptionException(
                            uriField, "'" + uri + "' is not a data cache URI; write" + " cache://<schema>/<table>");
                }
            }
        }
        for (Map.Entry<InitializerSetting, Object> entry : request.settings().entrySet()) {
            InitializerSetting setting = entry.getKey();
            String field = setting.field(step);
            if (kind == null) {
                throw new InvalidOptionException(
                        field,
                        "no initializer kind is known to read it: "
                                + (uri == null || uri.isEmpty()
                                        ? "no storage URI is given"
                                        : "the storage URI's scheme is" + " none of " + step.schemes())
                                + "; give an hf://, s3:// or cache:// URI, or name the kind with "
                                + step.field("Kind"));
            }
            if (!setting.readBy(kind)) {
                throw new InvalidOptionException(
                        field,
                        "only the " + setting.kindsText() + " initializer reads it,"
                                + " and this " + step.field("") + " is fetched by the " + kind.scheme()
                                + " one; drop it or"
                                + " fix " + uriField);
            }
            check(field, setting, entry.getValue());
        }
        if (kind == InitializerKind.CACHE) {
            for (InitializerSetting required :
                    List.of(InitializerSetting.CACHE_METADATA_LOC, InitializerSetting.CACHE_DATA_NODES)) {
                if (!request.settings().containsKey(required)) {
                    throw new InvalidOptionException(
                            required.field(step),
                            "the data cache needs it; give "
                                    + (required == InitializerSetting.CACHE_DATA_NODES
                                            ? "the number of data nodes (2 or more)"
                                            : "the location of the Iceberg table's metadata file, e.g."
                                                    + " s3://bucket/table/metadata/v1.metadata.json"));
                }
            }
        }
    }

    /** The kind the request names, or its URI's scheme says; null when neither says one the Trainer knows. */
    private static InitializerKind kind(InitializerStep step, InitializerRequest request) {
        // one the step takes: the train request's schema holds the kinds of each step
        InitializerKind named = request.kind() == null ? null : InitializerKind.of(request.kind());
        String scheme = scheme(request.uri());
        if (scheme == null) {
            return named;
        }
        // the initializer images read the scheme as Python's urlparse does: case-insensitively
        InitializerKind fromUri = InitializerKind.of(scheme.toLowerCase(Locale.ROOT));
        if (fromUri != null && !step.takes(fromUri)) {
            throw new InvalidOptionException(
                    step.field("Uri"),
                    fromUri.scheme() + ":// is a source of datasets" + " only; the " + step.field("")
                            + " initializer takes " + step.schemes());
        }
        if (named != null && fromUri != named) {
            throw new InvalidOptionException(
                    step.field("Kind"),
                    "'" + request.kind() + "' contradicts the storage" + " URI's scheme '" + scheme + "'; drop "
                            + step.field("Kind") + " or fix " + step.field("Uri"));
        }
        return fromUri;
    }

    private static String scheme(String uri) {
        int separator = uri == null ? -1 : uri.indexOf("://");
        return separator > 0 ? uri.substring(0, separator) : null;
    }

    /** The URI as the TrainJob carries it: one without a scheme gets the named kind's, as the SDK does for hf. */
    private static String effectiveUri(String uri, InitializerKind kind) {
        return scheme(uri) == null && kind != null ? kind.scheme() + "://" + uri : uri;
    }

    private static void check(String field, InitializerSetting setting, Object value) {
        switch (setting.form()) {
            case PATTERNS -> {
                for (String pattern : InitializerRequest.patterns(value)) {
                    if (pattern.isBlank()
                            || pattern.contains(",")
                            || pattern.length() > 256
                            || pattern.codePoints()
                                    .anyMatch(c ->
                                            Character.isISOControl(c) || Character.getType(c) == Character.FORMAT)) {
                        throw new InvalidOptionException(
                                field,
                                "'" + pattern + "' is not a file pattern: the"
                                        + " initializer reads the list comma-separated, so give each pattern (e.g. *.bin) as"
                                        + " an item of its own, none empty or holding ',' or a control character (at most 256"
                                        + " characters)");
                    }
                }
            }
            case URL -> {
                String text = (String) value;
                URI url;
                try {
                    url = URI.create(text);
                } catch (IllegalArgumentException e) {
                    url = null;
                }
                if (url == null
                        || url.getHost() == null
                        || url.getUserInfo() != null
                        || !("https".equals(url.getScheme()) || "http".equals(url.getScheme()))) {
                    throw new InvalidOptionException(
                            field,
                            "'"
                                    + (url != null && url.getUserInfo() != null
                                            ? "(a URL with user info, not repeated)"
                                            : text)
                                    + "' is not an http(s) endpoint URL"
                                    + " without user info; give e.g. https://s3.eu-central-1.amazonaws.com or"
                                    + " http://minio.storage:9000");
                }
            }
            case WORD -> {
                if (!WORD.matcher((String) value).matches()) {
                    throw new InvalidOptionException(
                            field,
                            "'" + value + "' is not a region name; give e.g."
                                    + " eu-central-1 (letters, digits, '-', '_')");
                }
            }
            case ARN -> {
                String text = (String) value;
                if (text.length() > MAX_URI_LENGTH || !ARN.matcher(text).matches()) {
                    throw new InvalidOptionException(
                            field,
                            "'" + text + "' is not an ARN; give e.g." + " arn:aws:iam::123456789012:role/training");
                }
            }
            case LOCATION -> {
                String text = (String) value;
                if (text.length() > MAX_URI_LENGTH
                        || !STORAGE_URI.matcher(text).matches()
                        || text.chars().anyMatch(Character::isWhitespace)) {
                    throw new InvalidOptionException(
                            field,
                            "'" + text + "' is not a location; write"
                                    + " scheme://path, e.g. s3://bucket/table/metadata/v1.metadata.json");
                }
            }
            case NODES -> {
                if ((Integer) value < 2) {
                    throw new InvalidOptionException(
                            field, value + " data nodes is too few; the data cache needs" + " at least 2");
                }
            }
            case QUANTITY -> {
                String text = (String) value;
                if (!TrainRequestValidator.isQuantity(text) || text.startsWith("-")) {
                    throw new InvalidOptionException(
                            field,
                            "'" + text + "' is not a Kubernetes quantity of zero or"
                                    + " more; write e.g. 2, 500m or 4Gi");
                }
            }
            case SECRET_KEY -> {
                // parsed and checked when set (InitializerRequest.set): only a Secret's key gets this far
            }
        }
    }

    private static StorageInitializer build(
            InitializerStep step, InitializerRequest request, TrainingRuntimeDescriptor runtime) {
        if (request.isEmpty()) {
            return null;
        }
        String field = firstField(step, request);
        String problem = runtime.initializerProblem(step.replicatedJob());
        if (problem != null) {
            // on a runtime without the step the controller would ignore it, and the Trainer webhook refuses it anyway
            throw new InvalidOptionException(
                    field,
                    runtime.describe() + " " + problem + ", and the Trainer takes a "
                            + step.field("") + " initializer only on a runtime with a '" + step.replicatedJob()
                            + "' replicated"
                            + " job whose '" + step.replicatedJob() + "' container mounts the '"
                            + TrainingRuntimeDescriptor.INITIALIZER_VOLUME
                            + "' volume; pick such a runtime (of the Trainer's"
                            + " defaults: " + String.join(", ", DEFAULT_RUNTIMES_WITH_INITIALIZERS) + "), or fetch the "
                            + step.field("") + " in your code");
        }
        InitializerKind kind = kind(step, request);
        if (kind == InitializerKind.CACHE && !runtime.hasCacheInitializer()) {
            throw new InvalidOptionException(
                    field,
                    runtime.describe() + " has no data cache initializer (its "
                            + step.replicatedJob() + " container sets no " + TrainingRuntimeDescriptor.CACHE_IMAGE_ENV
                            + "), so a cache:// dataset cannot be served; pick a runtime made from the Trainer's "
                            + DEFAULT_CACHE_RUNTIME + ", or fetch an hf:// or s3:// dataset");
        }
        List<EnvVar> env = new ArrayList<>();
        if (step == InitializerStep.MODEL
                && kind != null
                && kind != InitializerKind.CACHE
                && !request.settings().containsKey(InitializerSetting.IGNORE_PATTERNS)) {
            env.add(new EnvVar(
                    InitializerSetting.IGNORE_PATTERNS.env(), String.join(",", DEFAULT_MODEL_IGNORE_PATTERNS), null));
        }
        request.settings().forEach((setting, value) -> {
            EnvVar var = env(setting, value);
            if (var != null) {
                env.add(var);
            }
        });
        String uri =
                request.uri() == null || request.uri().isEmpty() ? request.uri() : effectiveUri(request.uri(), kind);
        return new StorageInitializer(
                uri,
                env.isEmpty() ? null : env,
                request.secret() == null ? null : new LocalObjectReference(request.secret()));
    }

    /** The variable the initializer reads a setting from; null for an empty pattern list (the initializer's none). */
    private static EnvVar env(InitializerSetting setting, Object value) {
        return switch (setting.form()) {
            case PATTERNS ->
                InitializerRequest.patterns(value).isEmpty()
                        ? null
                        : new EnvVar(setting.env(), String.join(",", InitializerRequest.patterns(value)), null);
            case SECRET_KEY ->
                new EnvVarBuilder()
                        .withName(setting.env())
                        .withNewValueFrom()
                        .withSecretKeyRef(InitializerRequest.secretKey(value))
                        .endValueFrom()
                        .build();
            case NODES -> new EnvVar(setting.env(), Long.toString((Integer) value + 1L), null);
            default -> new EnvVar(setting.env(), (String) value, null);
        };
    }

    /** The field a refusal about the whole initializer names: the first the request set. */
    private static String firstField(InitializerStep step, InitializerRequest request) {
        if (request.uri() != null) {
            return step.field("Uri");
        }
        if (request.secret() != null) {
            return step.field("Secret");
        }
        if (request.kind() != null) {
            return step.field("Kind");
        }
        return request.settings().keySet().iterator().next().field(step);
    }
}
