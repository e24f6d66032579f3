package io.camelkubeflow.trainer.routes;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.camelkubeflow.trainer.api.TrainJob;
import io.camelkubeflow.trainer.testing.ReliabilityFigures;
import io.camelkubeflow.trainer.testing.SecretScan;
import io.fabric8.kubernetes.api.model.rbac.PolicyRuleBuilder;
import io.fabric8.kubernetes.api.model.rbac.RoleBinding;
import io.fabric8.kubernetes.api.model.rbac.RoleBindingBuilder;
import io.fabric8.kubernetes.api.model.rbac.RoleBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.URI;
import java.net.URL;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.zip.ZipEntry;
import java.util.zip.ZipOutputStream;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** S3 upload -> TrainJob -> report next to the object, against a real in-process S3 server and the sandbox. */
@QuarkusTest
@QuarkusTestResource(S3ServerResource.class)
@QuarkusTestResource(KafkaBrokerResource.class)
class S3RoutesTest {
    static final ObjectMapper JSON = new ObjectMapper();

    @Inject
    KubernetesClient client;

    /** The S3 routes' configured caller may create TrainJobs in default through its group. */
    @BeforeEach
    void allowTheS3CallerToTrain() {
        client.resource(new RoleBuilder()
                        .withNewMetadata()
                        .withName("s3-trains")
                        .withNamespace("default")
                        .endMetadata()
                        .withRules(new PolicyRuleBuilder()
                                .withApiGroups("trainer.kubeflow.org")
                                .withResources("trainjobs")
                                .withVerbs("create")
                                .build())
                        .build())
                .createOr(r -> r.update());
        client.resource(callerBinding()).createOr(r -> r.update());
    }

    private static RoleBinding callerBinding() {
        return new RoleBindingBuilder()
                .withNewMetadata()
                .withName("s3-uploaders")
                .withNamespace("default")
                .endMetadata()
                .addNewSubject()
                .withKind("Group")
                .withName(S3ServerResource.CALLER_GROUP)
                .endSubject()
                .withNewRoleRef()
                .withApiGroup("rbac.authorization.k8s.io")
                .withKind("Role")
                .withName("s3-trains")
                .endRoleRef()
                .build();
    }

    @Test
    void anUploadItsConfiguredCallerMayNotMakeIsReportedAsRefusedAndTrainsNothing() throws Exception {
        client.resource(callerBinding()).delete();
        S3ServerResource.s3.put(S3ServerResource.BUCKET, "scripts/not-allowed.py", "print(1)\n");
        Map<?, ?> refused = awaitReport("scripts/not-allowed.py");
        assertEquals("Refused", refused.get("status"), refused.toString());
        assertEquals(
                "create trainjobs.trainer.kubeflow.org in namespace default",
                refused.get("denied"),
                refused.toString());
        assertTrue(
                String.valueOf(refused.get("message")).startsWith("caller '" + S3ServerResource.CALLER + "'"),
                refused.toString());
        assertTrue(
                client.resources(TrainJob.class).inAnyNamespace().list().getItems().stream()
                        .noneMatch(j -> String.valueOf(
                                        j.getMetadata().getAnnotations().get("camelkubeflow.io/idempotency-key"))
                                .startsWith("s3:training/scripts/not-allowed.py")),
                "a refused upload made a TrainJob");
    }

