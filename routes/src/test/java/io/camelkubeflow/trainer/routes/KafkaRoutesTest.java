package io.camelkubeflow.trainer.routes;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.camelkubeflow.trainer.api.TrainJob;
import io.camelkubeflow.trainer.api.TrainJobPhase;
import io.camelkubeflow.trainer.quarkus.LocalTrainerSandbox;
import io.camelkubeflow.trainer.testing.ReliabilityFigures;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.NonDeletingOperation;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.IntPredicate;
import java.util.function.Predicate;
import org.apache.camel.CamelContext;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;

/**
 * Kafka -> TrainJob -> result or dead-letter topic, against a real in-process broker and the sandbox (which runs the
 * staged scripts with the local python3).
 */
@QuarkusTest
@QuarkusTestResource(KafkaBrokerResource.class)
class KafkaRoutesTest {
    static final ObjectMapper JSON = new ObjectMapper();

    @Inject
    KubernetesClient client;

    @Inject
    CamelContext camel;

    @Inject
    LocalTrainerSandbox localSandbox;

    @Test
    void requestsBecomeTrainJobsWhoseOutcomesArePublished() throws Exception {
        String good = "{\"script\": \"print('training')\\nprint('METRIC accuracy=0.91 loss=0.2')\\n\","
                + " \"idempotencyKey\": \"order-6\", \"labels\": {\"team\": \"vision\"}}";
        String failing = "{\"script\": \"raise SystemExit(4)\\n\"}";
        String invalid = "{\"script\": \"print(1)\", \"cpu\": \"2 cores\"}";
        String notJson = "{\"script\": ";
        String beyondPolicy = "{\"pythonFile\": \"/app/t.py\", \"image\": \"attacker.example.com/miner:latest\"}";
        String beyondRights = "{\"pythonFile\": \"/app/t.py\", \"namespace\": \"team-b\"}";
        send(good);
        send(beyondRights);
        send(good);
        send(failing);
        send(invalid);
        send(beyondPolicy);
        long notJsonOffset = send(notJson);

        // other tests' S3-started jobs are reported on the same topic: pick this request's result
        Map<?, ?> result = awaitMatching("trainjob-results", r -> "order-6".equals(r.get("request")));
        assertEquals("Complete", result.get("status"), result.toString());
        assertEquals(Map.of("accuracy", "0.91", "loss", "0.2"), result.get("metrics"));
        assertTrue(((String) result.get("logTail")).contains("training\n"), result.toString());
        assertEquals("order-6", result.get("request"));
        assertTrue(result.get("durationMillis") instanceof Number, result.toString());

        awaitMatching("trainjob-dead-letters", l -> "cpu".equals(l.get("field")));
        // the request policy holds on Kafka as on HTTP: refused naming the rule, parked, nothing written
        awaitMatching("trainjob-dead-letters", l -> "imageOverride".equals(l.get("rule")));
        assertTrue(client.resources(TrainJob.class).inAnyNamespace().list().getItems().stream()
                .noneMatch(j -> "attacker.example.com/miner:latest"
                        .equals(j.getSpec().trainer().image())));
        // the Kafka routes' configured identity may not train in team-b: refused as that identity, nothing written
        Map<?, ?> denied = awaitMatching("trainjob-dead-letters", l -> l.get("denied") != null);
        assertEquals(
                "create trainjobs.trainer.kubeflow.org in namespace team-b", denied.get("denied"), denied.toString());
        assertTrue(
                String.valueOf(denied.get("error"))
                        .startsWith("caller 'system:serviceaccount:default:kafka-producer' (groups [kafka-producers])"),
                denied.toString());
        assertTrue(client.resources(TrainJob.class)
                .inNamespace("team-b")
                .list()
                .getItems()
                .isEmpty());
        // a failed job is a result like any other (its status says so), not a dead letter
        Map<?, ?> failedResult = awaitMatching(
                "trainjob-results", r -> "Failed".equals(r.get("status")) && "FailedJobs".equals(r.get("reason")));
        // its pods, and their log, went at the Job's backoff limit: the result says so with no log tail
        assertTrue(failedResult.containsKey("logTail") && failedResult.get("logTail") == null, failedResult.toString());
        awaitMatching(
                "trainjob-dead-letters",
                l -> notJson.equals(l.get("request"))
                        && !String.valueOf(l.get("error")).isBlank()
                        && Long.valueOf(notJsonOffset).equals(((Number) l.get("offset")).longValue()));

        // the same request twice (same idempotencyKey) made one TrainJob
        List<TrainJob> fromOrder7 = client.resources(TrainJob.class).inNamespace("default").list().getItems().stream()
                .filter(j -> "order-6".equals(j.getMetadata().getAnnotations().get("camelkubeflow.io/idempotency-key")))
                .toList();
        assertEquals(1, fromOrder7.size());

        // one shape per topic, as contracts/ says: every result a CloudEvent (binary mode) whose attributes match it
        for (String request : List.of(good, failing, beyondPolicy, beyondRights)) {
            Contracts.assertHolds(Contracts.TRAIN_REQUEST, request);
        }
        List<ConsumerRecord<String, String>> results = allRecords("trainjob-results");
        assertTrue(results.size() >= 2, "the Complete and the Failed job: " + results.size());
        for (ConsumerRecord<String, String> record : results) {
            Contracts.assertHolds(Contracts.TRAIN_RESULT, record.value());
            Map<?, ?> value = JSON.readValue(record.value(), Map.class);
            assertEquals(value.get("name"), record.key());
            assertEquals("1.0", header(record, "ce_specversion"));
            assertEquals(
                    "io.camelkubeflow.trainer.trainjob."
                            + value.get("status").toString().toLowerCase(),
                    header(record, "ce_type"));
            assertEquals(
                    "/apis/trainer.kubeflow.org/v1alpha1/namespaces/" + value.get("namespace") + "/trainjobs",
                    header(record, "ce_source"));
            assertEquals(value.get("name"), header(record, "ce_subject"));
            assertTrue(header(record, "ce_id").startsWith(value.get("uid") + "/"), header(record, "ce_id"));
            assertEquals("application/json", header(record, "content-type"));
        }
        for (ConsumerRecord<String, String> record : allRecords("trainjob-dead-letters")) {
            Contracts.assertHolds(Contracts.DEAD_LETTER, record.value());
        }

        // every request's offset was committed (the invalid ones after their dead letter)
        try (Admin admin = Admin.create(
                Map.<String, Object>of("bootstrap.servers", KafkaBrokerResource.broker.bootstrapServers()))) {
            Map<TopicPartition, OffsetAndMetadata> committed = admin.listConsumerGroupOffsets("camel-kubeflow-trainer")
                    .partitionsToOffsetAndMetadata()
                    .get();
            assertEquals(
                    notJsonOffset + 1,
                    committed.get(new TopicPartition("trainjob-requests", 0)).offset());
        }
    }

