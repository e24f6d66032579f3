package io.camelkubeflow.trainer;

import static io.camelkubeflow.trainer.KubeflowTrainerConstants.*;

import io.camelkubeflow.trainer.api.TrainJob;
import io.camelkubeflow.trainer.job.FieldValues;
import io.camelkubeflow.trainer.job.Shell;
import io.camelkubeflow.trainer.job.TrainField;
import io.camelkubeflow.trainer.job.TrainJobDocument;
import io.camelkubeflow.trainer.job.TrainRequest;
import io.camelkubeflow.trainer.support.InvalidOptionException;
import io.camelkubeflow.trainer.workspace.Workspace;
import io.camelkubeflow.trainer.workspace.WorkspaceArchives;
import io.camelkubeflow.trainer.workspace.WorkspaceLimits;
import java.io.InputStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.apache.camel.CamelContext;
import org.apache.camel.Exchange;
import org.apache.camel.Expression;
import org.apache.camel.Message;
import org.apache.camel.NoTypeConversionAvailableException;
import org.apache.camel.spi.PropertyConfigurerGetter;
import org.apache.camel.support.ResourceHelper;
import org.apache.camel.util.IOHelper;

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

    /** The route node of the exchange's first train step. */
    private static final String FIRST_TRAIN_STEP_PROPERTY = "CamelKubeflowTrainerFirstTrainStep";

    /** Train options whose value is a Simple expression the producer evaluates per message, not a value. */
    static final Set<TrainField> EXPRESSION_OPTIONS = EnumSet.of(TrainField.IDEMPOTENCY_KEY, TrainField.RUN_KEY);

    private ExchangeTrainRequests() {}

    /**
     * The endpoint's defaults: every train field's option, read through the endpoint's generated configurer (the
     * options Camel set); a script option naming a resource (classpath:, file:, ...) is read here, once.
     */
    static TrainRequest fromConfiguration(KubeflowTrainerEndpoint endpoint) throws Exception {
        PropertyConfigurerGetter options =
                (PropertyConfigurerGetter) endpoint.getComponent().getEndpointPropertyConfigurer();
        TrainRequest request = new TrainRequest();
        for (TrainField field : TrainField.values()) {
            Object value = EXPRESSION_OPTIONS.contains(field)
                    ? null
                    : options.getOptionValue(endpoint, field.fieldName(), false);
            if (value != null) {
                if (field == TrainField.SCRIPT) {
                    value = readScriptOption(endpoint.getCamelContext(), (String) value);
                }
                field.apply(request, optionValue(field, value), field.fieldName());
            }
        }
        return request;
    }

    /** An option's value as its field's kind: options hold text where a header may hold a List. */
    private static Object optionValue(TrainField field, Object value) {
        return switch (field.kind()) {
            case TEXT -> value.toString();
            case WORDS -> Shell.split(field.fieldName(), value.toString());
            case LIST -> commaList(value.toString());
            case DURATION -> Duration.ofMillis((Long) value);
            case DECIMAL -> FieldValues.decimal(value, field.fieldName());
            default -> value;
        };
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

    /**
     * The body's layer: a TrainJob to merge, or the inline script, as bodyType says. With {@code auto}, a TrainJob an
     * earlier step of this exchange answered with is not read.
     */
    static TrainRequest fromBody(Exchange exchange, BodyType bodyType) {
        Message in = exchange.getMessage();
        Object body = in.getBody();
        switch (bodyType) {
            case ignore:
                return new TrainRequest();
            case script:
                String script = in.getBody(String.class);
                if (script == null || script.isBlank()) {
                    throw new InvalidOptionException(
                            "body", "bodyType=script but the body is empty; send the" + " Python source as the body");
                }
                return new TrainRequest().script(script);
            case workspace:
                if (body instanceof Workspace read) {
                    return new TrainRequest().workspaceContent(read);
                }
                byte[] archive = in.getBody(byte[].class);
                if (archive == null || archive.length == 0) {
                    throw new InvalidOptionException(
                            "body",
                            "bodyType=workspace but the body is empty; send a zip,"
                                    + " tar or tar.gz of the project as the body");
                }
                return new TrainRequest()
                        .workspaceContent(WorkspaceArchives.fromArchive(archive, "body", WorkspaceLimits.DEFAULT));
            case trainJob:
                Object document = body instanceof Map || body instanceof TrainJob ? body : in.getBody(String.class);
                return TrainJobDocument.toRequest(TrainJobDocument.read(document));
            default:
                if (!TrainJobDocument.looksLikeTrainJob(body)) {
                    return new TrainRequest();
                }
                // an output of this component is never an input by accident: the job an earlier step answered with
                // (train, wait, get, an event) is that step's result, not what the caller asks of this one
                TrainJob job = TrainJobDocument.read(body);
                return TrainJobHeaders.answeredEarlier(exchange, job)
                        ? new TrainRequest()
                        : TrainJobDocument.toRequest(job);
        }
    }

    /** The headers' layer: every train field can be set per message, under its header. */
    static TrainRequest fromHeaders(Exchange exchange) {
        Message in = exchange.getMessage();
        TrainRequest request = new TrainRequest();
        for (TrainField field : TrainField.values()) {
            String header = KubeflowTrainerConstants.header(field);
            Object value = in.getHeader(header);
            if (value != null && TrainJobHeaders.callersHeader(in, header)) {
                field.apply(request, headerValue(exchange, field, header, value), header);
            }
        }
        return request;
    }

    /**
     * A header's value as its field's kind: text from any scalar, numbers range-checked (never rounded or wrapped),
     * lists of scalars; a list or map where text is wanted is refused.
     */
    private static Object headerValue(Exchange exchange, TrainField field, String header, Object value) {
        return switch (field.kind()) {
            case TEXT -> scalar(header, value);
            case WORDS -> words(header, value);
            case LIST -> {
                List<String> items = items(header, value);
                yield items != null ? items : commaList(scalar(header, value));
            }
            case MAP -> map(header, value);
            case INTEGER -> (int) wholeNumber(exchange, header, value, Integer.MIN_VALUE, Integer.MAX_VALUE);
            case LONG -> wholeNumber(exchange, header, value, Long.MIN_VALUE, Long.MAX_VALUE);
            case DECIMAL -> FieldValues.decimal(value instanceof Number ? value : scalar(header, value), header);
            default -> typed(exchange, header, value, field.kind().javaType());
        };
    }

    /**
     * A whole number from a number or text, by the rule endpoint options follow too; another type as Camel turns it
     * into text.
     */
    private static long wholeNumber(Exchange exchange, String header, Object value, long min, long max) {
        return FieldValues.wholeNumberOrDigits(
                value instanceof Number || value instanceof String
                        ? value
                        : typed(exchange, header, value, String.class),
                header,
                min,
                max);
    }

    private static String scalar(String header, Object value) {
        if (value == null) {
            throw new InvalidOptionException(header, "an item is null; give each item as text");
        }
        if (value instanceof Map
                || value instanceof Collection
                || value.getClass().isArray()) {
            throw new InvalidOptionException(
                    header,
                    "a " + value.getClass().getSimpleName() + " was given where text"
                            + " is wanted; set the header to a String");
        }
        return value.toString();
    }

    /**
     * The idempotency key: the header, else the endpoint's expression, else one derived from the identity of the event
     * the message carries (Kafka record, S3 object version, file version), else from the exchange id, which Camel
     * keeps across redeliveries of one exchange. A derived key belongs to one train step: a later train step of the
     * same exchange (another route node) derives its own, so two steps never share a job; the key a step wrote to the
     * header is not taken by the next as the caller's.
     */
    static String idempotencyKey(Exchange exchange, Expression configured) {
        Message in = exchange.getMessage();
        String key =
                TrainJobHeaders.callersHeader(in, IDEMPOTENCY_KEY) ? in.getHeader(IDEMPOTENCY_KEY, String.class) : null;
        if (key == null && configured != null) {
            key = configured.evaluate(exchange, String.class);
            if (key == null || key.isBlank()) {
                throw new InvalidOptionException(
                        "idempotencyKey",
                        "the expression gave no value for this" + " message; make it always yield a key, or set the "
                                + IDEMPOTENCY_KEY + " header");
            }
        }
        if (key != null) {
            return key;
        }
        return derivedKey(exchange) + stepSuffix(exchange);
    }

    private static String derivedKey(Exchange exchange) {
        Message in = exchange.getMessage();
        if (in.getHeader(KAFKA_TOPIC) != null && in.getHeader(KAFKA_OFFSET) != null) {
            return "kafka:" + in.getHeader(KAFKA_TOPIC) + "/" + in.getHeader(KAFKA_PARTITION) + "/"
                    + in.getHeader(KAFKA_OFFSET);
        }
        if (in.getHeader(S3_BUCKET) != null && in.getHeader(S3_KEY) != null) {
            return "s3:" + in.getHeader(S3_BUCKET) + "/" + in.getHeader(S3_KEY) + "@" + in.getHeader(S3_ETAG);
        }
        if (in.getHeader(FILE_PATH) != null) {
            return "file:" + in.getHeader(FILE_PATH) + "@" + in.getHeader(FILE_MODIFIED);
        }
        return "exchange:" + exchange.getExchangeId();
    }

    /**
     * Nothing for the exchange's first train step (so its keys stay what they were), {@code #<node id>} for any other:
     * a redelivery retries the same node, so it derives the same key again.
     */
    private static String stepSuffix(Exchange exchange) {
        String node = exchange.getExchangeExtension().getHistoryNodeId();
        String first = exchange.getProperty(FIRST_TRAIN_STEP_PROPERTY, String.class);
        if (first == null) {
            exchange.setProperty(FIRST_TRAIN_STEP_PROPERTY, String.valueOf(node));
            return "";
        }
        return first.equals(String.valueOf(node)) ? "" : "#" + node;
    }

    private static Object typed(Exchange exchange, String header, Object value, Class<?> type) {
        try {
            return exchange.getContext().getTypeConverter().mandatoryConvertTo(type, exchange, value);
        } catch (NoTypeConversionAvailableException | RuntimeException e) {
            throw new InvalidOptionException(
                    header,
                    "'" + value + "' (" + value.getClass().getSimpleName() + ") is not a " + type.getSimpleName()
                            + "; set the header to a " + type.getSimpleName(),
                    e);
        }
    }

    /** A List header is taken word for word; a String header is split like a shell would. */
    private static List<String> words(String header, Object value) {
        List<String> items = items(header, value);
        return items != null ? items : Shell.split(header, scalar(header, value));
    }

    /** A list header's items, each text as {@link #scalar} takes it, when it is a collection or an object array. */
    private static List<String> items(String header, Object value) {
        Stream<?> items = value instanceof Collection<?> collection
                ? collection.stream()
                : value instanceof Object[] array ? Arrays.stream(array) : null;
        return items == null ? null : items.map(item -> scalar(header, item)).toList();
    }

    private static List<String> commaList(String text) {
        List<String> items = new ArrayList<>();
        Arrays.stream(text.split(","))
                .map(String::trim)
                .filter(s -> !s.isEmpty())
                .forEach(items::add);
        return items;
    }

    private static Map<?, ?> map(String header, Object value) {
        if (!(value instanceof Map<?, ?> map)) {
            throw new InvalidOptionException(
                    header,
                    "a " + value.getClass().getSimpleName() + " was given;" + " set the header to a java.util.Map");
        }
        return map;
    }
}
