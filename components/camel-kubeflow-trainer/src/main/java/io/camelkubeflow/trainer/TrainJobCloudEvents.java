package io.camelkubeflow.trainer;

import io.camelkubeflow.trainer.api.TrainJob;
import io.camelkubeflow.trainer.api.TrainJobPhase;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import org.apache.camel.Exchange;
import org.apache.camel.InvalidPayloadRuntimeException;
import org.apache.camel.Message;
import org.apache.camel.cloudevents.CloudEvent;
import org.apache.camel.spi.DataType;
import org.apache.camel.spi.DataTypeTransformer;
import org.apache.camel.spi.Transformer;

/**
 * A message carrying a TrainJob (an event of {@code kubeflow-trainer:events}, the result of {@code train} or
 * {@code wait}) as a CloudEvent: the TrainJob as JSON, and the event's attributes in Camel's CloudEvent headers, which
 * Camel's {@code http:application-cloudevents} (Knative, HTTP: binary mode) and {@code application-cloudevents+json}
 * (structured mode) data types turn into a CloudEvent on the wire.
 *
 * <p>Attributes: {@code type} {@value #TYPE_PREFIX}{@code <event>} (created, running, suspended, complete, failed,
 * deleted, progress; else the job's phase); {@code source} the TrainJobs of the job's namespace as an API path;
 * {@code subject} the job's name; {@code id} the job's uid, resourceVersion and event, so the same change delivered
 * twice has one id (receivers can drop repeats); {@code time} when the message was made; {@code datacontenttype}
 * application/json.
 */
@DataTypeTransformer(
        name = TrainJobCloudEvents.DATA_TYPE,
        description = "A TrainJob message as a CloudEvent: the TrainJob as JSON, its event's type, source,"
                + " subject and id in Camel's CloudEvent headers")
public class TrainJobCloudEvents extends Transformer {
    public static final String DATA_TYPE = "kubeflow-trainer:application-cloudevents";
    public static final String TYPE_PREFIX = "io.camelkubeflow.trainer.trainjob.";
    public static final String SPEC_VERSION = "1.0";
    /** Camel's header of each attribute {@link #attributes} gives. */
    private static final Map<String, String> HEADERS = Map.of(
            "type",
            CloudEvent.CAMEL_CLOUD_EVENT_TYPE,
            "source",
            CloudEvent.CAMEL_CLOUD_EVENT_SOURCE,
            "subject",
            CloudEvent.CAMEL_CLOUD_EVENT_SUBJECT,
            "id",
            CloudEvent.CAMEL_CLOUD_EVENT_ID,
            "time",
            CloudEvent.CAMEL_CLOUD_EVENT_TIME);
    /** One mapper for every message: the TrainJob model's JSON as fabric8 writes it to the API server. */
    private static final KubernetesSerialization JSON = new KubernetesSerialization();

    @Override
    public void transform(Message message, DataType from, DataType to) {
        TrainJob job = message.getBody(TrainJob.class);
        if (job == null || job.getMetadata() == null) {
            throw new InvalidPayloadRuntimeException(message.getExchange(), TrainJob.class);
        }
        setCamelHeaders(message, job, message.getHeader(KubeflowTrainerConstants.EVENT, String.class));
        message.setBody(JSON.asJson(job));
    }

    /**
     * Makes a message whose data is JSON about a TrainJob's change a CloudEvent in Camel's terms: its attributes (see
     * {@link #attributes}) in Camel's CloudEvent headers, and the JSON content type.
     */
    public static void setCamelHeaders(Message message, TrainJob job, String event) {
        message.setHeader(CloudEvent.CAMEL_CLOUD_EVENT_VERSION, SPEC_VERSION);
        attributes(job, event).forEach((attribute, value) -> message.setHeader(HEADERS.get(attribute), value));
        message.setHeader(CloudEvent.CAMEL_CLOUD_EVENT_DATA_CONTENT_TYPE, "application/json");
        message.setHeader(Exchange.CONTENT_TYPE, "application/json");
    }

    /**
     * The CloudEvent attributes of a message about a TrainJob, by their CloudEvents names (type, source, subject, id,
     * time): the same for any message about the same change of the job, whatever its data and binding (the routes app's
     * Kafka results carry them as {@code ce_} headers).
     *
     * @param event what happened (Created, Complete, ...); null: the job's phase
     */
    public static Map<String, String> attributes(TrainJob job, String event) {
        String what = (event != null ? event : TrainJobPhase.of(job).displayName()).toLowerCase(Locale.ROOT);
        Map<String, String> attributes = new LinkedHashMap<>();
        attributes.put("type", TYPE_PREFIX + what);
        attributes.put(
                "source",
                "/apis/trainer.kubeflow.org/v1alpha1/namespaces/"
                        + job.getMetadata().getNamespace() + "/trainjobs");
        attributes.put("subject", job.getMetadata().getName());
        attributes.put(
                "id", job.getMetadata().getUid() + "/" + job.getMetadata().getResourceVersion() + "/" + what);
        attributes.put("time", Instant.now().toString());
        return attributes;
    }
}