    @Test
    void uploadedScriptsAndDatasetsRetrainAndAreReportedOn() throws Exception {
        S3Server s3 = S3ServerResource.s3;
        s3.put(S3ServerResource.BUCKET, "scripts/retrain.py", "print('retraining from s3')\nprint('METRIC auc=0.8')\n");
        s3.put(S3ServerResource.BUCKET, "datasets/alpaca-2026-12.parquet", "PAR1...");

        Map<?, ?> scriptReport = awaitReport("scripts/retrain.py");
        assertEquals("Complete", scriptReport.get("status"), scriptReport.toString());
        assertEquals("torchrun", scriptReport.get("launcher"));
        assertEquals("s3://training/scripts/retrain.py", scriptReport.get("object"));

        Map<?, ?> datasetReport = awaitReport("datasets/alpaca-2026-12.parquet");
        assertEquals("Complete", datasetReport.get("status"), datasetReport.toString());
        assertEquals("builtin", datasetReport.get("launcher"));
        TrainJob job = client.resources(TrainJob.class)
                .inNamespace("default")
                .withName((String) datasetReport.get("name"))
                .get();
        assertEquals(
                "s3://training/datasets/alpaca-2026-12.parquet",
                job.getSpec().initializer().dataset().storageUri());
        assertTrue(job.getMetadata()
                .getAnnotations()
                .get("camelkubeflow.io/idempotency-key")
                .startsWith("s3:training/datasets/alpaca-2026-12.parquet@"));

        // an upload the request policy refuses (tests allow 100 000-byte scripts) trains nothing and is reported so
        s3.put(S3ServerResource.BUCKET, "scripts/too-big.py", "#".repeat(150_000) + "\nprint(1)\n");
        Map<?, ?> refused = awaitReport("scripts/too-big.py");
        assertEquals("Refused", refused.get("status"), refused.toString());
        assertEquals("maxScriptBytes", refused.get("rule"), refused.toString());
        assertEquals("s3://training/scripts/too-big.py", refused.get("object"));
        assertTrue(
                client.resources(TrainJob.class).inAnyNamespace().list().getItems().stream()
                        .noneMatch(j -> String.valueOf(
                                        j.getMetadata().getAnnotations().get("camelkubeflow.io/idempotency-key"))
                                .startsWith("s3:training/scripts/too-big.py")),
                "a refused upload made a TrainJob");

        // with Kafka on (as in these tests), the S3-started jobs are reported on the result topic too
        Map<?, ?> onKafka = KafkaRoutesTest.awaitMatching(
                "trainjob-results", r -> scriptReport.get("name").equals(r.get("name")));
        assertEquals(Map.of("auc", "0.8"), onKafka.get("metrics"));

        // the S3 credentials appear nowhere: the app's log, the reports, the Kafka results (values and headers),
        // the TrainJobs
        List<String> scanned = new ArrayList<>(List.of(
                LogCapture.text(), JSON.writeValueAsString(scriptReport), JSON.writeValueAsString(datasetReport)));
        scanned.addAll(recordsWithHeaders("trainjob-results"));
        for (TrainJob written :
                client.resources(TrainJob.class).inNamespace("default").list().getItems()) {
            scanned.add(Serialization.asYaml(written));
        }
        String all = String.join("\n", scanned);
        int hits = SecretScan.occurrences(all, S3Server.ACCESS_KEY, S3Server.SECRET_KEY);
        ReliabilityFigures.record(
                "secrets (S3 routes)",
                "S3 access and secret key scanned for in "
                        + LogCapture.text().length() + " chars of app log, 2 reports, " + (scanned.size() - 3)
                        + " Kafka results and TrainJobs: " + hits + " occurrences",
                hits == 0);
        assertTrue(LogCapture.text().contains("Created TrainJob"), "the log capture works");
        assertEquals(0, hits, "the S3 credentials leaked");
    }

