package io.camelkubeflow.trainer;

import static io.camelkubeflow.trainer.KubeflowTrainerConstants.*;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.camelkubeflow.trainer.access.AccessDeniedException;
import io.camelkubeflow.trainer.access.Caller;
import io.camelkubeflow.trainer.api.TrainJob;
import io.camelkubeflow.trainer.runtime.RuntimeCatalog.RuntimeLauncher;
import io.camelkubeflow.trainer.runtime.RuntimeNotFoundException;
import io.camelkubeflow.trainer.sandbox.cluster.TrainJobControllerEmulation;
import io.camelkubeflow.trainer.support.InvalidOptionException;
import io.camelkubeflow.trainer.testing.Eventually;
import io.camelkubeflow.trainer.testing.RuntimeYaml;
import io.camelkubeflow.trainer.watch.TrainJobObjectEvent;
import io.camelkubeflow.trainer.watch.TrainJobStep;
import io.fabric8.kubernetes.api.model.rbac.PolicyRuleBuilder;
import io.fabric8.kubernetes.api.model.rbac.RoleBindingBuilder;
import io.fabric8.kubernetes.api.model.rbac.RoleBuilder;
import io.fabric8.mockwebserver.http.RecordedRequest;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.camel.Exchange;
import org.apache.camel.builder.RouteBuilder;
import org.junit.jupiter.api.Test;

/**
 * What the Kubeflow SDK's TrainerClient reads, read through the component: a job's steps (get, wait, list), its
 * Kubernetes Events (events in to()), one runtime by name (runtimes with runtime) and the jobs of one runtime (list
 * with runtime), against the sandbox.
 */
class JobReadsTest extends TrainerRouteTestSupport {
    private static final String TRAIN = "kubeflow-trainer:train?namespace=reads&pythonFile=/app/t.py";

    private static Exchange trainAndWait(String options, Map<String, Object> headers) {
        Exchange trained = send(TRAIN + options, null, headers);
        assertNull(trained.getException());
        return template.send("kubeflow-trainer:wait?throwOnFailure=false", trained);
    }

    @SuppressWarnings("unchecked")
    private static List<TrainJobStep> steps(Exchange exchange) {
        assertNull(exchange.getException());
        return (List<TrainJobStep>) exchange.getMessage().getHeader(STEPS, List.class);
    }

    @Test
    void aTwoNodeJobHasAStepPerNodeWithItsPodPhaseAndDevice() {
        Exchange done = trainAndWait("&runtime=torch-distributed&numNodes=2&gpu=2", Map.of());
        List<TrainJobStep> steps = steps(done);
        assertEquals(
                List.of("node-0", "node-1"),
                steps.stream().map(TrainJobStep::name).toList());
        for (TrainJobStep step : steps) {
            assertEquals("Succeeded", step.status());
            assertEquals("gpu", step.device());
            assertEquals("2", step.deviceCount());
            assertTrue(
                    step.podName()
                            .startsWith(done.getMessage().getHeader(JOB_NAME) + "-node-0-"
                                    + step.name().substring("node-".length()) + "-"),
                    step.podName());
        }
        // get answers the same steps; with processes per node given, they are the device count (PET_NPROC_PER_NODE)
        assertEquals(steps, steps(template.send("kubeflow-trainer:get", done)));
        List<TrainJobStep> perProcess =
                steps(trainAndWait("&runtime=torch-distributed&cpu=2&numProcPerNode=3", Map.of()));
        assertEquals(
                List.of(new TrainJobStep(
                        "node-0", "Succeeded", "cpu", "3", perProcess.get(0).podName())),
                perProcess);
    }

    @Test
    void theEventsConsumersStatusExchangesCarryTheSteps() throws Exception {
        Map<String, Object> complete = new ConcurrentHashMap<>();
        camel.addRoutes(new RouteBuilder() {
            @Override
            public void configure() {
                from("kubeflow-trainer:events?namespace=reads-other")
                        .routeId("reads-steps")
                        .filter(header(EVENT).isEqualTo("Complete"))
                        .process(e -> complete.put(
                                e.getMessage().getHeader(JOB_NAME, String.class),
                                e.getMessage().getHeader(STEPS)));
            }
        });
        Exchange trained = send(
                "kubeflow-trainer:train?namespace=reads-other&pythonFile=/app/t.py"
                        + "&runtime=torch-distributed&numNodes=2",
                null,
                Map.of());
        String name = trained.getMessage().getHeader(JOB_NAME, String.class);
        Eventually.await(
                Duration.ofSeconds(30), () -> complete.containsKey(name), () -> "no Complete event of " + name);
        camel.getRouteController().stopRoute("reads-steps");
        assertEquals(
                List.of("node-0 Succeeded", "node-1 Succeeded"),
                ((List<?>) complete.get(name))
                        .stream()
                                .map(step -> ((TrainJobStep) step).name() + " " + ((TrainJobStep) step).status())
                                .toList());
    }

