package io.camelkubeflow.trainer.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.camelkubeflow.trainer.KubeflowTrainerComponent;
import io.camelkubeflow.trainer.api.TrainJob;
import io.camelkubeflow.trainer.sandbox.TrainerSandbox;
import io.camelkubeflow.trainer.support.InvalidOptionException;
import io.camelkubeflow.trainer.testing.Eventually;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvFromSourceBuilder;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.EnvVarBuilder;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import org.apache.camel.CamelContext;
import org.apache.camel.Exchange;
import org.apache.camel.impl.DefaultCamelContext;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Typed initializers on the real control plane: the Trainer's webhook admits the TrainJob, its controller and JobSet
 * render the dataset-initializer and model-initializer pods with the storage URI, the settings' variables, the Secret
 * keys (secretKeyRef) and the whole Secret (envFrom), and the node agent runs them: the processes see the values,
 * the Secret's resolved by the kubelet. The sandbox renders the same containers for the same request. Refusals
 * (a runtime without the step; the Trainer's own rule that refuses the data-cache runtime's step) write nothing.
 */
class InitializersIT {
    private static final String TOKEN = "hf-e2e-token-value";
    private static final String SECRET_KEY = "s3-e2e-secret-key";
    /** Each initializer prints what it was given; the credentials as digests, never their values. */
    private static final String ECHO = "import hashlib, os\\n"
            + "for name in ['STORAGE_URI', 'IGNORE_PATTERNS', 'ENDPOINT', 'REGION']:\\n"
            + "    print('ENV', name, os.environ.get(name))\\n"
            + "for name in ['ACCESS_TOKEN', 'SECRET_ACCESS_KEY']:\\n"
            + "    value = os.environ.get(name)\\n"
            + "    print('DIGEST', name, hashlib.sha256(value.encode()).hexdigest()[:16] if value else None)\\n";
    /** A runtime with both initializer steps whose containers run the echo with the local python3. */
    private static final String RUNTIME = """
            {"apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "TrainingRuntime",
             "metadata": {"name": "initializer-echo"},
             "spec": {"mlPolicy": {"numNodes": 1}, "template": {"spec": {"replicatedJobs": [
               %s, %s,
               {"name": "node",
                "dependsOn": [{"name": "dataset-initializer", "status": "Complete"},
                              {"name": "model-initializer", "status": "Complete"}],
                "template": {"metadata": {"labels": {"trainer.kubeflow.org/trainjob-ancestor-step": "trainer"}},
                  "spec": {"template": {"spec": {"containers": [{"name": "node", "image": "python:3.12",
                    "command": ["python3", "-c", "print('trained')"]}]}}}}}]}}}}
            """.formatted(step("dataset-initializer"), step("model-initializer"));

    private static final String OPTIONS = "runtime=initializer-echo&runtimeKind=TrainingRuntime"
            + "&command=python3 -c \"print('trained')\""
            + "&datasetUri=hf://tatsu-lab/alpaca&datasetIgnorePatterns=*.md,*.png"
            + "&datasetAccessToken=secretKeyRef:hf-key/token"
            + "&modelUri=s3://models/llama&modelEndpoint=http://minio.storage:9000&modelRegion=eu-central-1"
            + "&modelSecret=s3-creds";

    private static RealCluster cluster;
    private static TrainerSandbox sandbox;
    private static KubernetesClient sandboxClient;
    private static CamelContext sandboxCamel;

    @TempDir
    static Path work;

    private static String step(String name) {
        return """
                {"name": "%1$s",
                 "template": {"metadata": {"labels": {"trainer.kubeflow.org/trainjob-ancestor-step": "%1$s"}},
                   "spec": {"template": {"spec": {
                     "containers": [{"name": "%1$s", "image": "ghcr.io/kubeflow/trainer/%1$s:v2.3.0",
                       "command": ["python3", "-c", "%2$s"],
                       "volumeMounts": [{"name": "initializer", "mountPath": "/workspace"}]}],
                     "volumes": [{"name": "initializer", "emptyDir": {}}]}}}}}""".formatted(name, ECHO);
    }

    @BeforeAll
    static void start() throws Exception {
        cluster = RealCluster.start(InitializersIT.class);
        install(cluster.admin, cluster.namespace);
        sandbox = TrainerSandbox.start(
                TrainerSandbox.Options.defaults().withController(Duration.ofMillis(50), Duration.ofSeconds(30)));
        sandboxClient = RealCluster.client(sandbox.writeKubeconfig(work.resolve("sandbox.kubeconfig")));
        sandboxClient
                .namespaces()
                .resource(new NamespaceBuilder()
                        .withNewMetadata()
                        .withName(cluster.namespace)
                        .endMetadata()
                        .build())
                .create();
        install(sandboxClient, cluster.namespace);
        sandboxCamel = new DefaultCamelContext();
        sandboxCamel
                .getComponent("kubeflow-trainer", KubeflowTrainerComponent.class)
                .setKubernetesClient(sandboxClient);
        sandboxCamel.start();
    }

