package io.camelkubeflow.trainer.testing;

import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import io.fabric8.mockwebserver.http.Buffer;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;

/**
 * fabric8's mock API server in CRUD mode with the real Kubeflow Trainer v2.3.0 CRDs and default runtimes loaded. It
 * records every request, so tests can count writes and validate each TrainJob the component sends against the CRD.
 */
public final class TrainerApiServer implements AutoCloseable {
    public static final String CRDS = "/kubeflow-trainer/crds/";
    public static final List<String> DEFAULT_RUNTIMES = List.of(
            "torch_distributed.yaml", "deepspeed_distributed.yaml", "mlx_distributed.yaml", "jax_distributed.yaml",
            "xgboost_distributed.yaml", "torchtune/llama3_2/llama3_2_1B.yaml", "torchtune/llama3_2/llama3_2_3B.yaml",
            "torchtune/qwen2_5/qwen2_5_1.5B.yaml", "data-cache/torch_distributed_with_cache.yaml");
    private static final String TRAINJOBS_PATH = "/apis/trainer.kubeflow.org/v1alpha1/namespaces/";

    private final KubernetesMockServer server;
    /** Bodies of TrainJob creates and replaces, kept before the dispatcher consumes the request body. */
    private final List<String> trainJobBodies = new CopyOnWriteArrayList<>();
    private final KubernetesClient client;
    private final List<RecordedRequest> recorded = new ArrayList<>();
    private final CrdSchemaValidator trainJobSchema = CrdSchemaValidator.trainJobs();
    private int mark;

    private TrainerApiServer() {
        server = new KubernetesMockServer(new Context(), new MockWebServer(), new HashMap<>(),
                new RecordingCrudDispatcher(), false);
        server.init();
        client = server.createClient();
    }

    /** A server holding the CRDs and every default ClusterTrainingRuntime. */
    public static TrainerApiServer start() {
        TrainerApiServer api = new TrainerApiServer();
        for (String crd : List.of("trainer.kubeflow.org_trainjobs.yaml",
                "trainer.kubeflow.org_clustertrainingruntimes.yaml", "trainer.kubeflow.org_trainingruntimes.yaml")) {
            api.client.apiextensions().v1().customResourceDefinitions()
                    .resource(api.load(CRDS + crd, CustomResourceDefinition.class)).create();
        }
        for (String runtime : DEFAULT_RUNTIMES) {
            api.createRuntime(api.load("/kubeflow-trainer/runtimes/" + runtime, GenericKubernetesResource.class));
        }
        api.mark();
        return api;
    }

    public KubernetesClient client() {
        return client;
    }

    /** Creates a ClusterTrainingRuntime or (namespaced) TrainingRuntime. */
    public void createRuntime(GenericKubernetesResource runtime) {
        boolean namespaced = "TrainingRuntime".equals(runtime.getKind());
        ResourceDefinitionContext context = new ResourceDefinitionContext.Builder().withGroup("trainer.kubeflow.org")
                .withVersion("v1alpha1").withKind(runtime.getKind())
                .withPlural(namespaced ? "trainingruntimes" : "clustertrainingruntimes").withNamespaced(namespaced)
                .build();
        if (namespaced) {
            client.genericKubernetesResources(context).inNamespace(runtime.getMetadata().getNamespace())
                    .resource(runtime).create();
        } else {
            client.genericKubernetesResources(context).resource(runtime).create();
        }
    }

    public void createRuntime(String yaml) {
        createRuntime(Serialization.unmarshal(yaml, GenericKubernetesResource.class));
    }

    private <T> T load(String resource, Class<T> type) {
        try (InputStream in = getClass().getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalArgumentException("missing test resource " + resource);
            }
            return Serialization.unmarshal(in, type);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Starts a new window for {@link #requestsSinceMark()}. */
    public void mark() {
        drain();
        mark = recorded.size();
    }

    public List<RecordedRequest> requestsSinceMark() {
        drain();
        return List.copyOf(recorded.subList(mark, recorded.size()));
    }

    /** "METHOD path" of every write (POST, PUT, PATCH, DELETE) since the mark. */
    public List<String> writesSinceMark() {
        return requestsSinceMark().stream()
                .filter(r -> !"GET".equals(r.getMethod()))
                .map(r -> r.getMethod() + " " + r.getPath()).toList();
    }

    /**
     * Validates the body of every TrainJob create or replace received since the server started against the CRD's
     * schema and CEL rules; returns the violations, each prefixed with the request.
     */
    public List<String> trainJobWriteViolations() {
        List<String> violations = new ArrayList<>();
        for (String body : trainJobBodies) {
            for (String violation : trainJobSchema.validate(body)) {
                violations.add(violation + " in " + body);
            }
        }
        return violations;
    }

    /** How many TrainJob creates or replaces the server received since it started. */
    public int trainJobWrites() {
        return trainJobBodies.size();
    }

    private static boolean isTrainJobWrite(RecordedRequest request) {
        String path = request.getPath();
        return ("POST".equals(request.getMethod()) || "PUT".equals(request.getMethod()))
                && path.startsWith(TRAINJOBS_PATH) && path.contains("/trainjobs");
    }

    /** The CRUD dispatcher, noting each TrainJob body before handling it. */
    private final class RecordingCrudDispatcher extends KubernetesCrudDispatcher {
        @Override
        public MockResponse handleCreate(RecordedRequest request) {
            return super.handleCreate(keepTrainJobBody(request));
        }

        @Override
        public MockResponse handleUpdate(RecordedRequest request) {
            return super.handleUpdate(keepTrainJobBody(request));
        }

        private RecordedRequest keepTrainJobBody(RecordedRequest request) {
            if (!isTrainJobWrite(request)) {
                return request;
            }
            String body = request.getUtf8Body();
            trainJobBodies.add(body);
            return new RecordedRequest(request.getHttpVersion(), request.method(), request.getPath(),
                    request.getHeaders(), new Buffer().writeUtf8(body));
        }
    }

    private void drain() {
        try {
            RecordedRequest request;
            while ((request = server.takeRequest(1, TimeUnit.MILLISECONDS)) != null) {
                recorded.add(request);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void close() {
        client.close();
        server.destroy();
    }
}