    @Test
    void anUploadedProjectArchiveRunsAsItsManifestSaysAndHostileOnesAreRefused() throws Exception {
        // staging a workspace creates (or patches) a ConfigMap in the caller's name
        client.resource(new RoleBuilder()
                        .withNewMetadata()
                        .withName("s3-trains")
                        .withNamespace("default")
                        .endMetadata()
                        .withRules(
                                new PolicyRuleBuilder()
                                        .withApiGroups("trainer.kubeflow.org")
                                        .withResources("trainjobs")
                                        .withVerbs("create")
                                        .build(),
                                new PolicyRuleBuilder()
                                        .withApiGroups("")
                                        .withResources("configmaps")
                                        .withVerbs("create", "patch")
                                        .build())
                        .build())
                .createOr(r -> r.update());
        S3Server s3 = S3ServerResource.s3;
        s3.put(
                S3ServerResource.BUCKET,
                "workspaces/project.zip",
                zip(Map.of(
                        "train.py",
                        """
                        import sys, yaml
                        from features.scale import scaled
                        with open("config.yaml") as config:
                            settings = yaml.safe_load(config)
                        print("project from s3", scaled(settings["lr"]), sys.argv[1:])
                        print("METRIC auc=0.91")
                        """,
                        "features/__init__.py",
                        "",
                        "features/scale.py",
                        "def scaled(lr):\n    return lr * 10\n",
                        "config.yaml",
                        "lr: 0.5\n",
                        "requirements.txt",
                        "pyyaml\n",
                        WorkspaceUpload.MANIFEST,
                        "pythonFile: train.py\nargs: [\"--epochs\", \"2\"]\nnumNodes: 2\n")));
        Map<?, ?> report = awaitReport("workspaces/project.zip");
        assertEquals("Complete", report.get("status"), report.toString());
        TrainJob job = client.resources(TrainJob.class)
                .inNamespace("default")
                .withName((String) report.get("name"))
                .get();
        assertEquals(2, job.getSpec().trainer().numNodes());
        assertEquals(
                64,
                job.getMetadata()
                        .getAnnotations()
                        .get("camelkubeflow.io/workspace-sha256")
                        .length());
        Map<?, ?> onKafka = KafkaRoutesTest.awaitMatching(
                "trainjob-results", r -> job.getMetadata().getName().equals(r.get("name")));
        assertEquals(Map.of("auc", "0.91"), onKafka.get("metrics"), "the project's own output, from its log");
        String log = client
                .pods()
                .inNamespace("default")
                .withLabel("jobset.sigs.k8s.io/jobset-name", job.getMetadata().getName())
                .list()
                .getItems()
                .stream()
                .map(pod -> client.pods()
                        .inNamespace("default")
                        .withName(pod.getMetadata().getName())
                        .getLog())
                .reduce("", String::concat);
        assertTrue(log.contains("project from s3 5.0 ['--epochs', '2']"), log);

        s3.put(
                S3ServerResource.BUCKET,
                "workspaces/escaping.zip",
                zip(Map.of("../../etc/cron.d/job", "* * * * * x", "train.py", "print(1)")));
        s3.put(
                S3ServerResource.BUCKET,
                "workspaces/fraction.zip",
                zip(Map.of("train.py", "print(1)", WorkspaceUpload.MANIFEST, "pythonFile: train.py\nnumNodes: 1.5\n")));
        s3.put(S3ServerResource.BUCKET, "workspaces/garbage.tar.gz", "not an archive at all");
        s3.put(S3ServerResource.BUCKET, "workspaces/no-entry-point.zip", zip(Map.of("lib.py", "x = 1")));
        Map<?, ?> escaping = awaitReport("workspaces/escaping.zip");
        assertEquals("Refused", escaping.get("status"), escaping.toString());
        assertEquals("workspace", escaping.get("field"), escaping.toString());
        assertTrue(String.valueOf(escaping.get("message")).contains("escapes the workspace root"), escaping.toString());
        Map<?, ?> fraction = awaitReport("workspaces/fraction.zip");
        assertEquals("numNodes", fraction.get("field"), fraction.toString());
        Map<?, ?> notAnArchive = awaitReport("workspaces/garbage.tar.gz");
        assertTrue(
                String.valueOf(notAnArchive.get("message")).contains("not a zip, a tar or a tar.gz"),
                notAnArchive.toString());
        Map<?, ?> noEntryPoint = awaitReport("workspaces/no-entry-point.zip");
        assertTrue(
                String.valueOf(noEntryPoint.get("message")).contains("nothing says what to run"),
                noEntryPoint.toString());
        assertTrue(
                client.resources(TrainJob.class).inAnyNamespace().list().getItems().stream()
                        .noneMatch(j -> String.valueOf(
                                        j.getMetadata().getAnnotations().get("camelkubeflow.io/idempotency-key"))
                                .matches("s3:training/workspaces/(escaping|fraction|garbage|no-entry-point).*")),
                "a refused upload made a TrainJob");
    }

    @Test
    void aProjectTooLargeForAConfigMapIsKeptInS3OnceAndFetchedWithAPresignedUrl() throws Exception {
        byte[] weights = new byte[1_200_000];
        new Random(11).nextBytes(weights);
        byte[] project = zip(Map.of(
                "train.py",
                "import os\nprint('large project', os.path.getsize('weights.bin'))\n",
                "weights.bin",
                weights));
        S3Server s3 = S3ServerResource.s3;
        s3.put(S3ServerResource.BUCKET, "workspaces/large.zip", project);
        s3.put(S3ServerResource.BUCKET, "workspaces/large-again.zip", project);
        List<TrainJob> jobs = new ArrayList<>();
        for (String key : List.of("workspaces/large.zip", "workspaces/large-again.zip")) {
            Map<?, ?> report = awaitReport(key);
            assertEquals("Complete", report.get("status"), report.toString());
            jobs.add(client.resources(TrainJob.class)
                    .inNamespace("default")
                    .withName((String) report.get("name"))
                    .get());
        }
        // the caller may create TrainJobs only (allowTheS3CallerToTrain): nothing is staged in the namespace, the pods
        // fetch the archive from S3
        String digest = jobs.get(0).getMetadata().getAnnotations().get("camelkubeflow.io/workspace-sha256");
        assertEquals(
                List.of("workspace-archives/" + digest + ".tar.gz"),
                s3.keys(S3ServerResource.BUCKET, "workspace-archives/"),
                "stored once, under its digest");
        String url = jobs.get(0).getSpec().trainer().command().stream()
                .filter(w -> w.startsWith("http"))
                .findFirst()
                .orElseThrow();
        assertTrue(url.contains("X-Amz-Signature=") && url.contains("X-Amz-Expires=86400"), url);
        assertTrue(!url.contains(S3Server.SECRET_KEY), "the secret key stays in the app");
        String log = client
                .pods()
                .inNamespace("default")
                .withLabel(
                        "jobset.sigs.k8s.io/jobset-name",
                        jobs.get(0).getMetadata().getName())
                .list()
                .getItems()
                .stream()
                .map(pod -> client.pods()
                        .inNamespace("default")
                        .withName(pod.getMetadata().getName())
                        .getLog())
                .reduce("", String::concat);
        assertTrue(log.contains("large project 1200000"), log);
        // the URL names the access key's id (not a secret, but the S3 routes' scan holds TrainJobs to its absence)
        jobs.forEach(job -> client.resource(job).delete());
    }