    @Test
    void anMpiJobsLauncherIsNodeZeroAndItsNodesFollow() {
        Exchange done = trainAndWait("&runtime=deepspeed-distributed&numNodes=3", Map.of());
        String name = done.getMessage().getHeader(JOB_NAME, String.class);
        List<TrainJobStep> steps = steps(done);
        assertEquals(
                List.of("node-0", "node-1", "node-2"),
                steps.stream().map(TrainJobStep::name).toList());
        assertTrue(
                steps.get(0).podName().startsWith(name + "-launcher-0-0-"),
                steps.get(0).podName());
        assertTrue(
                steps.get(1).podName().startsWith(name + "-node-0-0-"),
                steps.get(1).podName());
        assertTrue(
                steps.get(2).podName().startsWith(name + "-node-0-1-"),
                steps.get(2).podName());
    }

    @Test
    void theEventsOfAFailedJobComeInTimeOrderEachWithItsStep() {
        Exchange done = trainAndWait(
                "&runtime=torch-distributed",
                Map.of(ANNOTATIONS, Map.of(TrainJobControllerEmulation.OUTCOME_ANNOTATION, "Failed")));
        assertEquals("Failed", done.getMessage().getHeader(STATUS));
        String name = done.getMessage().getHeader(JOB_NAME, String.class);
        api.mark();
        Exchange read = template.send("kubeflow-trainer:events", done);
        assertNull(read.getException());
        List<TrainJobObjectEvent> events = read.getMessage().getBody(List.class);
        List<String> seen = events.stream()
                .map(e -> e.kind() + " " + e.reason() + " " + e.step())
                .toList();
        assertEquals(
                List.of(
                        "Job SuccessfulCreate node-0",
                        "Pod Scheduled node-0",
                        "Pod Pulled node-0",
                        "Pod Created node-0",
                        "Pod Started node-0",
                        "Pod BackOff node-0",
                        "Job SuccessfulDelete node-0",
                        "Job BackoffLimitExceeded node-0",
                        "JobSet FailedJobs null"),
                seen);
        TrainJobObjectEvent created = events.get(0);
        assertEquals(name + "-node-0", created.name());
        assertTrue(created.message().startsWith("Created pod: " + name + "-node-0-0-"), created.message());
        assertEquals("Warning", events.get(events.size() - 1).type());
        assertEquals(1, created.count());
        for (int i = 1; i < events.size(); i++) {
            assertTrue(!Instant.parse(events.get(i - 1).firstTimestamp())
                    .isAfter(Instant.parse(events.get(i).firstTimestamp())));
        }
        // the job read, the namespace's Events listed: nothing else, nothing written
        assertEquals(
                List.of(
                        "GET /apis/trainer.kubeflow.org/v1alpha1/namespaces/reads/trainjobs/" + name,
                        "GET /api/v1/namespaces/reads/events"),
                api.requestsSinceMark().stream()
                        .map(r -> r.getMethod() + " " + r.getPath().replaceAll("\\?.*", ""))
                        .toList());
        assertEquals("Failed", read.getMessage().getHeader(STATUS));
    }

    @Test
    void readingEventsNeedsTheRightToListThemAndAJobName() {
        Exchange trained = send(TRAIN + "&runtime=torch-distributed", null, Map.of());
        assertNull(trained.getException());
        api.client()
                .resource(new RoleBuilder()
                        .withNewMetadata()
                        .withName("job-reader")
                        .withNamespace("reads")
                        .endMetadata()
                        .withRules(new PolicyRuleBuilder()
                                .withApiGroups("trainer.kubeflow.org")
                                .withResources("trainjobs")
                                .withVerbs("get")
                                .build())
                        .build())
                .create();
        api.client()
                .resource(new RoleBindingBuilder()
                        .withNewMetadata()
                        .withName("carol")
                        .withNamespace("reads")
                        .endMetadata()
                        .addNewSubject()
                        .withKind("User")
                        .withName("carol")
                        .endSubject()
                        .withNewRoleRef()
                        .withApiGroup("rbac.authorization.k8s.io")
                        .withKind("Role")
                        .withName("job-reader")
                        .endRoleRef()
                        .build())
                .create();
        Exchange asked = trained.copy();
        asked.setProperty(CALLER_PROPERTY, new Caller("carol", List.of()));
        api.mark();
        Exchange refused = template.send("kubeflow-trainer:events?authorizeCaller=true", asked);
        assertEquals(
                "caller 'carol' may not list events in namespace reads",
                assertInstanceOf(AccessDeniedException.class, refused.getException())
                        .getMessage());
        assertTrue(api.requestsSinceMark().stream().noneMatch(r -> r.getPath().contains("/events")));

        Exchange unnamed = template.send(
                "kubeflow-trainer:events?namespace=reads", e -> e.getMessage().setHeader(JOB_NAME, "Not_A_Name"));
        assertEquals(
                JOB_NAME,
                assertInstanceOf(InvalidOptionException.class, unnamed.getException())
                        .getField());
    }