    /**
     * A record is read as an HTTP body is (TrainRequestMessage): one JSON object of whole UTF-8 characters with no field
     * twice. A duplicate field, a byte that is not UTF-8, content after the object, half of a surrogate pair or no
     * value at all is a dead letter naming the field at fault, and no TrainJob: each of them carries an idempotencyKey
     * a lenient reader would have made a job with. A valid record after them still trains.
     */
    @Test
    void aRecordThatIsNotOneStrictJsonObjectIsADeadLetterAndCreatesNoTrainJob() throws Exception {
        String run = "strict-" + UUID.randomUUID().toString().substring(0, 8);
        record Refused(String field, byte[] value) {}
        ByteArrayOutputStream notUtf8 = new ByteArrayOutputStream();
        notUtf8.writeBytes(utf8("{\"script\": \"print(1)\", \"idempotencyKey\": \"" + run + "-utf8\","
                + " \"labels\": {\"team\": \"vi"));
        notUtf8.write(0xff);
        notUtf8.writeBytes(utf8("sion\"}}"));
        List<Refused> refusals = List.of(
                new Refused(
                        "script",
                        utf8("{\"script\": \"print(1)\", \"idempotencyKey\": \"" + run + "-dup\","
                                + " \"script\": \"print(2)\"}")),
                new Refused(
                        "labels.team",
                        utf8("{\"script\": \"print(1)\", \"idempotencyKey\": \"" + run
                                + "-dup-label\", \"labels\": {\"team\": \"a\", \"team\": \"b\"}}")),
                new Refused("body", notUtf8.toByteArray()),
                new Refused(
                        "body",
                        utf8("{\"script\": \"print(1)\", \"idempotencyKey\": \"" + run
                                + "-trailing\"} {\"script\": \"print(2)\"}")),
                new Refused(
                        "annotations.note",
                        utf8("{\"script\": \"print(1)\", \"idempotencyKey\": \"" + run
                                + "-surrogate\", \"annotations\": {\"note\": \"\\ud800\"}}")),
                new Refused("body", null));
        long since = localSandbox.sandbox().requestCount();
        Map<Long, String> fieldOfOffset = new HashMap<>();
        for (Refused refused : refusals) {
            fieldOfOffset.put(sendBytes(refused.value()), refused.field());
        }
        send("{\"script\": \"print(1)\", \"idempotencyKey\": \"" + run + "-valid\"}");
        Map<?, ?> trained = awaitMatching("trainjob-results", r -> (run + "-valid").equals(r.get("request")));
        assertEquals("Complete", trained.get("status"), trained.toString());

        // one partition, read in order: every refused record was handled before the valid one trained
        Map<Long, String> fieldOfLetter = new HashMap<>();
        for (ConsumerRecord<String, String> record : allRecords("trainjob-dead-letters")) {
            Map<?, ?> letter = JSON.readValue(record.value(), Map.class);
            long offset = ((Number) letter.get("offset")).longValue();
            if (fieldOfOffset.containsKey(offset)) {
                Contracts.assertHolds(Contracts.DEAD_LETTER, record.value());
                assertTrue(!String.valueOf(letter.get("error")).isBlank(), record.value());
                fieldOfLetter.put(offset, (String) letter.get("field"));
            }
        }
        assertEquals(fieldOfOffset, fieldOfLetter, "the dead letters and the fields they name");
        // at the API server: one TrainJob was created since the records were sent, the valid record's
        assertEquals(
                1,
                localSandbox.sandbox().requestsSince(since).stream()
                        .filter(r -> "POST".equals(r.getMethod()) && r.getPath().endsWith("/trainjobs"))
                        .count());
        assertEquals(
                List.of(run + "-valid"),
                client.resources(TrainJob.class).inAnyNamespace().list().getItems().stream()
                        .map(j -> j.getMetadata().getAnnotations())
                        .map(annotations ->
                                annotations == null ? null : annotations.get("camelkubeflow.io/idempotency-key"))
                        .filter(key -> key != null && key.startsWith(run))
                        .toList());
    }

