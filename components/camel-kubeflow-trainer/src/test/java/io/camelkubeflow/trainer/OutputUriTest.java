package io.camelkubeflow.trainer;

import static io.camelkubeflow.trainer.KubeflowTrainerConstants.*;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.camelkubeflow.trainer.api.TrainJob;
import io.camelkubeflow.trainer.job.TrainJobMetadata;
import io.camelkubeflow.trainer.support.InvalidOptionException;
import io.camelkubeflow.trainer.testing.Eventually;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.Pod;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.camel.Exchange;
import org.apache.camel.builder.RouteBuilder;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * outputUri: the training is told where to write (OUTPUT_URI in the pods of the launcher's replicated job), the job
 * records it, and every message about the job carries it with the digest of the code that ran; a bad location is
 * refused naming the field before anything is written.
 */
class OutputUriTest extends TrainerRouteTestSupport {
    private static final String TORCH = "kubeflow-trainer:train?runtime=torch-distributed&namespace=outputs"
            + "&pythonFile=/app/train.py&numNodes=2";

    @BeforeAll
    static void routes() throws Exception {
        camel.addRoutes(new RouteBuilder() {
            @Override
            public void configure() {
                from("direct:train-wait-train")
                        .to(TORCH + "&outputUri=s3://models/fraud/v1/")
                        .to("kubeflow-trainer:wait?waitFor=Running&waitTimeout=60s")
                        .setProperty("waited", header(OUTPUT_URI))
                        .setProperty("digest", header(CODE_DIGEST))
                        .to("kubeflow-trainer:train?runtime=torch-distributed&namespace=outputs"
                                + "&pythonFile=/app/evaluate.py");
            }
        });
    }

    @Test
    void theTrainingIsToldWhereToWriteInEveryPodThatRunsItsCodeAndTheJobRecordsIt() throws Exception {
        Exchange trained = send(TORCH, null, Map.of(OUTPUT_URI, "s3://models/fraud/2026-12-05/"));
        assertNull(trained.getException());
        TrainJob job = trainJob(trained);
        assertEquals("s3://models/fraud/2026-12-05/", trained.getMessage().getHeader(OUTPUT_URI));
        assertEquals(
                "s3://models/fraud/2026-12-05/",
                job.getMetadata().getAnnotations().get(TrainJobMetadata.OUTPUT_URI_ANNOTATION));
        assertTrue(job.getSpec()
                .trainer()
                .env()
                .contains(new EnvVar("OUTPUT_URI", "s3://models/fraud/2026-12-05/", null)));
        Eventually.await(Duration.ofSeconds(30), () -> nodePods(job).size() == 2, () -> "no 2 node pods");
        for (Pod pod : nodePods(job)) {
            assertTrue(
                    pod.getSpec().getContainers().get(0).getEnv().stream()
                            .anyMatch(env -> env.getName().equals("OUTPUT_URI")
                                    && env.getValue().equals("s3://models/fraud/2026-12-05/")),
                    pod.toString());
        }
    }

    @Test
    void underMpiTheLauncherThatRunsTheCodeIsToldWhereToWrite() throws Exception {
        TrainJob job = trainJob(send(
                "kubeflow-trainer:train?runtime=deepspeed-distributed&namespace=outputs"
                        + "&pythonFile=/app/train.py&outputUri=s3://models/ds/",
                null,
                Map.of()));
        Eventually.await(Duration.ofSeconds(30), () -> pods(job, "launcher").size() == 1, () -> "no launcher pod");
        assertTrue(pods(job, "launcher").get(0).getSpec().getContainers().get(0).getEnv().stream()
                .anyMatch(env ->
                        env.getName().equals("OUTPUT_URI") && env.getValue().equals("s3://models/ds/")));
    }

    @Test
    void aWaitCarriesTheOutputAndTheCodeDigestAndTheNextTrainStepDoesNotInheritThem() {
        Exchange exchange = send("direct:train-wait-train", null, Map.of());
        assertNull(exchange.getException());
        assertEquals("s3://models/fraud/v1/", exchange.getProperty("waited"));
        assertTrue(exchange.getProperty("digest", String.class).matches("sha256:[0-9a-f]{64}"));
        TrainJob second = trainJob(exchange);
        assertNull(exchange.getMessage().getHeader(OUTPUT_URI), "the evaluation step was given no output");
        assertTrue(second.getSpec().trainer().env() == null
                || second.getSpec().trainer().env().stream()
                        .noneMatch(env -> env.getName().equals("OUTPUT_URI")));
        assertNotEquals(exchange.getProperty("digest"), exchange.getMessage().getHeader(CODE_DIGEST));
    }

    @Test
    void theCodeDigestIsTheSameForTheSameCodeAndChangesWithTheScript() {
        String script = "kubeflow-trainer:train?runtime=torch-distributed&namespace=outputs";
        String a = digest(send(script, null, Map.of(SCRIPT, "print(1)", IDEMPOTENCY_KEY, "digest-a")));
        String again =
                digest(send(script, null, Map.of(SCRIPT, "print(1)", IDEMPOTENCY_KEY, "digest-b", NUM_NODES, 3)));
        String other = digest(send(script, null, Map.of(SCRIPT, "print(2)", IDEMPOTENCY_KEY, "digest-c")));
        assertEquals(a, again, "nodes are not code");
        assertNotEquals(a, other);
    }

    @Test
    void aClaimsPathAsTheOutputIsMountedWhereTheCodeRunsAndGivenAsAFolder() throws Exception {
        TrainJob job = trainJob(send(TORCH, null, Map.of(OUTPUT_URI, "pvc://models/fraud/v2/")));
        Eventually.await(Duration.ofSeconds(30), () -> nodePods(job).size() == 2, () -> "no 2 node pods");
        for (Pod pod : nodePods(job)) {
            assertTrue(
                    pod.getSpec().getVolumes().stream()
                            .anyMatch(volume -> volume.getPersistentVolumeClaim() != null
                                    && volume.getPersistentVolumeClaim()
                                            .getClaimName()
                                            .equals("models")),
                    pod.toString());
            var node = pod.getSpec().getContainers().get(0);
            // only the path is mounted: the rest of the claim stays out of the pod's reach
            assertTrue(
                    node.getVolumeMounts().stream()
                            .anyMatch(mount -> mount.getMountPath().equals("/mnt/camel-kubeflow-trainer/output")
                                    && "fraud/v2".equals(mount.getSubPath())),
                    node.toString());
            assertTrue(
                    node.getEnv().contains(new EnvVar("OUTPUT_DIR", "/mnt/camel-kubeflow-trainer/output", null)),
                    node.getEnv().toString());
            assertTrue(node.getEnv().contains(new EnvVar("OUTPUT_URI", "pvc://models/fraud/v2/", null)));
        }
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "http://models/x/",
                "s3://Models/x/",
                "s3://ab/",
                "s3://models/a/../b/",
                "s3://models/./x",
                "s3://models/x\r\nINFO forged",
                "s3://models/a\\b",
                "file:/tmp/out",
                "pvc://Models/x/",
                "pvc://models/../x",
                "pvc://-models/x",
                "pvc://models./x",
                "s3://models/\u202egnp.exe/",
                "s3://models/a\u00a0b/",
                "s3://models/\u200bx/"
            })
    void aLocationThatIsNoS3PrefixIsRefusedNamingTheFieldBeforeAnyWrite(String location) {
        Exchange refused = send(TORCH, null, Map.of(OUTPUT_URI, location));
        InvalidOptionException error = assertInstanceOf(InvalidOptionException.class, refused.getException());
        assertEquals("outputUri", error.getField(), error.getMessage());
        assertTrue(!error.getMessage().contains("\r") && !error.getMessage().contains("\n"), error.getMessage());
        assertEquals(List.of(), api.writesSinceMark());
    }

    @Test
    void anOutputVariableOfTheCallersOwnIsRefusedAsTwoAnswersToOneQuestion() {
        for (String name : List.of("OUTPUT_URI", "OUTPUT_DIR")) {
            Exchange refused = send(TORCH, null, Map.of(OUTPUT_URI, "s3://models/x/", ENV, Map.of(name, "/elsewhere")));
            InvalidOptionException error = assertInstanceOf(InvalidOptionException.class, refused.getException());
            assertEquals("env." + name, error.getField());
            assertEquals(List.of(), api.writesSinceMark());
        }
    }

    private static String digest(Exchange exchange) {
        assertNull(exchange.getException());
        return exchange.getMessage().getHeader(CODE_DIGEST, String.class);
    }

    private static List<Pod> nodePods(TrainJob job) {
        return pods(job, "node");
    }

    private static List<Pod> pods(TrainJob job, String replicatedJob) {
        return api.client()
                .pods()
                .inNamespace("outputs")
                .withLabel("jobset.sigs.k8s.io/jobset-name", job.getMetadata().getName())
                .withLabel("jobset.sigs.k8s.io/replicatedjob-name", replicatedJob)
                .list()
                .getItems();
    }
}