    @Test
    void aRuntimeByNameIsTheNamespacesBeforeTheClustersAndAMissingOneIsNotFound() {
        api.createRuntime(RuntimeYaml.of("torch-distributed", "reads", "deepspeed", "{mpi: {}}", "example.com/ds:1"));
        Exchange shadowed =
                template.send("kubeflow-trainer:runtimes?namespace=reads&runtime=torch-distributed", e -> {});
        assertNull(shadowed.getException());
        RuntimeLauncher own = shadowed.getMessage().getBody(RuntimeLauncher.class);
        assertEquals("TrainingRuntime", own.kind());
        assertEquals("reads", own.namespace());
        assertEquals("mpirun", own.launcher());

        Exchange cluster = template.send(
                "kubeflow-trainer:runtimes?namespace=reads-other",
                e -> e.getMessage().setHeader(RUNTIME, "torch-distributed"));
        RuntimeLauncher clusters = cluster.getMessage().getBody(RuntimeLauncher.class);
        assertEquals("ClusterTrainingRuntime", clusters.kind());
        assertEquals("torchrun", clusters.launcher());
        assertEquals("ML_POLICY", clusters.rule());

        Exchange missing = template.send("kubeflow-trainer:runtimes?namespace=reads&runtime=no-such-runtime", e -> {});
        RuntimeNotFoundException notFound = assertInstanceOf(RuntimeNotFoundException.class, missing.getException());
        assertEquals(RUNTIME, notFound.getField());
        api.mark();
        Exchange bad = template.send(
                "kubeflow-trainer:runtimes?namespace=reads", e -> e.getMessage().setHeader(RUNTIME, "../secrets/x"));
        assertEquals(
                RUNTIME,
                assertInstanceOf(InvalidOptionException.class, bad.getException())
                        .getField());
        assertEquals(List.of(), api.requestsSinceMark(), "a bad name is refused before any request");
    }

    @Test
    void listByRuntimeAnswersOnlyItsJobsWithTheirStepsAndNoRequestPerJob() {
        String torch = trainAndWait("&runtime=torch-distributed&labels.reads=by-runtime", Map.of())
                .getMessage()
                .getHeader(JOB_NAME, String.class);
        String mpi = trainAndWait("&runtime=deepspeed-distributed&labels.reads=by-runtime", Map.of())
                .getMessage()
                .getHeader(JOB_NAME, String.class);
        String list = "kubeflow-trainer:list?namespace=reads&labelSelector=reads=by-runtime";
        template.send(list, e -> {});
        api.mark();
        Exchange listed = template.send(list + "&runtime=deepspeed-distributed", e -> {});
        assertNull(listed.getException());
        assertEquals(
                List.of(mpi),
                listed.getMessage().getBody(List.class).stream()
                        .map(job -> ((TrainJob) job).getMetadata().getName())
                        .toList());
        Map<?, ?> steps = listed.getMessage().getHeader(STEPS, Map.class);
        assertEquals(List.of("reads/" + mpi), List.copyOf(steps.keySet()));
        assertEquals(2, ((List<?>) steps.get("reads/" + mpi)).size());
        List<RecordedRequest> requests = api.requestsSinceMark();
        assertEquals(
                1,
                requests.size(),
                "one LIST of TrainJobs, the steps from the informers: "
                        + requests.stream().map(RecordedRequest::getPath).toList());

        Exchange byHeader = template.send(list, e -> e.getMessage().setHeader(RUNTIME, "torch-distributed"));
        assertEquals(
                List.of(torch),
                byHeader.getMessage().getBody(List.class).stream()
                        .map(job -> ((TrainJob) job).getMetadata().getName())
                        .toList());
    }
}