    private static byte[] utf8(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    /** Sends one record of these bytes (null: a record with no value); answers its offset. */
    private static long sendBytes(byte[] value) throws Exception {
        try (KafkaProducer<String, byte[]> producer = new KafkaProducer<>(
                Map.<String, Object>of("bootstrap.servers", KafkaBrokerResource.broker.bootstrapServers()),
                new StringSerializer(),
                new ByteArraySerializer())) {
            return producer.send(new ProducerRecord<>("trainjob-requests", value))
                    .get()
                    .offset();
        }
    }

    @Test
    void aConsumerRestartedMidBatchThatIsHandedItsRecordsAgainAdoptsTheirJobs() throws Exception {
        String request = "{\"pythonFile\": \"/app/train.py\", \"labels\": {\"batch\": \"restart\"}}";
        List<Long> offsets = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            offsets.add(send(request));
        }
        awaitBatchJobs(count -> count >= 3);
        camel.getRouteController().stopRoute("kafka-train");
        int beforeRestart = batchJobs().size();

        // as after a crash before the commits, or a rebalance: the group is handed every record of the batch again
        TopicPartition partition = new TopicPartition("trainjob-requests", 0);
        try (Admin admin = Admin.create(
                Map.<String, Object>of("bootstrap.servers", KafkaBrokerResource.broker.bootstrapServers()))) {
            admin.alterConsumerGroupOffsets(
                            "camel-kubeflow-trainer", Map.of(partition, new OffsetAndMetadata(offsets.get(0))))
                    .all()
                    .get();
        }
        camel.getRouteController().startRoute("kafka-train");
        for (int i = 0; i < 10; i++) {
            offsets.add(send(request));
        }
        try (Admin admin = Admin.create(
                Map.<String, Object>of("bootstrap.servers", KafkaBrokerResource.broker.bootstrapServers()))) {
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            long committed = -1;
            while (committed <= offsets.get(offsets.size() - 1) && System.nanoTime() < deadline) {
                Thread.sleep(200);
                OffsetAndMetadata offset = admin.listConsumerGroupOffsets("camel-kubeflow-trainer")
                        .partitionsToOffsetAndMetadata()
                        .get()
                        .get(partition);
                committed = offset == null ? -1 : offset.offset();
            }
            assertTrue(
                    committed > offsets.get(offsets.size() - 1), "the batch was not consumed: committed " + committed);
        }

        List<TrainJob> jobs = batchJobs();
        List<String> keys = jobs.stream()
                .map(j -> j.getMetadata().getAnnotations().get("camelkubeflow.io/idempotency-key"))
                .sorted()
                .toList();
        List<String> expected = offsets.stream()
                .map(o -> "kafka:trainjob-requests/0/" + o)
                .sorted()
                .toList();
        assertEquals(
                expected,
                keys,
                "one TrainJob per record, none twice (" + beforeRestart + " existed when the route stopped)");
    }