    /** The echo runtime and the Secrets the request names. */
    private static void install(KubernetesClient client, String namespace) {
        client.resource(Serialization.unmarshal(RUNTIME, GenericKubernetesResource.class))
                .inNamespace(namespace)
                .create();
        client.secrets()
                .inNamespace(namespace)
                .resource(new SecretBuilder()
                        .withNewMetadata()
                        .withName("hf-key")
                        .endMetadata()
                        .addToStringData("token", TOKEN)
                        .build())
                .create();
        client.secrets()
                .inNamespace(namespace)
                .resource(new SecretBuilder()
                        .withNewMetadata()
                        .withName("s3-creds")
                        .endMetadata()
                        .addToStringData("ACCESS_KEY_ID", "AKIAE2E")
                        .addToStringData("SECRET_ACCESS_KEY", SECRET_KEY)
                        .build())
                .create();
    }

    @AfterAll
    static void stop() throws Exception {
        if (sandboxCamel != null) {
            sandboxCamel.stop();
        }
        if (sandboxClient != null) {
            sandboxClient.close();
        }
        if (sandbox != null) {
            sandbox.close();
        }
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    @Timeout(240)
    void theWebhookAdmitsItAndTheInitializerProcessesSeeTheSettingsAndSecrets() throws Exception {
        Exchange trained = cluster.request("kubeflow-trainer:train?jobName=typed-init&" + OPTIONS, null);
        TrainJob job = cluster.admin
                .resources(TrainJob.class)
                .inNamespace(cluster.namespace)
                .withName("typed-init")
                .get();
        assertNotNull(job, "the webhook admitted the TrainJob");

        // as the Trainer's JobSet builder renders them: the storage URI, the settings, the Secret key, the Secret
        EnvVar tokenRef = new EnvVarBuilder()
                .withName("ACCESS_TOKEN")
                .withNewValueFrom()
                .withNewSecretKeyRef()
                .withName("hf-key")
                .withKey("token")
                .endSecretKeyRef()
                .endValueFrom()
                .build();
        Container dataset = container(cluster.admin, "typed-init", "dataset-initializer");
        assertEquals(
                List.of(
                        new EnvVar("STORAGE_URI", "hf://tatsu-lab/alpaca", null),
                        new EnvVar("IGNORE_PATTERNS", "*.md,*.png", null),
                        tokenRef),
                ownEnv(dataset));
        assertEquals(List.of(), dataset.getEnvFrom());
        Container model = container(cluster.admin, "typed-init", "model-initializer");
        assertEquals(
                List.of(
                        new EnvVar("STORAGE_URI", "s3://models/llama", null),
                        new EnvVar("IGNORE_PATTERNS", "*.msgpack,*.h5,*.bin,*.pt,*.pth", null),
                        new EnvVar("ENDPOINT", "http://minio.storage:9000", null),
                        new EnvVar("REGION", "eu-central-1", null)),
                ownEnv(model));
        assertEquals(
                List.of(new EnvFromSourceBuilder()
                        .withNewSecretRef()
                        .withName("s3-creds")
                        .endSecretRef()
                        .build()),
                model.getEnvFrom());

        // the processes the node agent ran: the values as the kubelet resolved them
        Exchange done = cluster.then("kubeflow-trainer:wait?waitFor=Complete&waitTimeout=150s", trained);
        assertEquals("Complete", done.getMessage().getHeader("CamelKubeflowTrainerStatus"));
        String datasetLog = cluster.then("kubeflow-trainer:logs?logStep=dataset-initializer", trained)
                .getMessage()
                .getBody(String.class);
        assertTrue(datasetLog.contains("ENV STORAGE_URI hf://tatsu-lab/alpaca"), datasetLog);
        assertTrue(datasetLog.contains("ENV IGNORE_PATTERNS *.md,*.png"), datasetLog);
        assertTrue(datasetLog.contains("DIGEST ACCESS_TOKEN " + digest(TOKEN)), datasetLog);
        String modelLog = cluster.then("kubeflow-trainer:logs?logStep=model-initializer", trained)
                .getMessage()
                .getBody(String.class);
        assertTrue(modelLog.contains("ENV STORAGE_URI s3://models/llama"), modelLog);
        assertTrue(modelLog.contains("ENV ENDPOINT http://minio.storage:9000"), modelLog);
        assertTrue(modelLog.contains("ENV REGION eu-central-1"), modelLog);
        assertTrue(modelLog.contains("DIGEST SECRET_ACCESS_KEY " + digest(SECRET_KEY)), modelLog);

        // the sandbox renders the same initializer containers for the same request
        Exchange emulated = sandboxCamel
                .createProducerTemplate()
                .request(
                        "kubeflow-trainer:train?jobName=typed-init&" + OPTIONS + "&namespace=" + cluster.namespace,
                        e -> e.getMessage().setBody(null));
        assertEquals(null, emulated.getException());
        for (String step : List.of("dataset-initializer", "model-initializer")) {
            Container real = container(cluster.admin, "typed-init", step);
            Container rendered = container(sandboxClient, "typed-init", step);
            assertEquals(real.getEnv(), rendered.getEnv(), step + ": env, the sandbox's against the real one's");
            assertEquals(real.getEnvFrom(), rendered.getEnvFrom(), step + ": envFrom");
        }
    }

    @Test
    @Timeout(60)
    void aDatasetOnARuntimeWithoutTheStepIsRefusedAndNothingIsWritten() throws Exception {
        long mark = cluster.auditMark();
        Exchange refused = cluster.template.request(
                "kubeflow-trainer:train?runtime=torch-distributed&command=true" + "&datasetUri=s3://data/set&namespace="
                        + cluster.namespace,
                e -> e.getMessage().setBody(null));
        InvalidOptionException error = assertInstanceOf(InvalidOptionException.class, refused.getException());
        assertEquals("datasetUri", error.getField());
        assertTrue(error.getMessage().contains("torchtune-llama3.2-1b"), error.getMessage());
        assertEquals(List.of(), cluster.writesSince(mark, RealCluster.ADMIN_USER), "writes the API server saw");
    }

    /**
     * The Trainer's v2.3.0 default data-cache runtime has no 'initializer' volume in its dataset-initializer
     * container, and its webhook refuses a TrainJob with a dataset initializer there: the component's rule is the
     * webhook's, so it refuses first, with nothing written.
     */
    @Test
    @Timeout(60)
    void theWebhookRefusesADatasetOnTheCacheRuntimesStepAndSoDoesTheComponentFirst() throws Exception {
        GenericKubernetesResource cacheRuntime = Serialization.unmarshal(
                InitializersIT.class.getResourceAsStream(TrainerSandbox.DATA_CACHE_RUNTIME),
                GenericKubernetesResource.class);
        cacheRuntime.setKind("TrainingRuntime");
        cacheRuntime.getMetadata().setName("with-cache");
        cacheRuntime.getMetadata().setNamespace(cluster.namespace);
        cluster.admin.resource(cacheRuntime).create();
        String job = """
                {"apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "TrainJob",
                 "metadata": {"name": "raw-cache", "namespace": "%s"},
                 "spec": {"runtimeRef": {"name": "with-cache", "kind": "TrainingRuntime"},
                          "initializer": {"dataset": {"storageUri": "cache://db/table"}}}}""".formatted(cluster.namespace);
        KubernetesClientException denied = assertThrows(
                KubernetesClientException.class,
                () -> cluster.admin
                        .resource(Serialization.unmarshal(job, GenericKubernetesResource.class))
                        .create());
        assertTrue(denied.getMessage().contains("must have volumeMount with name - initializer"), denied.getMessage());

        long mark = cluster.auditMark();
        Exchange refused = cluster.template.request(
                "kubeflow-trainer:train?runtime=with-cache"
                        + "&runtimeKind=TrainingRuntime&command=true&datasetUri=cache://db/table&datasetCacheDataNodes=2"
                        + "&datasetCacheMetadataLoc=s3://b/t/metadata.json&namespace=" + cluster.namespace,
                e -> e.getMessage().setBody(null));
        InvalidOptionException error = assertInstanceOf(InvalidOptionException.class, refused.getException());
        assertTrue(error.getMessage().contains("does not mount the 'initializer' volume"), error.getMessage());
        assertEquals(List.of(), cluster.writesSince(mark, RealCluster.ADMIN_USER), "writes the API server saw");
    }

    /** The step's container of the job's pod of that replicated job, once JobSet has made it. */
    private static Container container(KubernetesClient client, String job, String step) throws Exception {
        var pods = client.pods()
                .inNamespace(cluster.namespace)
                .withLabel("jobset.sigs.k8s.io/jobset-name", job)
                .withLabel("jobset.sigs.k8s.io/replicatedjob-name", step);
        Eventually.await(Duration.ofSeconds(60), () -> !pods.list().getItems().isEmpty(), () -> "no " + step + " pod");
        Pod pod = pods.list().getItems().get(0);
        return pod.getSpec().getContainers().stream()
                .filter(c -> step.equals(c.getName()))
                .findFirst()
                .orElseThrow();
    }

    /** A container's variables less the one the Job controller adds to every indexed Job's pods. */
    private static List<EnvVar> ownEnv(Container container) {
        return container.getEnv().stream()
                .filter(e -> !"JOB_COMPLETION_INDEX".equals(e.getName()))
                .toList();
    }

    private static String digest(String value) throws Exception {
        return HexFormat.of()
                .formatHex(MessageDigest.getInstance("SHA-256").digest(value.getBytes(StandardCharsets.UTF_8)))
                .substring(0, 16);
    }
}
