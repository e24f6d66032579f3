package io.camelkubeflow.trainer.routes;

import static io.camelkubeflow.trainer.KubeflowTrainerConstants.*;

import io.camelkubeflow.trainer.TrainJobCloudEvents;
import io.camelkubeflow.trainer.access.AccessDeniedException;
import io.camelkubeflow.trainer.api.TrainJob;
import io.camelkubeflow.trainer.job.PolicyViolationException;
import io.camelkubeflow.trainer.job.TrainJobCapacityException;
import io.camelkubeflow.trainer.job.TrainJobConflictException;
import io.camelkubeflow.trainer.job.TrainJobMetadata;
import io.camelkubeflow.trainer.logs.LogGoneException;
import io.camelkubeflow.trainer.support.InvalidOptionException;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.camel.Exchange;
import org.apache.camel.LoggingLevel;
import org.apache.camel.Message;
import org.apache.camel.builder.RouteBuilder;
import org.apache.camel.component.kafka.KafkaConstants;
import org.apache.camel.component.kafka.consumer.KafkaManualCommit;
import org.apache.camel.component.kafka.serde.ToStringKafkaHeaderDeserializer;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.eclipse.microprofile.config.Config;
import org.eclipse.microprofile.config.ConfigProvider;

/**
 * Kafka in, Kafka out. {@code kafka-train} turns each JSON train request on the request topic into a TrainJob and
 * commits the record's offset only once the TrainJob exists; a redelivered record adopts the same job (its key is
 * topic/partition/offset, or the request's idempotencyKey). {@code kafka-results} reports every such job (and every
 * job an S3 upload started) when it ends, Complete or Failed, from the TrainJob events rather than from a waiting
 * thread: the result topic gets name, status, duration, log tail (none when the pods were gone: a failed job's are) and
 * the metrics the script printed ("METRIC
 * name=value ..." lines), as CloudEvents (ce_ headers). Requests that can never become a TrainJob go to the
 * dead-letter topic with the reason: one shape per topic (contracts/*.schema.json, described in
 * META-INF/asyncapi.yaml). With trainer.kafka.max-in-flight, a request beyond the cap waits (uncommitted)
 * until a Kafka-started job ends; with trainer.kafka.skip-if-running, a request whose runKey has a job running is
 * answered by that job instead of a new one. With trainer.kafka.caller-user, each request is authorized as that user
 * too (see {@link EntryPointCaller}); a request it may not make is a dead letter naming what was denied. Both routes
 * exist only with trainer.kafka.enabled=true.
 */
@ApplicationScoped
public class KafkaRoutes extends RouteBuilder {
    /**
     * Which entry point of the app made a job, so the result route reports only Kafka's and S3's; the app's own
     * domain, as camelkubeflow.io/* is the component's.
     */
    static final String SOURCE_LABEL = "routes." + TrainJobMetadata.DOMAIN + "/source";

    private static final Pattern METRIC = Pattern.compile("(?:^|\\s)([A-Za-z_][\\w.\\-/]*)=(\\S+)");

    @Inject
    TrainJobStatusView statusView;

    @Override
    public void configure() {
        // the config as Camel Quarkus also has it at build time, when it runs configure() without injection to generate
        // the OpenAPI document
        Config config = ConfigProvider.getConfig();
        if (!config.getValue("trainer.kafka.enabled", Boolean.class)) {
            // not even built: an idle app starts faster without them (and without the Kafka client's classes)
            return;
        }
        EntryPointCaller caller = EntryPointCaller.of(config, "kafka");
        // record headers as text: Camel's tracing continues a request's trace only from a String traceparent header;
        // the value as bytes, for TrainRequestMessage to read as strict UTF-8 (a String deserializer would have turned
        // bytes that are not UTF-8 into replacement characters before any check)
        from("kafka:{{trainer.kafka.request-topic}}?groupId={{trainer.kafka.group-id}}&autoOffsetReset=earliest"
                        + "&autoCommitEnable=false&allowManualCommit=true&breakOnFirstError=true"
                        + "&headerDeserializer=#class:" + ToStringKafkaHeaderDeserializer.class.getName()
                        + "&valueDeserializer=" + ByteArrayDeserializer.class.getName())
                .routeId("kafka-train")
                // a request that can never succeed is parked with its reason, and its offset committed
                .onException(
                        InvalidOptionException.class,
                        TrainJobConflictException.class,
                        PolicyViolationException.class,
                        AccessDeniedException.class)
                .handled(true)
                .bean("refusalDetails", "nameAsWritten")
                .process(this::deadLetterForRequest)
                .marshal()
                .json()
                .to("kafka:{{trainer.kafka.dead-letter-topic}}")
                .process(KafkaRoutes::commit)
                .end()
                // at the in-flight cap the record waits (its offset uncommitted) until a job of the group ends
                .onException(TrainJobCapacityException.class)
                .maximumRedeliveries(-1)
                .redeliveryDelay("{{trainer.kafka.capacity-retry-millis}}")
                .retryAttemptedLogLevel(LoggingLevel.INFO)
                .end()
                .setProperty("request", body())
                .removeHeaders("CamelKubeflowTrainer*")
                // as an HTTP body is read: one JSON object of whole UTF-8 characters, no field twice
                .bean("trainRequestMessage", "read")
                .process(caller)
                .to("kubeflow-trainer:train?runtime={{trainer.runtime}}&namespace={{trainer.namespace}}&bodyType=ignore"
                        + "&labels." + SOURCE_LABEL
                        + "=kafka&inFlightGroup=kafka&maxInFlight={{?trainer.kafka.max-in-flight}}"
                        + "&skipIfRunning={{trainer.kafka.skip-if-running}}&idempotencyScope=kafka&policy=#trainRequestPolicy"
                        + caller.authorizeOption())
                .log(
                        "TrainJob ${header.CamelKubeflowTrainerNamespace}/${header.CamelKubeflowTrainerJobName} for"
                                + " ${header.CamelKubeflowTrainerIdempotencyKey} (adopted=${header.CamelKubeflowTrainerAdopted})")
                .process(KafkaRoutes::commit);

        // jobs started from S3 uploads are reported on Kafka too, when Kafka is on
        // handledMark: a job that ends while the app is down is reported when it starts again, and only once
        // on one replica at a time (ClusterServices), so each result is published once
        from("master:kafka-results:kubeflow-trainer:events?namespace={{trainer.namespace}}&labelSelector="
                        + SOURCE_LABEL
                        + " in (kafka,s3)"
                        + "&handledMark=kafka-results")
                .routeId("kafka-results")
                // Camel's master consumer stops its route's processors when it stops, without waiting for the
                // exchanges in flight (a result halfway to Kafka): the work is in a direct route, whose exchanges a
                // graceful shutdown waits for; and this route has no error handler, which would be stopped too and
                // fail the exchange coming back (docs/component.md)
                .errorHandler(noErrorHandler())
                .to("direct:kafka-result");
        from("direct:kafka-result")
                .routeId("kafka-result")
                .filter(header(EVENT).in("Complete", "Failed"))
                .setProperty("trainJob", body())
                .doTry()
                .to("kubeflow-trainer:logs?namespace={{trainer.namespace}}"
                        + "&tailLines={{trainer.kafka.log-tail-lines}}")
                // a failed job's pods are deleted by the Job controller, their logs with them, before it says Failed:
                // its result goes out without a log tail
                .doCatch(LogGoneException.class)
                .log(
                        LoggingLevel.INFO,
                        "No log tail for TrainJob ${header.CamelKubeflowTrainerJobName}:" + " ${exception.message}")
                .setBody(constant(null))
                .end()
                .process(this::result)
                .setHeader(KafkaConstants.KEY, header(JOB_NAME))
                .marshal()
                .json()
                .to("kafka:{{trainer.kafka.result-topic}}");
    }