    @Test
    void aJobThatEndsWhileTheResultRouteIsDownIsReportedOnceWhenItIsBack() throws Exception {
        camel.getRouteController().stopRoute("kafka-results");
        String key = "while-down-" + UUID.randomUUID();
        send("{\"pythonFile\": \"/app/train.py\", \"idempotencyKey\": \"" + key + "\"}");
        TrainJob ended = null;
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (ended == null && System.nanoTime() < deadline) {
            Thread.sleep(100);
            ended = client.resources(TrainJob.class).inNamespace("default").list().getItems().stream()
                    .filter(j -> key.equals(j.getMetadata().getAnnotations().get("camelkubeflow.io/idempotency-key")))
                    .filter(j -> TrainJobPhase.of(j).isTerminal())
                    .findFirst()
                    .orElse(null);
        }
        assertTrue(ended != null, "the job did not end");

        camel.getRouteController().startRoute("kafka-results");
        Map<?, ?> result = awaitMatching("trainjob-results", r -> key.equals(r.get("request")));
        assertEquals("Complete", result.get("status"));
        // stopped and started again (as by an app restart): the end is not reported a second time
        camel.getRouteController().stopRoute("kafka-results");
        camel.getRouteController().startRoute("kafka-results");
        // a job sent after the restart ends after the route caught up on the ends it missed: once its result is on
        // the topic, a second report of the first would be there before it
        String marker = "after-restart-" + UUID.randomUUID();
        send("{\"pythonFile\": \"/app/train.py\", \"idempotencyKey\": \"" + marker + "\"}");
        awaitMatching("trainjob-results", r -> marker.equals(r.get("request")));
        long reports = allRecords("trainjob-results").stream()
                .filter(r -> r.value().contains("\"" + key + "\""))
                .count();
        ReliabilityFigures.record(
                "shutdown and restart",
                "a job ended while the"
                        + " result route was stopped: reported " + reports
                        + " time(s) after two restarts (component: ends"
                        + " missed while stopped caught up, a refused end re-emitted, none twice)",
                reports == 1);
        assertEquals(1, reports, "the end was reported " + reports + " times");
    }

