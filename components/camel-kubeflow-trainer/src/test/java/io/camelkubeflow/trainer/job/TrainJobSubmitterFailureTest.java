package io.camelkubeflow.trainer.job;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import io.camelkubeflow.trainer.api.TrainJob;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.StatusBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.mockwebserver.http.RecordedRequest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What happens between the writes of one submit when the API server fails or another replica wins the race; uses
 * the mock server in expectation mode, which scripts each answer.
 */
class TrainJobSubmitterFailureTest {
    static final String JOBS = ScriptedApiServer.JOBS;
    static final String CONFIG_MAPS = "/api/v1/namespaces/ml/configmaps";

    ScriptedApiServer api;
    TrainRequest request;
    String name;

    @BeforeEach
    void scriptedServer() throws Exception {
        api = new ScriptedApiServer();
        request = new TrainRequest().runtime("torch-distributed").namespace("ml").script("print(1)")
                .idempotencyKey("kafka:t/0/1");
        name = TrainJobMetadata.nameFor(null, "kafka:t/0/1");
        api.server.expect().get().withPath(JOBS + "/" + name).andReturn(404, notFound()).once();
        api.server.expect().post().withPath(CONFIG_MAPS).andReturn(201, new ConfigMapBuilder().withNewMetadata()
                .withName(name + "-script").withNamespace("ml").endMetadata().build()).once();
    }

    @AfterEach
    void stop() {
        api.close();
    }

    @Test
    void aRefusedCreateRemovesTheStagedScriptAndRethrows() throws Exception {
        // e.g. the Trainer admission webhook denying the job
        api.server.expect().post().withPath(JOBS).andReturn(403, notFound()).once();
        api.server.expect().delete().withPath(CONFIG_MAPS + "/" + name + "-script").andReturn(200, notFound()).once();

        KubernetesClientException error = assertThrows(KubernetesClientException.class,
                () -> new TrainJobSubmitter(api.client).submit(request, null));
        assertEquals(403, error.getCode());
        assertTrue(requests().contains("DELETE " + CONFIG_MAPS + "/" + name + "-script"), requests().toString());
    }

    @Test
    void losingTheCreateRaceAdoptsTheWinnersJobAndKeepsItsScript() throws Exception {
        TrainJob winner = new TrainJobSubmitter(api.client).prepare(request, null).trainJob();
        winner.getMetadata().setUid("winner-uid");
        api.server.expect().post().withPath(JOBS).andReturn(409, notFound()).once();
        api.server.expect().get().withPath(JOBS + "/" + name).andReturn(200, winner).once();

        SubmitResult result = new TrainJobSubmitter(api.client).submit(request, null);
        assertTrue(result.adopted());
        assertEquals("winner-uid", result.trainJob().getMetadata().getUid());
        assertTrue(requests().stream().noneMatch(r -> r.startsWith("DELETE")), requests().toString());
    }

    private List<String> requests() throws InterruptedException {
        List<String> seen = new ArrayList<>();
        RecordedRequest r;
        while ((r = api.server.takeRequest(10, TimeUnit.MILLISECONDS)) != null) {
            seen.add(r.getMethod() + " " + r.getPath());
        }
        return seen;
    }

    private static io.fabric8.kubernetes.api.model.Status notFound() {
        return new StatusBuilder().withStatus("Failure").withMessage("scripted").build();
    }
}
