package io.camelkubeflow.trainer.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.camelkubeflow.trainer.KubeflowTrainerConstants;
import io.camelkubeflow.trainer.api.TrainJob;
import io.camelkubeflow.trainer.job.TrainJobConflictException;
import io.camelkubeflow.trainer.testing.Eventually;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.camel.Exchange;
import org.apache.camel.builder.RouteBuilder;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Managing TrainJobs where the real controllers act on what the component writes: suspend makes the Trainer suspend
 * the JobSet and the Job controller remove the pods, resume brings them back, delete leaves nothing behind once the
 * garbage collector is done; a retried event adopts its job under real resourceVersions; the events consumer follows
 * the status the real Trainer writes.
 */
class OperationsIT {
    private static final ResourceDefinitionContext JOBSETS = new ResourceDefinitionContext.Builder()
            .withGroup("jobset.x-k8s.io")
            .withVersion("v1alpha2")
            .withPlural("jobsets")
            .withNamespaced(true)
            .build();
    private static final String SLEEPER = "runtime=torch-distributed&numNodes=2&command=python3 -c \"import time;"
            + " print('started', flush=True); time.sleep(600)\"";
    private static RealCluster cluster;

    @BeforeAll
    static void start() throws Exception {
        cluster = RealCluster.start(OperationsIT.class);
    }

    @AfterAll
    static void stop() {
        cluster.close();
    }

    private static int pods(String job) {
        return cluster.admin
                .pods()
                .inNamespace(cluster.namespace)
                .withLabel("jobset.sigs.k8s.io/jobset-name", job)
                .list()
                .getItems()
                .size();
    }

    private static String jobName(Exchange exchange) {
        return exchange.getMessage().getHeader(KubeflowTrainerConstants.JOB_NAME, String.class);
    }

    @Test
    @Timeout(240)
    void suspendStopsThePodsResumeStartsThemAgainAndDeleteLeavesNothing() throws Exception {
        Exchange trained = cluster.request("kubeflow-trainer:train?" + SLEEPER, null);
        String job = jobName(trained);
        cluster.then("kubeflow-trainer:wait?waitFor=Running&waitTimeout=120s", trained);

        cluster.then("kubeflow-trainer:suspend", trained);
        Exchange suspended = cluster.then("kubeflow-trainer:wait?waitFor=Suspended&waitTimeout=120s", trained);
        assertEquals("Suspended", suspended.getMessage().getHeader(KubeflowTrainerConstants.STATUS));
        Eventually.await(Duration.ofSeconds(90), () -> pods(job) == 0, () -> pods(job) + " pods of a suspended job");

        cluster.then("kubeflow-trainer:resume", trained);
        Exchange running = cluster.then("kubeflow-trainer:wait?waitFor=Running&waitTimeout=120s", trained);
        assertEquals("Running", running.getMessage().getHeader(KubeflowTrainerConstants.STATUS));
        Eventually.await(Duration.ofSeconds(90), () -> pods(job) == 2, () -> pods(job) + " pods after resume");

        cluster.then("kubeflow-trainer:delete", trained);
        Eventually.await(
                Duration.ofSeconds(120),
                () -> pods(job) == 0
                        && cluster.admin
                                        .genericKubernetesResources(JOBSETS)
                                        .inNamespace(cluster.namespace)
                                        .withName(job)
                                        .get()
                                == null
                        && cluster.admin.batch().v1().jobs().inNamespace(cluster.namespace).list().getItems().stream()
                                .noneMatch(j -> j.getMetadata().getName().startsWith(job + "-")),
                () -> "left after delete: " + pods(job) + " pods, jobset "
                        + cluster.admin
                                .genericKubernetesResources(JOBSETS)
                                .inNamespace(cluster.namespace)
                                .withName(job)
                                .get());
    }

    @Test
    @Timeout(120)
    void aRetriedEventAdoptsItsJobAndADifferentRequestUnderTheSameKeyIsAConflict() {
        Map<String, Object> request = Map.of(KubeflowTrainerConstants.IDEMPOTENCY_KEY, "order-42");
        String uri = "kubeflow-trainer:train?runtime=torch-distributed&command=python3 -c \"print(42)\"&namespace="
                + cluster.namespace;
        Exchange first = cluster.template.request(uri, e -> e.getMessage().setHeaders(new HashMap<>(request)));
        Exchange again = cluster.template.request(uri, e -> e.getMessage().setHeaders(new HashMap<>(request)));
        assertEquals(null, again.getException());
        assertEquals(false, first.getMessage().getHeader(KubeflowTrainerConstants.ADOPTED));
        assertEquals(true, again.getMessage().getHeader(KubeflowTrainerConstants.ADOPTED));
        assertEquals(
                first.getMessage().getBody(TrainJob.class).getMetadata().getUid(),
                again.getMessage().getBody(TrainJob.class).getMetadata().getUid());
        Exchange other = cluster.template.request(
                uri.replace("print(42)", "print(43)"), e -> e.getMessage().setHeaders(new HashMap<>(request)));
        TrainJobConflictException conflict = assertInstanceOf(TrainJobConflictException.class, other.getException());
        assertEquals(List.of("spec.trainer.command"), conflict.getDiffering());
        assertEquals(
                1,
                cluster.admin.resources(TrainJob.class).inNamespace(cluster.namespace).list().getItems().stream()
                        .filter(j -> j.getMetadata().getName().equals(jobName(first)))
                        .count());
    }