    @TestHTTPResource("/trainjobs")
    URL trainjobs;

    @Test
    void anHttpRequestNamesAProjectArchiveInTheAppsBucketOnlyWhereThePolicyAllows() throws Exception {
        S3Server s3 = S3ServerResource.s3;
        s3.put(
                S3ServerResource.BUCKET,
                "projects/churn.zip",
                zip(Map.of("train.py", "import sys\nprint('project named by a request', sys.argv[1:])\n")));
        s3.put(S3ServerResource.BUCKET, "private/other.zip", zip(Map.of("train.py", "print('not yours')\n")));
        HttpClient http = HttpClient.newHttpClient();
        Function<String, HttpResponse<String>> post = body -> {
            try {
                return http.send(
                        HttpRequest.newBuilder(trainjobs.toURI())
                                .header("Content-Type", "application/json")
                                .header("Authorization", "Bearer " + HttpRoutesTest.localToken())
                                .POST(HttpRequest.BodyPublishers.ofString(body))
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        };
        var created = post.apply("{\"workspace\": \"s3://training/projects/churn.zip\", \"pythonFile\": \"train.py\","
                + " \"args\": [\"--seed\", \"7\"]}");
        assertEquals(201, created.statusCode(), created.body());
        String name = (String) JSON.readValue(created.body(), Map.class).get("name");
        var log = http.send(
                HttpRequest.newBuilder(URI.create(trainjobs + "/" + name + "/logs?follow=true"))
                        .header("Authorization", "Bearer " + HttpRoutesTest.localToken())
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        assertTrue(log.body().contains("project named by a request ['--seed', '7']"), log.body());

        var refused = post.apply("{\"workspace\": \"s3://training/private/other.zip\", \"pythonFile\": \"train.py\"}");
        assertEquals(403, refused.statusCode(), refused.body());
        assertTrue(refused.body().contains("workspaceSources"), refused.body());
        var missing = post.apply("{\"workspace\": \"s3://training/projects/none.zip\", \"pythonFile\": \"train.py\"}");
        assertEquals(400, missing.statusCode() / 100 * 100, missing.body());
        assertTrue(missing.body().contains("does not exist"), missing.body());
    }

    /** A zip of the files by name, each given as text or as bytes. */
    private static byte[] zip(Map<String, ?> files) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (ZipOutputStream zip = new ZipOutputStream(bytes)) {
            for (Map.Entry<String, ?> file : new TreeMap<>(files).entrySet()) {
                zip.putNextEntry(new ZipEntry(file.getKey()));
                zip.write(
                        file.getValue() instanceof byte[] content
                                ? content
                                : file.getValue().toString().getBytes(StandardCharsets.UTF_8));
                zip.closeEntry();
            }
        }
        return bytes.toByteArray();
    }

    /** Every record of the topic as its value and headers. */
    private static List<String> recordsWithHeaders(String topic) {
        List<String> records = new ArrayList<>();
        for (ConsumerRecord<String, String> record : KafkaRoutesTest.allRecords(topic)) {
            StringBuilder text = new StringBuilder(String.valueOf(record.value()));
            for (Header header : record.headers()) {
                text.append('\n')
                        .append(header.key())
                        .append('=')
                        .append(new String(header.value(), StandardCharsets.UTF_8));
            }
            records.add(text.toString());
        }
        return records;
    }

    private static Map<?, ?> awaitReport(String key) throws Exception {
        Instant deadline = Instant.now().plus(Duration.ofSeconds(60));
        String report = null;
        while (report == null && Instant.now().isBefore(deadline)) {
            report = S3ServerResource.s3.get(S3ServerResource.BUCKET, key + ".trainjob.json");
            Thread.sleep(200);
        }
        assertNotNull(report, "no report for " + key);
        return JSON.readValue(report, Map.class);
    }
}
