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
    }

    @AfterEach
    void stop() {
        api.close();
    }

    private TrainJob stored() {
        TrainJob job = new TrainJobSubmitter(api.client).prepare(request, null).trainJob();
        job.getMetadata().setUid("job-uid");
        return job;
    }

    @Test
    void aRefusedCreateStagesNoScriptAndRethrows() throws Exception {
        // e.g. the Trainer admission webhook denying the job
        api.server.expect().post().withPath(JOBS).andReturn(403, status()).once();

        KubernetesClientException error = assertThrows(KubernetesClientException.class,
                () -> new TrainJobSubmitter(api.client).submit(request, null));
        assertEquals(403, error.getCode());
        assertTrue(requests().stream().noneMatch(r -> r.contains("configmaps")), requests().toString());
    }

    @Test
    void aScriptThatCannotBeStagedTakesTheJobBackAndRethrows() throws Exception {
        api.server.expect().post().withPath(JOBS).andReturn(201, stored()).once();
        api.server.expect().post().withPath(CONFIG_MAPS).andReturn(403, status()).once();
        api.server.expect().delete().withPath(JOBS + "/" + name).andReturn(200, status()).once();

        KubernetesClientException error = assertThrows(KubernetesClientException.class,
                () -> new TrainJobSubmitter(api.client).submit(request, null));
        assertEquals(403, error.getCode());
        assertTrue(requests().contains("DELETE " + JOBS + "/" + name), "the job without its script was left");
    }

    @Test
    void losingTheCreateRaceAdoptsTheWinnersJobAndItsStagedScript() throws Exception {
        TrainJob winner = stored();
        winner.getMetadata().setUid("winner-uid");
        api.server.expect().post().withPath(JOBS).andReturn(409, status()).once();
        api.server.expect().get().withPath(JOBS + "/" + name).andReturn(200, winner).once();
        api.server.expect().post().withPath(CONFIG_MAPS).andReturn(409, status()).once();
        api.server.expect().get().withPath(CONFIG_MAPS + "/" + name + "-script").andReturn(200, scriptOwnedBy(
                "winner-uid")).once();

        SubmitResult result = new TrainJobSubmitter(api.client).submit(request, null);
        assertTrue(result.adopted());
        assertEquals("winner-uid", result.trainJob().getMetadata().getUid());
        List<String> requests = requests();
        assertTrue(requests.stream().noneMatch(r -> r.startsWith("DELETE") || r.startsWith("PUT")
                || r.startsWith("PATCH")), requests.toString());
    }

    private io.fabric8.kubernetes.api.model.ConfigMap scriptOwnedBy(String uid) {
        return new ConfigMapBuilder(new TrainJobSubmitter(api.client).prepare(request, null).scriptConfigMap())
                .editMetadata().addNewOwnerReference().withUid(uid).withKind("TrainJob").withName(name)
                .withApiVersion(TrainJob.API_VERSION).endOwnerReference().endMetadata().build();
    }

    @Test
    void theScriptOfAnEarlierJobOfTheNameStillBeingDeletedIsNotTakenAndTheNewJobIsTakenBack() throws Exception {
        api.server.expect().post().withPath(JOBS).andReturn(201, stored()).once();
        api.server.expect().post().withPath(CONFIG_MAPS).andReturn(409, status()).once();
        api.server.expect().get().withPath(CONFIG_MAPS + "/" + name + "-script").andReturn(200, scriptOwnedBy(
                "earlier-uid")).once();
        api.server.expect().delete().withPath(JOBS + "/" + name).andReturn(200, status()).once();

        TrainJobConflictException conflict = assertThrows(TrainJobConflictException.class,
                () -> new TrainJobSubmitter(api.client).submit(request, null));
        assertTrue(conflict.getMessage().contains("try again shortly"), conflict.getMessage());
        assertTrue(requests().contains("DELETE " + JOBS + "/" + name), "the job without its script was left");
    }

    @Test
    void aCreateWithAScriptWritesTheJobThenItsScriptOwnedByIt() throws Exception {
        api.server.expect().post().withPath(JOBS).andReturn(201, stored()).once();
        api.server.expect().post().withPath(CONFIG_MAPS).andReturn(201, new ConfigMapBuilder().build()).once();

        new TrainJobSubmitter(api.client).submit(request, null);
        List<RecordedRequest> writes = new ArrayList<>();
        RecordedRequest next;
        while ((next = api.server.takeRequest(10, TimeUnit.MILLISECONDS)) != null) {
            if (!next.getPath().equals(ScriptedApiServer.RUNTIME_PATH)) {
                writes.add(next);
            }
        }
        assertEquals(List.of("POST " + JOBS, "POST " + CONFIG_MAPS), writes.stream()
                .map(r -> r.getMethod() + " " + r.getPath()).toList());
        assertTrue(writes.get(1).getBody().readUtf8().contains("\"uid\":\"job-uid\""),
                "the script is not owned by its job");
    }

    private List<String> requests() throws InterruptedException {
        List<String> seen = new ArrayList<>();
        RecordedRequest r;
        while ((r = api.server.takeRequest(10, TimeUnit.MILLISECONDS)) != null) {
            seen.add(r.getMethod() + " " + r.getPath());
        }
        return seen;
    }

    private static io.fabric8.kubernetes.api.model.Status status() {
        return new StatusBuilder().withStatus("Failure").withMessage("scripted").build();
    }
}
