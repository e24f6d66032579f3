package io.camelkubeflow.trainer;

import java.io.InputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

import io.camelkubeflow.trainer.job.EnvValues;
import io.camelkubeflow.trainer.job.InvalidTrainRequestException;
import io.camelkubeflow.trainer.job.Shell;
import io.camelkubeflow.trainer.job.TrainJobDocument;
import io.camelkubeflow.trainer.job.TrainRequest;
import io.camelkubeflow.trainer.runtime.ImageRule;
import io.camelkubeflow.trainer.runtime.Launcher;
import org.apache.camel.CamelContext;
import org.apache.camel.Exchange;
import org.apache.camel.Expression;
import org.apache.camel.Message;
import org.apache.camel.NoTypeConversionAvailableException;
import org.apache.camel.support.ResourceHelper;
import org.apache.camel.util.IOHelper;

import static io.camelkubeflow.trainer.KubeflowTrainerConstants.*;

/**
 * Maps Camel's three layers of a train request onto the domain's {@link TrainRequest}: the endpoint options, the
 * message body (a TrainJob or a script) and the per-message headers.
 */
final class ExchangeTrainRequests {
    /** Headers of camel-kafka, camel-aws2-s3 and camel-file that identify the event a message carries. */
    private static final String KAFKA_TOPIC = "kafka.TOPIC";
    private static final String KAFKA_PARTITION = "kafka.PARTITION";
    private static final String KAFKA_OFFSET = "kafka.OFFSET";
    private static final String S3_BUCKET = "CamelAwsS3BucketName";
    private static final String S3_KEY = "CamelAwsS3Key";
    private static final String S3_ETAG = "CamelAwsS3ETag";
    private static final String FILE_PATH = "CamelFileAbsolutePath";
    private static final String FILE_MODIFIED = "CamelFileLastModified";

    private ExchangeTrainRequests() {
    }

    /** The endpoint's defaults; a script option naming a resource (classpath:, file:, ...) is read here, once. */
    static TrainRequest fromConfiguration(CamelContext context, KubeflowTrainerConfiguration c) throws Exception {
        TrainRequest request = new TrainRequest()
                .namespace(c.getNamespace())
                .runtime(c.getRuntime())
                .runtimeKind(c.getRuntimeKind())
                .image(c.getImage())
                .launcher(c.getLauncher() == null ? null : Launcher.parse("launcher", c.getLauncher()))
                .imageRules(c.getImageRules() == null ? null : ImageRule.parseList("imageRules", c.getImageRules()))
                .command(c.getCommand() == null ? null : Shell.split("command", c.getCommand()))
                .args(c.getArgs() == null ? null : Shell.split("args", c.getArgs()))
                .pythonFile(c.getPythonFile())
                .script(c.getScript() == null ? null : readScriptOption(context, c.getScript()))
                .scriptFileName(c.getScriptFileName())
                .packages(commaList(c.getPackages()))
                .pipIndexUrls(commaList(c.getPipIndexUrls()))
                .numNodes(c.getNumNodes())
                .numProcPerNode(c.getNumProcPerNode())
                .datasetUri(c.getDatasetUri())
                .datasetSecret(c.getDatasetSecret())
                .modelUri(c.getModelUri())
                .modelSecret(c.getModelSecret())
                .activeDeadlineSeconds(c.getActiveDeadlineSeconds())
                .ttlAfterFinishedSeconds(c.getTtlAfterFinished() == 0 ? null
                        : c.getTtlAfterFinished() < 0 ? c.getTtlAfterFinished() : (c.getTtlAfterFinished() + 999) / 1000)
                .suspend(c.getSuspend())
                .managedBy(c.getManagedBy())
                .jobName(c.getJobName())
                .jobNamePrefix(c.getJobNamePrefix())
                .skipIfRunning(c.isSkipIfRunning())
                .maxInFlight(c.getMaxInFlight())
                .inFlightGroup(c.getInFlightGroup());
        resources(request, c.getCpu(), c.getMemory(), c.getGpu(), c.getResources());
        if (c.getEnv() != null) {
            c.getEnv().forEach((name, value) -> request.env(EnvValues.of(name, value)));
        }
        stringMap(c.getLabels()).forEach(request::label);
        stringMap(c.getAnnotations()).forEach(request::annotation);
        return request;
    }