    private List<TrainJob> batchJobs() {
        return client.resources(TrainJob.class)
                .inNamespace("default")
                .withLabel("batch", "restart")
                .list()
                .getItems();
    }

    @Test
    void aResultContinuesTheTraceOfItsRequest() throws Exception {
        String traceId = "0af7651916cd43dd8448eb211c80319c";
        ProducerRecord<String, String> request = new ProducerRecord<>(
                "trainjob-requests", "{\"pythonFile\": \"/app/train.py\", \"idempotencyKey\": \"traced-1\"}");
        request.headers()
                .add("traceparent", ("00-" + traceId + "-b7ad6b7169203331-01").getBytes(StandardCharsets.UTF_8));
        send(request);
        awaitMatching("trainjob-results", r -> "traced-1".equals(r.get("request")));
        ConsumerRecord<String, String> result = allRecords("trainjob-results").stream()
                .filter(r -> r.value().contains("\"request\":\"traced-1\""))
                .findFirst()
                .orElseThrow();
        TrainJob job = client.resources(TrainJob.class).inNamespace("default").list().getItems().stream()
                .filter(j ->
                        "traced-1".equals(j.getMetadata().getAnnotations().get("camelkubeflow.io/idempotency-key")))
                .findFirst()
                .orElseThrow();
        assertEquals(
                traceId,
                job.getMetadata()
                        .getAnnotations()
                        .get("camelkubeflow.io/traceparent")
                        .split("-")[1],
                "the job keeps the request's trace");
        // the result's producer span is in the request's trace: created from the request's, hours later if need be
        assertTrue(header(result, "traceparent").startsWith("00-" + traceId + "-"), header(result, "traceparent"));
    }

    @Test
    void noRecordHeaderOfAnyCaseSetsAnOptionOrNamesACaller() throws Exception {
        ProducerRecord<String, String> request = new ProducerRecord<>(
                "trainjob-requests", "{\"pythonFile\": \"/app/train.py\", \"idempotencyKey\": \"record-headers-1\"}");
        for (String[] header : new String[][] {
            {"camelkubeflowtrainerimage", "attacker.example.com/miner:latest"},
            {"CAMELKUBEFLOWTRAINERNAMESPACE", "kube-system"},
            {"CamelKubeflowTrainerCaller", "developer"},
            {"CamelKubeflowTrainerCallerGroups", "system:masters"}
        }) {
            request.headers().add(header[0], header[1].getBytes(StandardCharsets.UTF_8));
        }
        send(request);
        awaitMatching("trainjob-results", r -> "record-headers-1".equals(r.get("request")));
        TrainJob job = client.resources(TrainJob.class).inAnyNamespace().list().getItems().stream()
                .filter(j -> "record-headers-1"
                        .equals(j.getMetadata().getAnnotations().get("camelkubeflow.io/idempotency-key")))
                .findFirst()
                .orElseThrow();
        assertEquals("default", job.getMetadata().getNamespace());
        assertEquals(
                null,
                job.getSpec().trainer() == null ? null : job.getSpec().trainer().image());
    }

