package io.camelkubeflow.trainer;

import static io.camelkubeflow.trainer.KubeflowTrainerConstants.*;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.camelkubeflow.trainer.api.TrainJob;
import io.camelkubeflow.trainer.api.TrainJobNotFoundException;
import io.camelkubeflow.trainer.runtime.RuntimeCatalog.RuntimeLauncher;
import io.camelkubeflow.trainer.support.InvalidOptionException;
import io.camelkubeflow.trainer.testing.RuntimeYaml;
import io.fabric8.mockwebserver.http.RecordedRequest;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.camel.Exchange;
import org.apache.camel.ResolveEndpointFailedException;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Test;

/** get, list, suspend, resume, delete and runtimes against the sandbox. */
class OperationsTest extends TrainerRouteTestSupport {
    static final String TRAIN = "kubeflow-trainer:train?runtime=torch-distributed&namespace=ops&pythonFile=/app/t.py";

    static Exchange train(String key, String team) {
        Exchange trained = send(TRAIN + "&labels.team=" + team, null, Map.of(IDEMPOTENCY_KEY, key));
        assertNull(trained.getException());
        return trained;
    }

    @Test
    void getReadsTheJobAsItIsNowAndAMissingOneIsNotFound() {
        Exchange trained = train("get-1", "a");
        Exchange read = template.send("kubeflow-trainer:get", trained);
        assertNull(read.getException());
        assertEquals(
                trained.getMessage().getHeader(JOB_UID),
                read.getMessage().getBody(TrainJob.class).getMetadata().getUid());
        assertEquals("Created", read.getMessage().getHeader(STATUS));

        Exchange missing = template.send(
                "kubeflow-trainer:get?namespace=ops", e -> e.getMessage().setHeader(JOB_NAME, "no-such-job"));
        assertInstanceOf(TrainJobNotFoundException.class, missing.getException());
    }

    @Test
    void listSelectsByLabel() {
        String a = train("list-1", "vision").getMessage().getHeader(JOB_NAME, String.class);
        train("list-2", "speech");
        Exchange listed = template.send("kubeflow-trainer:list?namespace=ops&labelSelector=team=vision", e -> {});
        assertNull(listed.getException());
        List<?> jobs = listed.getMessage().getBody(List.class);
        assertEquals(
                List.of(a),
                jobs.stream().map(j -> ((TrainJob) j).getMetadata().getName()).toList());
    }

    @Test
    void suspendAndResumeSetSpecSuspend() {
        Exchange trained = train("pause-1", "a");
        Exchange suspended = template.send("kubeflow-trainer:suspend", trained);
        assertNull(suspended.getException());
        assertEquals(
                true, suspended.getMessage().getBody(TrainJob.class).getSpec().suspend());
        Exchange resumed = template.send("kubeflow-trainer:resume", trained);
        assertEquals(
                false, resumed.getMessage().getBody(TrainJob.class).getSpec().suspend());
        assertInstanceOf(
                TrainJobNotFoundException.class,
                template.send(
                                "kubeflow-trainer:suspend?namespace=ops",
                                e -> e.getMessage().setHeader(JOB_NAME, "no-such-job"))
                        .getException());
    }

    @Test
    void deleteRemovesTheJobWithTheChosenPropagationAndIsIdempotent() {
        Exchange trained = train("delete-1", "a");
        String name = trained.getMessage().getHeader(JOB_NAME, String.class);
        api.mark();
        Exchange deleted = template.send("kubeflow-trainer:delete?deletePropagation=Foreground", trained);
        assertNull(deleted.getException());
        assertEquals(true, deleted.getMessage().getHeader(DELETED));
        assertNull(api.client()
                .resources(TrainJob.class)
                .inNamespace("ops")
                .withName(name)
                .get());
        RecordedRequest delete = api.requestsSinceMark().stream()
                .filter(r -> "DELETE".equals(r.getMethod()))
                .findFirst()
                .orElseThrow();
        assertTrue(delete.getBody().readUtf8().contains("\"propagationPolicy\":\"Foreground\""));

        Exchange again = template.send(
                "kubeflow-trainer:delete?namespace=ops", e -> e.getMessage().setHeader(JOB_NAME, name));
        assertNull(again.getException());
        assertEquals(false, again.getMessage().getHeader(DELETED));

        Exception bad = assertInstanceOf(
                ResolveEndpointFailedException.class,
                Assertions.assertThrows(
                        Exception.class,
                        () -> template.sendBody("kubeflow-trainer:delete?deletePropagation=Later", null)));
        assertEquals(
                "deletePropagation",
                assertInstanceOf(InvalidOptionException.class, bad.getCause()).getField());
    }

    @Test
    void runtimesTellTheLauncherEachWouldGetAndWhy() {
        api.createRuntime(RuntimeYaml.of("team-mpi", "ops", "deepspeed", "{mpi: {}}", "registry.example.com/ds:1"));
        Exchange listed = template.send(
                "kubeflow-trainer:runtimes?namespace=ops&imageRules=registry.example.com/*=" + "mpirun", e -> {});
        assertNull(listed.getException());
        Map<String, RuntimeLauncher> byName = new HashMap<>();
        for (Object runtime : listed.getMessage().getBody(List.class)) {
            RuntimeLauncher launcher = (RuntimeLauncher) runtime;
            byName.put(launcher.name(), launcher);
        }
        assertEquals("torchrun", byName.get("torch-distributed").launcher());
        assertEquals("ML_POLICY", byName.get("torch-distributed").rule());
        assertEquals("mpirun", byName.get("deepspeed-distributed").launcher());
        assertEquals("builtin", byName.get("torchtune-llama3.2-1b").launcher());
        assertEquals("TrainingRuntime", byName.get("team-mpi").kind());
        assertEquals("IMAGE_RULE", byName.get("team-mpi").rule());
        assertTrue(
                byName.get("team-mpi").reason().contains("registry.example.com/*"),
                byName.get("team-mpi").reason());
    }
}