    private static String readScriptOption(CamelContext context, String script) throws Exception {
        if (!ResourceHelper.hasScheme(script)) {
            return script;
        }
        String uri = script.startsWith("resource:") ? script.substring("resource:".length()) : script;
        try (InputStream in = ResourceHelper.resolveMandatoryResourceAsInputStream(context, uri)) {
            return IOHelper.loadText(in);
        }
    }

    /** The body's layer: a TrainJob to merge, or the inline script, as bodyType says. */
    static TrainRequest fromBody(Exchange exchange, String bodyType) {
        Message in = exchange.getMessage();
        Object body = in.getBody();
        switch (bodyType == null ? "auto" : bodyType) {
            case "ignore":
                return new TrainRequest();
            case "script":
                String script = in.getBody(String.class);
                if (script == null || script.isBlank()) {
                    throw new InvalidTrainRequestException("body", "bodyType=script but the body is empty; send the"
                            + " Python source as the body");
                }
                return new TrainRequest().script(script);
            case "trainJob":
                Object document = body instanceof Map || body instanceof io.camelkubeflow.trainer.api.TrainJob ? body
                        : in.getBody(String.class);
                return TrainJobDocument.toRequest(TrainJobDocument.read(document));
            case "auto":
                return TrainJobDocument.looksLikeTrainJob(body)
                        ? TrainJobDocument.toRequest(TrainJobDocument.read(body)) : new TrainRequest();
            default:
                throw new InvalidTrainRequestException("bodyType", "'" + bodyType + "' is not a body type; use auto,"
                        + " trainJob, script or ignore");
        }
    }

    /** The headers' layer: every option can be set per message. */
    static TrainRequest fromHeaders(Exchange exchange) {
        Message in = exchange.getMessage();
        TrainRequest request = new TrainRequest()
                .namespace(string(in, NAMESPACE))
                .jobName(string(in, JOB_NAME))
                .jobNamePrefix(string(in, JOB_NAME_PREFIX))
                .runKey(string(in, RUN_KEY))
                .runtime(string(in, RUNTIME))
                .runtimeKind(string(in, RUNTIME_KIND))
                .image(string(in, IMAGE))
                .launcher(string(in, LAUNCHER) == null ? null : Launcher.parse(LAUNCHER, string(in, LAUNCHER)))
                .imageRules(string(in, IMAGE_RULES) == null ? null
                        : ImageRule.parseList(IMAGE_RULES, string(in, IMAGE_RULES)))
                .command(words(in, COMMAND))
                .args(words(in, ARGS))
                .pythonFile(string(in, PYTHON_FILE))
                .script(string(in, SCRIPT))
                .scriptFileName(string(in, SCRIPT_FILE_NAME))
                .packages(list(in, PACKAGES))
                .pipIndexUrls(list(in, PIP_INDEX_URLS))
                .numNodes(typed(exchange, NUM_NODES, Integer.class))
                .numProcPerNode(typed(exchange, NUM_PROC_PER_NODE, Integer.class))
                .datasetUri(string(in, DATASET_URI))
                .datasetSecret(string(in, DATASET_SECRET))
                .modelUri(string(in, MODEL_URI))
                .modelSecret(string(in, MODEL_SECRET))
                .activeDeadlineSeconds(typed(exchange, ACTIVE_DEADLINE_SECONDS, Long.class))
                .suspend(typed(exchange, SUSPEND, Boolean.class))
                .managedBy(string(in, MANAGED_BY));
        resources(request, string(in, CPU), string(in, MEMORY), string(in, GPU), map(in, RESOURCES));
        map(in, ENV).forEach((name, value) -> request.env(EnvValues.of(name, value)));
        stringMap(map(in, LABELS)).forEach(request::label);
        stringMap(map(in, ANNOTATIONS)).forEach(request::annotation);
        return request;
    }