    /**
     * The chain docs/sdk-comparison.md describes: a Kafka request names where the model goes (outputUri); its training writes the model there
     * (the S3 server of the tests, signed as S3 clients sign) and prints its metrics; the result names the object's
     * place, the metrics and the digest of the code that made it.
     */
    @Test
    void aRequestsModelLandsInS3AndItsResultNamesWhereWithTheMetricsAndTheCodesDigest() throws Exception {
        String script = String.join(
                "\n",
                "import base64, email.utils, hashlib, hmac, os, urllib.request",
                "bucket, _, prefix = os.environ['OUTPUT_URI'][len('s3://'):].partition('/')",
                "key = prefix + 'model.bin'",
                "date = email.utils.formatdate(usegmt=True)",
                "signed = 'PUT\\n\\napplication/octet-stream\\n' + date + '\\n/' + bucket + '/' + key",
                "signature = base64.b64encode(hmac.new(os.environ['AWS_SECRET_ACCESS_KEY'].encode(), signed.encode(),",
                "    hashlib.sha1).digest()).decode()",
                "urllib.request.urlopen(urllib.request.Request(os.environ['S3_ENDPOINT'] + '/' + bucket + '/' + key,",
                "    data=b'weights of fraud-1', method='PUT', headers={'Date': date,",
                "    'Content-Type': 'application/octet-stream',",
                "    'Authorization': 'AWS ' + os.environ['AWS_ACCESS_KEY_ID'] + ':' + signature}))",
                "print('METRIC auc=0.93')",
                "");
        // the writer's keys reach the pods from a Secret, never through the message or the TrainJob
        client.secrets()
                .inNamespace("default")
                .resource(new SecretBuilder()
                        .withNewMetadata()
                        .withName("s3-writer")
                        .endMetadata()
                        .addToStringData("access-key", S3Server.ACCESS_KEY)
                        .addToStringData("secret-key", S3Server.SECRET_KEY)
                        .build())
                .createOr(NonDeletingOperation::update);
        send(JSON.writeValueAsString(Map.of(
                "script",
                script,
                "idempotencyKey",
                "model-fraud-1",
                "outputUri",
                "s3://training/models/fraud-1/",
                "env",
                Map.of(
                        "S3_ENDPOINT",
                        S3ServerResource.s3.endpoint(),
                        "AWS_ACCESS_KEY_ID",
                        "secretKeyRef:s3-writer/access-key",
                        "AWS_SECRET_ACCESS_KEY",
                        "secretKeyRef:s3-writer/secret-key"))));

        Map<?, ?> result = awaitMatching("trainjob-results", r -> "model-fraud-1".equals(r.get("request")));
        assertEquals("Complete", result.get("status"), result.toString());
        assertEquals("s3://training/models/fraud-1/", result.get("outputUri"));
        assertEquals(Map.of("auc", "0.93"), result.get("metrics"));
        assertTrue(String.valueOf(result.get("codeDigest")).matches("sha256:[0-9a-f]{64}"), result.toString());
        assertEquals(
                "weights of fraud-1", S3ServerResource.s3.get(S3ServerResource.BUCKET, "models/fraud-1/model.bin"));
        Contracts.assertHolds(Contracts.TRAIN_RESULT, JSON.writeValueAsString(result));
    }

    /** A dead letter names the field as the record wrote it, never the component header it became. */
    @Test
    void aDeadLetterNamesTheFieldAsTheRecordWroteIt() throws Exception {
        send("{\"script\": \"print(1)\", \"datasetUri\": \"hf://org/set\","
                + " \"datasetAccessToken\": \"hf_plainTokenValue\"}");
        Map<?, ?> letter = awaitMatching("trainjob-dead-letters", l -> "datasetAccessToken".equals(l.get("field")));
        assertTrue(!String.valueOf(letter.get("error")).contains("CamelKubeflowTrainer"), letter.toString());
        assertTrue(!String.valueOf(letter.get("error")).contains("hf_plainTokenValue"), letter.toString());
    }

