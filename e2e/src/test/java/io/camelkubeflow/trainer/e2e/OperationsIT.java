package io.camelkubeflow.trainer.e2e;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import io.camelkubeflow.trainer.KubeflowTrainerConstants;
import io.camelkubeflow.trainer.job.TrainJobConflictException;
import io.camelkubeflow.trainer.api.TrainJob;
import io.camelkubeflow.trainer.testing.Eventually;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import org.apache.camel.Exchange;
import org.apache.camel.builder.RouteBuilder;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Managing TrainJobs where the real controllers act on what the component writes: suspend makes the Trainer suspend
 * the JobSet and the Job controller remove the pods, resume brings them back, delete leaves nothing behind once the
 * garbage collector is done; a retried event adopts its job under real resourceVersions; the events consumer follows
 * the status the real Trainer writes.
 */
class OperationsIT {
    private static final ResourceDefinitionContext JOBSETS = new ResourceDefinitionContext.Builder()
            .withGroup("jobset.x-k8s.io").withVersion("v1alpha2").withPlural("jobsets").withNamespaced(true).build();
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
        return cluster.admin.pods().inNamespace(cluster.namespace).withLabel("jobset.sigs.k8s.io/jobset-name", job)
                .list().getItems().size();
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
        Eventually.await(Duration.ofSeconds(120), () -> pods(job) == 0 && cluster.admin.genericKubernetesResources(
                JOBSETS).inNamespace(cluster.namespace).withName(job).get() == null
                && cluster.admin.batch().v1().jobs().inNamespace(cluster.namespace).list().getItems().stream()
                        .noneMatch(j -> j.getMetadata().getName().startsWith(job + "-")),
                () -> "left after delete: " + pods(job) + " pods, jobset " + cluster.admin.genericKubernetesResources(
                        JOBSETS).inNamespace(cluster.namespace).withName(job).get());
    }

    @Test
    @Timeout(120)
    void aRetriedEventAdoptsItsJobAndADifferentRequestUnderTheSameKeyIsAConflict() {
        Map<String, Object> request = Map.of(KubeflowTrainerConstants.IDEMPOTENCY_KEY, "order-42");
        String uri = "kubeflow-trainer:train?runtime=torch-distributed&command=python3 -c \"print(42)\"&namespace="
                + cluster.namespace;
        Exchange first = cluster.template.request(uri, e -> e.getMessage().setHeaders(new java.util.HashMap<>(request)));
        Exchange again = cluster.template.request(uri, e -> e.getMessage().setHeaders(new java.util.HashMap<>(request)));
        assertEquals(null, again.getException());
        assertEquals(false, first.getMessage().getHeader(KubeflowTrainerConstants.ADOPTED));
        assertEquals(true, again.getMessage().getHeader(KubeflowTrainerConstants.ADOPTED));
        assertEquals(first.getMessage().getBody(TrainJob.class).getMetadata().getUid(),
                again.getMessage().getBody(TrainJob.class).getMetadata().getUid());
        Exchange other = cluster.template.request(uri.replace("print(42)", "print(43)"),
                e -> e.getMessage().setHeaders(new java.util.HashMap<>(request)));
        TrainJobConflictException conflict = assertInstanceOf(TrainJobConflictException.class, other.getException());
        assertEquals(List.of("spec.trainer.command"), conflict.getDiffering());
        assertEquals(1, cluster.admin.resources(TrainJob.class).inNamespace(cluster.namespace).list().getItems()
                .stream().filter(j -> j.getMetadata().getName().equals(jobName(first))).count());
    }

    @Test
    @Timeout(180)
    void theEventsConsumerFollowsTheStatusTheRealTrainerWrites() throws Exception {
        List<Map<String, Object>> events = new CopyOnWriteArrayList<>();
        cluster.camel.addRoutes(new RouteBuilder() {
            @Override
            public void configure() {
                from("kubeflow-trainer:events?namespace=" + cluster.namespace).routeId("events")
                        .process(e -> events.add(new java.util.HashMap<>(e.getMessage().getHeaders())));
            }
        });
        Exchange trained = cluster.request("kubeflow-trainer:train?runtime=torch-distributed&command=python3 -c"
                + " \"import time; time.sleep(3); print('done')\"", null);
        String job = jobName(trained);
        cluster.then("kubeflow-trainer:wait?waitFor=Complete&waitTimeout=120s", trained);
        Eventually.await(Duration.ofSeconds(30), () -> statuses(events, job).contains("Complete"),
                () -> "events seen: " + events);
        List<String> statuses = statuses(events, job);
        assertEquals("Complete", statuses.get(statuses.size() - 1), statuses.toString());
        assertTrue(statuses.contains("Running"), "the real status shows the running child job: " + statuses);
        cluster.camel.getRouteController().stopRoute("events");
    }

    private static List<String> statuses(List<Map<String, Object>> events, String job) {
        return events.stream().filter(e -> job.equals(e.get(KubeflowTrainerConstants.JOB_NAME)))
                .map(e -> String.valueOf(e.get(KubeflowTrainerConstants.STATUS))).distinct().toList();
    }

    @Test
    @Timeout(60)
    void aRuntimeThatDoesNotExistIsRefusedAndNothingIsWritten() {
        int before = cluster.admin.resources(TrainJob.class).inNamespace(cluster.namespace).list().getItems().size();
        Exchange refused = cluster.template.request("kubeflow-trainer:train?runtime=no-such-runtime&command=true"
                + "&namespace=" + cluster.namespace, e -> e.getMessage().setBody(null));
        assertTrue(refused.getException() != null && refused.getException().getMessage().contains("no-such-runtime"),
                String.valueOf(refused.getException()));
        assertEquals(before, cluster.admin.resources(TrainJob.class).inNamespace(cluster.namespace).list().getItems()
                .size());
    }

    @Test
    @Timeout(60)
    void anEnvVariableTheTorchLauncherOwnsIsRefusedBeforeAnythingIsWritten() {
        int before = cluster.admin.resources(TrainJob.class).inNamespace(cluster.namespace).list().getItems().size();
        Exchange refused = cluster.template.request("kubeflow-trainer:train?runtime=torch-distributed&command=true"
                + "&env.PET_NNODES=3&namespace=" + cluster.namespace, e -> e.getMessage().setBody(null));
        assertTrue(refused.getException() != null && refused.getException().getMessage().contains("PET_NNODES"),
                String.valueOf(refused.getException()));
        assertEquals(before, cluster.admin.resources(TrainJob.class).inNamespace(cluster.namespace).list().getItems()
                .size());
    }
}
