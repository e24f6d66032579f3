package io.camelkubeflow.trainer;

import static io.camelkubeflow.trainer.KubeflowTrainerConstants.*;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.camelkubeflow.trainer.runtime.RuntimeKind;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.mockwebserver.http.RecordedRequest;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A create costs at most two API requests whatever the payload (the Kubeflow SDK sends three: two runtime GETs and
 * the POST): the runtime comes from the shared, watched cache.
 */
class CreateRequestsTest extends TrainerRouteTestSupport {
    private static final String TRAIN =
            "kubeflow-trainer:train?runtime=torch-distributed&namespace=requests" + "&bodyType=ignore";

    private static List<String> requests() {
        return api.requestsSinceMark().stream()
                .map(CreateRequestsTest::describe)
                .toList();
    }

    private static String describe(RecordedRequest request) {
        return request.getMethod() + " " + request.getPath();
    }

    @Test
    void aCreateIsOneRequestWhateverThePayloadAndNoRuntimeGet() {
        // the first create of the context lists and watches the runtimes; the ones after read them from the cache
        assertNull(send(TRAIN + "&pythonFile=/app/warm.py", null, Map.of()).getException());

        send(TRAIN + "&pythonFile=/app/train.py", null, Map.of());
        assertEquals(List.of("POST /apis/trainer.kubeflow.org/v1alpha1/namespaces/requests/trainjobs"), requests());

        send(TRAIN + "&command=python -u -c 'print(1)'", null, Map.of());
        assertEquals(List.of("POST /apis/trainer.kubeflow.org/v1alpha1/namespaces/requests/trainjobs"), requests());

        send(TRAIN + "&script=print(1)", null, Map.of());
        assertEquals(List.of("POST /apis/trainer.kubeflow.org/v1alpha1/namespaces/requests/trainjobs"), requests());
    }

    @Test
    void aRuntimeCreatedAfterTheCacheWasFilledIsFoundAndAMissingOneIsStillNamed() {
        assertNull(send(TRAIN + "&pythonFile=/app/warm.py", null, Map.of()).getException());
        GenericKubernetesResource fresh = api.sandbox()
                .client()
                .genericKubernetesResources(RuntimeKind.ClusterTrainingRuntime.context())
                .withName("torch-distributed")
                .get();
        fresh.setMetadata(new ObjectMetaBuilder()
                .withName("torch-fresh")
                .withLabels(fresh.getMetadata().getLabels())
                .build());
        api.sandbox().createRuntime(fresh);
        assertNull(send(TRAIN.replace("torch-distributed", "torch-fresh") + "&pythonFile=/app/t.py", null, Map.of())
                .getException());
        Exception missing = send(
                        TRAIN.replace("torch-distributed", "no-such-runtime") + "&pythonFile=/app/t.py", null, Map.of())
                .getException();
        assertEquals(
                "Invalid 'runtime': ClusterTrainingRuntime 'no-such-runtime' does not exist; list them with"
                        + " kubectl get clustertrainingruntimes, or set runtimeKind=TrainingRuntime for a namespaced one",
                missing.getMessage());
    }
}