    /**
     * The idempotency key: the header, else the endpoint's expression, else the identity of the event the message
     * carries (Kafka record, S3 object version, file version), else the exchange id, which Camel keeps across
     * redeliveries of one exchange.
     */
    static String idempotencyKey(Exchange exchange, Expression configured) {
        Message in = exchange.getMessage();
        String key = string(in, IDEMPOTENCY_KEY);
        if (key == null && configured != null) {
            key = configured.evaluate(exchange, String.class);
            if (key == null || key.isBlank()) {
                throw new InvalidTrainRequestException("idempotencyKey", "the expression gave no value for this"
                        + " message; make it always yield a key, or set the " + IDEMPOTENCY_KEY + " header");
            }
        }
        if (key == null && in.getHeader(KAFKA_TOPIC) != null && in.getHeader(KAFKA_OFFSET) != null) {
            key = "kafka:" + in.getHeader(KAFKA_TOPIC) + "/" + in.getHeader(KAFKA_PARTITION) + "/"
                  + in.getHeader(KAFKA_OFFSET);
        }
        if (key == null && in.getHeader(S3_BUCKET) != null && in.getHeader(S3_KEY) != null) {
            key = "s3:" + in.getHeader(S3_BUCKET) + "/" + in.getHeader(S3_KEY) + "@" + in.getHeader(S3_ETAG);
        }
        if (key == null && in.getHeader(FILE_PATH) != null) {
            key = "file:" + in.getHeader(FILE_PATH) + "@" + in.getHeader(FILE_MODIFIED);
        }
        return key != null ? key : "exchange:" + exchange.getExchangeId();
    }

    private static void resources(TrainRequest request, String cpu, String memory, String gpu, Map<String, ?> others) {
        stringMap(others).forEach(request::resource);
        if (cpu != null) {
            request.resource("cpu", cpu);
        }
        if (memory != null) {
            request.resource("memory", memory);
        }
        if (gpu != null) {
            request.resource("nvidia.com/gpu", gpu);
        }
    }

    private static String string(Message in, String header) {
        Object value = in.getHeader(header);
        return value == null ? null : value.toString();
    }

    private static <T> T typed(Exchange exchange, String header, Class<T> type) {
        Object value = exchange.getMessage().getHeader(header);
        if (value == null) {
            return null;
        }
        try {
            return exchange.getContext().getTypeConverter().mandatoryConvertTo(type, exchange, value);
        } catch (NoTypeConversionAvailableException | RuntimeException e) {
            throw new InvalidTrainRequestException(header, "'" + value + "' (" + value.getClass().getSimpleName()
                    + ") is not a " + type.getSimpleName() + "; set the header to a " + type.getSimpleName(), e);
        }
    }

    /** A List header is taken word for word; a String header is split like a shell would. */
    private static List<String> words(Message in, String header) {
        Object value = in.getHeader(header);
        if (value == null) {
            return null;
        }
        if (value instanceof List<?> list) {
            return list.stream().map(String::valueOf).toList();
        }
        if (value instanceof String[] array) {
            return List.of(array);
        }
        return Shell.split(header, value.toString());
    }

    private static List<String> list(Message in, String header) {
        Object value = in.getHeader(header);
        if (value instanceof List<?> list) {
            return list.stream().map(String::valueOf).toList();
        }
        return value == null ? null : commaList(value.toString());
    }

    private static List<String> commaList(String text) {
        if (text == null) {
            return null;
        }
        List<String> items = new ArrayList<>();
        Arrays.stream(text.split(",")).map(String::trim).filter(s -> !s.isEmpty()).forEach(items::add);
        return items;
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> map(Message in, String header) {
        Object value = in.getHeader(header);
        if (value == null) {
            return Map.of();
        }
        if (!(value instanceof Map)) {
            throw new InvalidTrainRequestException(header, "a " + value.getClass().getSimpleName() + " was given;"
                    + " set the header to a java.util.Map");
        }
        return (Map<String, Object>) value;
    }

    private static Map<String, String> stringMap(Map<String, ?> map) {
        Map<String, String> strings = new java.util.LinkedHashMap<>();
        if (map != null) {
            map.forEach((k, v) -> strings.put(k, v == null ? null : v.toString()));
        }
        return strings;
    }

}
