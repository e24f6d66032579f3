package io.camelkubeflow.trainer.job;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.camelkubeflow.trainer.api.TrainJob;
import io.fabric8.kubernetes.api.model.Status;
import io.fabric8.kubernetes.api.model.StatusBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.mockwebserver.http.RecordedRequest;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What happens between the writes of one submit when the API server fails or another replica wins the race; uses
 * the mock server in expectation mode, which scripts each answer.
 */
class TrainJobSubmitterFailureTest {
    static final String JOBS = ScriptedApiServer.JOBS;

    ScriptedApiServer api;
    TrainRequest request;
    String name;

    @BeforeEach
    void scriptedServer() throws Exception {
        api = new ScriptedApiServer();
        request = new TrainRequest()
                .runtime("torch-distributed")
                .namespace("ml")
                .script("print(1)")
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
    void aRefusedCreateWritesNothingElseAndRethrows() throws Exception {
        // e.g. the Trainer admission webhook denying the job
        api.server.expect().post().withPath(JOBS).andReturn(403, status()).once();

        KubernetesClientException error = assertThrows(
                KubernetesClientException.class, () -> new TrainJobSubmitter(api.client).submit(request, null));
        assertEquals(403, error.getCode());
        assertEquals(List.of("POST " + JOBS), writes());
    }

    @Test
    void losingTheCreateRaceAdoptsTheWinnersJobWithoutWritingAgain() throws Exception {
        TrainJob winner = stored();
        winner.getMetadata().setUid("winner-uid");
        api.server.expect().post().withPath(JOBS).andReturn(409, status()).once();
        api.server
                .expect()
                .get()
                .withPath(JOBS + "/" + name)
                .andReturn(200, winner)
                .once();

        SubmitResult result = new TrainJobSubmitter(api.client).submit(request, null);
        assertTrue(result.adopted());
        assertEquals("winner-uid", result.trainJob().getMetadata().getUid());
        assertEquals(List.of("POST " + JOBS), writes());
    }

    @Test
    void losingTheCreateRaceToAnotherScriptForTheKeyIsAConflictNamingTheScript() {
        TrainJob winner = stored();
        request.script("print(2)");
        api.server.expect().post().withPath(JOBS).andReturn(409, status()).once();
        api.server
                .expect()
                .get()
                .withPath(JOBS + "/" + name)
                .andReturn(200, winner)
                .once();

        TrainJobConflictException conflict = assertThrows(
                TrainJobConflictException.class, () -> new TrainJobSubmitter(api.client).submit(request, null));
        assertEquals(List.of("script"), conflict.getDiffering());
    }

    @Test
    void aCreateWithAScriptIsOneRequestCarryingTheScript() throws Exception {
        api.server.expect().post().withPath(JOBS).andReturn(201, stored()).once();

        new TrainJobSubmitter(api.client).submit(request, null);
        List<RecordedRequest> writes = new ArrayList<>();
        RecordedRequest next;
        while ((next = api.server.takeRequest(10, TimeUnit.MILLISECONDS)) != null) {
            if (!next.getPath().equals(ScriptedApiServer.RUNTIME_PATH)) {
                writes.add(next);
            }
        }
        assertEquals(
                List.of("POST " + JOBS),
                writes.stream().map(r -> r.getMethod() + " " + r.getPath()).toList());
        assertTrue(
                writes.get(0).getBody().readUtf8().contains("\"camelkubeflow.io/script\":\"print(1)\""),
                "the script is not in the TrainJob");
    }

    /** The requests other than reads, in order. */
    private List<String> writes() throws InterruptedException {
        return requests().stream().filter(r -> !r.startsWith("GET")).toList();
    }

    private List<String> requests() throws InterruptedException {
        List<String> seen = new ArrayList<>();
        RecordedRequest r;
        while ((r = api.server.takeRequest(10, TimeUnit.MILLISECONDS)) != null) {
            seen.add(r.getMethod() + " " + r.getPath());
        }
        return seen;
    }

    private static Status status() {
        return new StatusBuilder().withStatus("Failure").withMessage("scripted").build();
    }
}