    @Test
    @Timeout(180)
    void theEventsConsumerFollowsTheStatusTheRealTrainerWrites() throws Exception {
        List<Map<String, Object>> events = new CopyOnWriteArrayList<>();
        cluster.camel.addRoutes(new RouteBuilder() {
            @Override
            public void configure() {
                from("kubeflow-trainer:events?namespace=" + cluster.namespace)
                        .routeId("events")
                        .process(e -> events.add(new HashMap<>(e.getMessage().getHeaders())));
            }
        });
        Exchange trained = cluster.request(
                "kubeflow-trainer:train?runtime=torch-distributed&command=python3 -c"
                        + " \"import time; time.sleep(3); print('done')\"",
                null);
        String job = jobName(trained);
        cluster.then("kubeflow-trainer:wait?waitFor=Complete&waitTimeout=120s", trained);
        Eventually.await(
                Duration.ofSeconds(30),
                () -> statuses(events, job).contains("Complete"),
                () -> "events seen: " + events);
        List<String> statuses = statuses(events, job);
        assertEquals("Complete", statuses.get(statuses.size() - 1), statuses.toString());
        assertTrue(statuses.contains("Running"), "the real status shows the running child job: " + statuses);
        cluster.camel.getRouteController().stopRoute("events");
    }

    private static List<String> statuses(List<Map<String, Object>> events, String job) {
        return events.stream()
                .filter(e -> job.equals(e.get(KubeflowTrainerConstants.JOB_NAME)))
                .map(e -> String.valueOf(e.get(KubeflowTrainerConstants.STATUS)))
                .distinct()
                .toList();
    }

    /** Trains with these options, expecting a refusal that names {@code named}, and no write at the API server. */
    private static void refusedWithNothingWritten(String options, String named) throws Exception {
        long mark = cluster.auditMark();
        Exchange refused = cluster.template.request(
                "kubeflow-trainer:train?" + options + "&namespace=" + cluster.namespace,
                e -> e.getMessage().setBody(null));
        assertTrue(
                refused.getException() != null
                        && refused.getException().getMessage().contains(named),
                String.valueOf(refused.getException()));
        assertEquals(List.of(), cluster.writesSince(mark, RealCluster.ADMIN_USER), "writes the API server saw");
    }

    @Test
    @Timeout(60)
    void aRuntimeThatDoesNotExistIsRefusedAndNothingIsWritten() throws Exception {
        refusedWithNothingWritten("runtime=no-such-runtime&command=true", "no-such-runtime");
    }

    @Test
    @Timeout(60)
    void anEnvVariableTheTorchLauncherOwnsIsRefusedBeforeAnythingIsWritten() throws Exception {
        refusedWithNothingWritten("runtime=torch-distributed&command=true&env.PET_NNODES=3", "PET_NNODES");
    }

    @Test
    @Timeout(120)
    void progressEventsCountTheReadyTrainerPodsTheKubeletReports() throws Exception {
        List<Map<String, Object>> events = new CopyOnWriteArrayList<>();
        cluster.camel.addRoutes(new RouteBuilder() {
            @Override
            public void configure() {
                from("kubeflow-trainer:events?progressInterval=200ms&namespace=" + cluster.namespace)
                        .routeId("progress")
                        .filter(header(KubeflowTrainerConstants.EVENT).isEqualTo("Progress"))
                        .process(e -> events.add(new HashMap<>(e.getMessage().getHeaders())));
            }
        });
        Exchange trained = cluster.request("kubeflow-trainer:train?" + SLEEPER, null);
        String job = jobName(trained);
        Eventually.await(
                Duration.ofSeconds(90),
                () -> events.stream()
                        .anyMatch(e -> job.equals(e.get(KubeflowTrainerConstants.JOB_NAME))
                                && Integer.valueOf(2).equals(e.get(KubeflowTrainerConstants.PODS_READY))),
                () -> "progress events: " + events);
        Map<String, Object> ready = events.stream()
                .filter(e -> Integer.valueOf(2).equals(e.get(KubeflowTrainerConstants.PODS_READY)))
                .findFirst()
                .orElseThrow();
        assertEquals("pods", ready.get(KubeflowTrainerConstants.PROGRESS_SOURCE));
        assertEquals(2, ready.get(KubeflowTrainerConstants.PODS_TOTAL));
        cluster.camel.getRouteController().stopRoute("progress");
        cluster.then("kubeflow-trainer:delete", trained);
    }
}
