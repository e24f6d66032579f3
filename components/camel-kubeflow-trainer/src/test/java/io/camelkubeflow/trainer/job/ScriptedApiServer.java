package io.camelkubeflow.trainer.job;

import io.camelkubeflow.trainer.sandbox.TrainerSandbox;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.IOException;
import java.io.InputStream;

/**
 * fabric8's mock API server in expectation mode, always serving the default torch-distributed ClusterTrainingRuntime;
 * each test scripts the other answers, one by one, to put train through failures a CRUD server cannot produce.
 */
final class ScriptedApiServer implements AutoCloseable {
    static final String RUNTIME_PATH = "/apis/trainer.kubeflow.org/v1alpha1/clustertrainingruntimes/torch-distributed";
    static final String JOBS = "/apis/trainer.kubeflow.org/v1alpha1/namespaces/ml/trainjobs";

    final KubernetesMockServer server = new KubernetesMockServer(false);
    final KubernetesClient client;

    ScriptedApiServer() throws IOException {
        server.init();
        client = server.createClient();
        try (InputStream in = getClass().getResourceAsStream(TrainerSandbox.RUNTIMES + "torch_distributed.yaml")) {
            server.expect()
                    .get()
                    .withPath(RUNTIME_PATH)
                    .andReturn(200, Serialization.unmarshal(in, GenericKubernetesResource.class))
                    .always();
        }
    }

    @Override
    public void close() {
        client.close();
        server.destroy();
    }
}