    private void deadLetterForRequest(Exchange exchange) {
        Exception cause = exchange.getProperty(Exchange.EXCEPTION_CAUGHT, Exception.class);
        Map<String, Object> letter = new LinkedHashMap<>();
        letter.put("error", cause.getMessage());
        RefusalDetails.addTo(letter, cause);
        letter.put("topic", exchange.getMessage().getHeader(KafkaConstants.TOPIC));
        letter.put("partition", exchange.getMessage().getHeader(KafkaConstants.PARTITION));
        letter.put("offset", exchange.getMessage().getHeader(KafkaConstants.OFFSET));
        // as it came, but text: a byte that is not UTF-8 is shown as U+FFFD (the error says where it was)
        byte[] request = exchange.getProperty("request", byte[].class);
        letter.put("request", request == null ? null : new String(request, StandardCharsets.UTF_8));
        exchange.getMessage()
                .setHeader(
                        KafkaConstants.KEY, String.valueOf(exchange.getMessage().getHeader(KafkaConstants.OFFSET)));
        exchange.getMessage().setBody(letter);
    }

    /**
     * A job's result (contracts/train-result.schema.json), Complete or Failed alike, as a CloudEvent in Kafka's binary
     * mode: the result as the record's JSON value, the event's attributes as {@code ce_} headers (the same type, source,
     * subject and id the Kamelets' and the component's CloudEvents give the same change).
     */
    private void result(Exchange exchange) {
        TrainJob job = exchange.getProperty("trainJob", TrainJob.class);
        String log = exchange.getMessage().getBody(String.class);
        Map<String, Object> result = new LinkedHashMap<>(statusView.summary(job));
        Map<String, String> annotations = job.getMetadata().getAnnotations();
        result.put(
                "request", annotations == null ? null : annotations.get(TrainJobMetadata.IDEMPOTENCY_KEY_ANNOTATION));
        result.put("metrics", metrics(log));
        result.put("logTail", log);
        Message message = exchange.getMessage();
        message.setHeader("ce_specversion", TrainJobCloudEvents.SPEC_VERSION);
        TrainJobCloudEvents.attributes(job, message.getHeader(EVENT, String.class))
                .forEach((attribute, value) -> message.setHeader("ce_" + attribute, value));
        message.setHeader("content-type", "application/json");
        message.setBody(result);
    }

    /** The last value of each name=value pair on the log's "METRIC ..." lines. */
    static Map<String, String> metrics(String log) {
        Map<String, String> metrics = new LinkedHashMap<>();
        for (String line : log == null ? List.<String>of() : List.of(log.split("\n"))) {
            if (line.startsWith("METRIC ")) {
                Matcher pair = METRIC.matcher(line.substring("METRIC ".length()));
                while (pair.find()) {
                    metrics.put(pair.group(1), pair.group(2));
                }
            }
        }
        return metrics;
    }

    private static void commit(Exchange exchange) {
        KafkaManualCommit manual =
                exchange.getMessage().getHeader(KafkaConstants.MANUAL_COMMIT, KafkaManualCommit.class);
        if (manual != null) {
            manual.commit();
        }
    }
}