    private void awaitBatchJobs(IntPredicate enough) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (!enough.test(batchJobs().size()) && System.nanoTime() < deadline) {
            Thread.sleep(50);
        }
        assertTrue(enough.test(batchJobs().size()), "only " + batchJobs().size() + " TrainJobs of the batch");
    }

    /** Sends one request; answers its offset. */
    /** The docs' Kafka request as printed (the JSON under docs/routes-app.md's Kafka heading) trains and its result is published. */
    @Test
    void theReadmesKafkaRequestTrainsAsPrinted() throws Exception {
        String request = ContractsTest.readmeKafkaRequest();
        Contracts.assertHolds(Contracts.TRAIN_REQUEST, request);
        String key = (String) JSON.readValue(request, Map.class).get("idempotencyKey");
        send(request);
        Map<?, ?> result = awaitMatching("trainjob-results", r -> key.equals(r.get("request")));
        assertEquals("Complete", result.get("status"), result.toString());
        assertEquals(Map.of("accuracy", "0.91", "loss", "0.2"), result.get("metrics"));
    }

    private static long send(String value) throws Exception {
        return send(new ProducerRecord<>("trainjob-requests", value));
    }

    private static long send(ProducerRecord<String, String> request) throws Exception {
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(
                Map.<String, Object>of("bootstrap.servers", KafkaBrokerResource.broker.bootstrapServers()),
                new StringSerializer(),
                new StringSerializer())) {
            return producer.send(request).get().offset();
        }
    }

    private static String header(ConsumerRecord<String, String> record, String name) {
        var header = record.headers().lastHeader(name);
        assertNotNull(header, name + " on " + record.key());
        return new String(header.value(), StandardCharsets.UTF_8);
    }

    static Map<?, ?> awaitMatching(String topic, Predicate<Map<?, ?>> wanted) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (System.nanoTime() < deadline) {
            for (Map<?, ?> value : await(topic, 1)) {
                if (wanted.test(value)) {
                    return value;
                }
            }
            Thread.sleep(200);
        }
        throw new AssertionError("no matching record on " + topic);
    }

    /** Every record on the topic now: read until the topic has been quiet for three polls. */
    static List<ConsumerRecord<String, String>> allRecords(String topic) {
        Map<String, Object> config = Map.of(
                "bootstrap.servers",
                KafkaBrokerResource.broker.bootstrapServers(),
                "group.id",
                "scan-" + UUID.randomUUID(),
                "auto.offset.reset",
                "earliest");
        List<ConsumerRecord<String, String>> records = new ArrayList<>();
        try (KafkaConsumer<String, String> consumer =
                new KafkaConsumer<>(config, new StringDeserializer(), new StringDeserializer())) {
            consumer.subscribe(List.of(topic));
            for (int emptyPolls = 0; emptyPolls < 3; ) {
                var polled = consumer.poll(Duration.ofMillis(500));
                emptyPolls = polled.isEmpty() ? emptyPolls + 1 : 0;
                polled.forEach(records::add);
            }
        }
        return records;
    }

    static List<Map<?, ?>> await(String topic, int count) throws Exception {
        Map<String, Object> config = new HashMap<>();
        config.put("bootstrap.servers", KafkaBrokerResource.broker.bootstrapServers());
        config.put("group.id", "test-reader-" + UUID.randomUUID());
        config.put("auto.offset.reset", "earliest");
        List<Map<?, ?>> values = new ArrayList<>();
        try (KafkaConsumer<String, String> consumer =
                new KafkaConsumer<>(config, new StringDeserializer(), new StringDeserializer())) {
            consumer.subscribe(List.of(topic));
            Instant deadline = Instant.now().plus(Duration.ofSeconds(60));
            while (values.size() < count && Instant.now().isBefore(deadline)) {
                for (ConsumerRecord<String, String> record : consumer.poll(Duration.ofMillis(500))) {
                    values.add(JSON.readValue(record.value(), Map.class));
                }
            }
        }
        assertTrue(values.size() >= count, "expected " + count + " records on " + topic + ", got " + values);
        return values;
    }
}
