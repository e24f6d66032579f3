package io.camelkubeflow.trainer.job;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import io.camelkubeflow.trainer.runtime.ImageRule;
import io.camelkubeflow.trainer.runtime.Launcher;

/**
 * Every field of a {@link TrainRequest} a caller can set, declared once: the name callers write (the endpoint option,
 * the request-message field, and, capitalized behind {@code CamelKubeflowTrainer}, the header), the type of value it
 * takes, whether a request message (HTTP, Kafka, S3) may set it or only the route's own options and headers, and how
 * a value lands in the request. The Camel layer reads options and headers through this table, the routes app its
 * message fields, and a test holds the endpoint options, headers and docs to it.
 */
public enum TrainField {
    NAMESPACE("namespace", Kind.TEXT, Exposure.MESSAGE, (r, v, f) -> r.namespace((String) v)),
    JOB_NAME("jobName", Kind.TEXT, Exposure.MESSAGE, (r, v, f) -> r.jobName((String) v)),
    JOB_NAME_PREFIX("jobNamePrefix", Kind.TEXT, Exposure.ROUTE, (r, v, f) -> r.jobNamePrefix((String) v)),
    IDEMPOTENCY_KEY("idempotencyKey", Kind.TEXT, Exposure.MESSAGE, (r, v, f) -> r.idempotencyKey((String) v)),
    IDEMPOTENCY_SCOPE("idempotencyScope", Kind.TEXT, Exposure.ROUTE, (r, v, f) -> r.idempotencyScope((String) v)),
    RUN_KEY("runKey", Kind.TEXT, Exposure.MESSAGE, (r, v, f) -> r.runKey((String) v)),
    SKIP_IF_RUNNING("skipIfRunning", Kind.BOOLEAN, Exposure.ROUTE, (r, v, f) -> r.skipIfRunning((Boolean) v)),
    MAX_IN_FLIGHT("maxInFlight", Kind.INTEGER, Exposure.ROUTE, (r, v, f) -> r.maxInFlight((Integer) v)),
    IN_FLIGHT_GROUP("inFlightGroup", Kind.TEXT, Exposure.ROUTE, (r, v, f) -> r.inFlightGroup((String) v)),
    RUNTIME("runtime", Kind.TEXT, Exposure.MESSAGE, (r, v, f) -> r.runtime((String) v)),
    RUNTIME_KIND("runtimeKind", Kind.TEXT, Exposure.MESSAGE, (r, v, f) -> r.runtimeKind((String) v)),
    IMAGE("image", Kind.TEXT, Exposure.MESSAGE, (r, v, f) -> r.image((String) v)),
    LAUNCHER("launcher", Kind.TEXT, Exposure.MESSAGE, (r, v, f) -> r.launcher(Launcher.parse(f, (String) v))),
    IMAGE_RULES("imageRules", Kind.TEXT, Exposure.ROUTE,
            (r, v, f) -> r.imageRules(ImageRule.parseList(f, (String) v))),
    COMMAND("command", Kind.WORDS, Exposure.MESSAGE, (r, v, f) -> r.command(strings(v))),
    ARGS("args", Kind.WORDS, Exposure.MESSAGE, (r, v, f) -> r.args(strings(v))),
    PYTHON_FILE("pythonFile", Kind.TEXT, Exposure.MESSAGE, (r, v, f) -> r.pythonFile((String) v)),
    SCRIPT("script", Kind.TEXT, Exposure.MESSAGE, (r, v, f) -> r.script((String) v)),
    SCRIPT_FILE_NAME("scriptFileName", Kind.TEXT, Exposure.MESSAGE, (r, v, f) -> r.scriptFileName((String) v)),
    PACKAGES("packages", Kind.LIST, Exposure.MESSAGE, (r, v, f) -> r.packages(strings(v))),
    PIP_INDEX_URLS("pipIndexUrls", Kind.LIST, Exposure.MESSAGE, (r, v, f) -> r.pipIndexUrls(strings(v))),
    ENV("env", Kind.MAP, Exposure.MESSAGE,
            (r, v, f) -> map(v).forEach((name, value) -> r.env(EnvValues.of(name, value)))),
    NUM_NODES("numNodes", Kind.INTEGER, Exposure.MESSAGE, (r, v, f) -> r.numNodes((Integer) v)),
    NUM_PROC_PER_NODE("numProcPerNode", Kind.INTEGER, Exposure.MESSAGE, (r, v, f) -> r.numProcPerNode((Integer) v)),
    // the named resources come after the map, so cpu=4 wins over resources.cpu=2
    RESOURCES("resources", Kind.MAP, Exposure.MESSAGE,
            (r, v, f) -> map(v).forEach((name, value) -> r.resource(name, text(value)))),
    CPU("cpu", Kind.TEXT, Exposure.MESSAGE, (r, v, f) -> r.resource("cpu", (String) v)),
    MEMORY("memory", Kind.TEXT, Exposure.MESSAGE, (r, v, f) -> r.resource("memory", (String) v)),
    GPU("gpu", Kind.TEXT, Exposure.MESSAGE, (r, v, f) -> r.resource("nvidia.com/gpu", (String) v)),
    LABELS("labels", Kind.MAP, Exposure.MESSAGE,
            (r, v, f) -> map(v).forEach((key, value) -> r.label(key, text(value)))),
    ANNOTATIONS("annotations", Kind.MAP, Exposure.MESSAGE,
            (r, v, f) -> map(v).forEach((key, value) -> r.annotation(key, text(value)))),
    DATASET_URI("datasetUri", Kind.TEXT, Exposure.MESSAGE, (r, v, f) -> r.datasetUri((String) v)),
    DATASET_SECRET("datasetSecret", Kind.TEXT, Exposure.MESSAGE, (r, v, f) -> r.datasetSecret((String) v)),
    MODEL_URI("modelUri", Kind.TEXT, Exposure.MESSAGE, (r, v, f) -> r.modelUri((String) v)),
    MODEL_SECRET("modelSecret", Kind.TEXT, Exposure.MESSAGE, (r, v, f) -> r.modelSecret((String) v)),
    ACTIVE_DEADLINE_SECONDS("activeDeadlineSeconds", Kind.LONG, Exposure.MESSAGE,
            (r, v, f) -> r.activeDeadlineSeconds((Long) v)),
    SUSPEND("suspend", Kind.BOOLEAN, Exposure.MESSAGE, (r, v, f) -> r.suspend((Boolean) v)),
    MANAGED_BY("managedBy", Kind.TEXT, Exposure.ROUTE, (r, v, f) -> r.managedBy((String) v)),
    TTL_AFTER_FINISHED("ttlAfterFinished", Kind.DURATION, Exposure.ROUTE,
            (r, v, f) -> r.ttlAfterFinishedSeconds(ttlSeconds((Duration) v)));

    /** The Java type a value must have when it reaches {@link #apply}. */
    public enum Kind {
        /** A String. */
        TEXT(String.class),
        INTEGER(Integer.class),
        LONG(Long.class),
        BOOLEAN(Boolean.class),
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
        MESSAGE, ROUTE
    }

    @FunctionalInterface
    private interface Setter {
        void apply(TrainRequest request, Object value, String field);
    }

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

    /**
     * Sets a value of this field's {@link #kind()} on the request.
     *
     * @param field the name the caller wrote it under (an option, a header or a message field), for error messages
     */
    public void apply(TrainRequest request, Object value, String field) {
        if (value != null) {
            setter.apply(request, value, field);
        }
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
