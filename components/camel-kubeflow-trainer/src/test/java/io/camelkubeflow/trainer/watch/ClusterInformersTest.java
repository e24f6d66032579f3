package io.camelkubeflow.trainer.watch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.camelkubeflow.trainer.api.TrainJob;
import io.camelkubeflow.trainer.api.TrainJobRef;
import io.camelkubeflow.trainer.runtime.RuntimeKind;
import io.camelkubeflow.trainer.sandbox.TrainerSandbox;
import io.camelkubeflow.trainer.testing.Eventually;
import io.camelkubeflow.trainer.testing.TrainerApiServer;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CopyOnWriteArraySet;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** One informer per scope, each named for the watch monitor, all stopped by close; against the sandbox's API server. */
class ClusterInformersTest {
    private static final Duration DEADLINE = Duration.ofSeconds(30);
    private TrainerSandbox sandbox;
    private final Set<String> reconnected = new CopyOnWriteArraySet<>();
    private WatchConnectionMonitor monitor;
    private ClusterInformers informers;

    @BeforeEach
    void start() {
        sandbox = TrainerSandbox.start();
        TrainerApiServer.createNamespaces(sandbox);
        monitor = new WatchConnectionMonitor((watch, down) -> reconnected.add(watch));
        informers = new ClusterInformers(sandbox.client(), monitor);
    }

    @AfterEach
    void stop() {
        informers.close();
        monitor.close();
        sandbox.close();
    }

    /**
     * Issue 43's finding 5, shown not to close: a read that held its lock while replacing an informer would deadlock
     * only if closing an informer waited for one of its handlers that waits for that lock. fabric8 runs handlers on
     * its executor outside its processor's lock, and closing does not wait for them: the close below ends while the
     * handler still waits for the lock this thread holds (the read no longer holds its lock there anyway).
     */
    @Test
    void closingAnInformerDoesNotWaitForItsHandlerWaitingOnTheCloser() throws Exception {
        Object readLock = new Object();
        CountDownLatch handling = new CountDownLatch(1);
        SharedIndexInformer<Pod> pods = informers.trainJobPods("team-a");
        pods.addEventHandler(new ResourceEventHandler<>() {
            @Override
            public void onAdd(Pod pod) {
                handling.countDown();
                synchronized (readLock) {
                    // waits for the closer
                }
            }

            @Override
            public void onUpdate(Pod before, Pod pod) {}

            @Override
            public void onDelete(Pod pod, boolean unknown) {}
        });
        synchronized (readLock) {
            pod("team-a", "locked", "locked-node-0-0", "node");
            assertTrue(handling.await(DEADLINE.toSeconds(), TimeUnit.SECONDS), "the handler never ran");
            CompletableFuture<Void> closed = CompletableFuture.runAsync(pods::close);
            closed.get(DEADLINE.toSeconds(), TimeUnit.SECONDS);
            assertFalse(pods.isRunning());
        }
    }

    private void job(String namespace, String name, String labels) {
        sandbox.client()
                .resources(TrainJob.class)
                .inNamespace(namespace)
                .resource(Serialization.unmarshal("""
                apiVersion: trainer.kubeflow.org/v1alpha1
                kind: TrainJob
                metadata: {name: %s, labels: {%s}}
                spec: {runtimeRef: {name: torch-distributed}}
                """.formatted(name, labels), TrainJob.class))
                .create();
    }

    private Pod pod(String namespace, String job, String name, String replicatedJob) {
        return sandbox.client()
                .pods()
                .inNamespace(namespace)
                .resource(Serialization.unmarshal("""
                metadata: {name: %s, labels: {jobset.sigs.k8s.io/jobset-name: %s,
                  jobset.sigs.k8s.io/replicatedjob-name: %s}}
                spec: {containers: [{name: node, image: i}]}
                """.formatted(name, job, replicatedJob), Pod.class))
                .create();
    }

    private static List<String> names(SharedIndexInformer<TrainJob> informer) {
        return informer.getStore().list().stream()
                .map(j -> j.getMetadata().getNamespace() + "/" + j.getMetadata().getName())
                .sorted()
                .toList();
    }

    @Test
    void eachScopeHasOneInformerWithTheJobsOfItsScope() {
        job("team-a", "one", "team: vision");
        job("team-a", "two", "team: nlp");
        job("team-b", "three", "team: vision");
        assertSame(informers.trainJobs("team-a", null), informers.trainJobs("team-a", " "));
        assertEquals(List.of("team-a/one", "team-a/two"), names(informers.trainJobs("team-a", null)));
        assertEquals(List.of("team-a/one"), names(informers.trainJobs("team-a", "team=vision")));
        assertEquals(List.of("team-a/one", "team-b/three"), names(informers.trainJobs(null, "team=vision")));
        assertNotSame(informers.trainJobs("team-a", null), informers.trainJobs("team-b", null));

        assertSame(
                informers.runtimes(RuntimeKind.ClusterTrainingRuntime, "team-a"),
                informers.runtimes(RuntimeKind.ClusterTrainingRuntime, "team-b"));
        assertNotSame(
                informers.runtimes(RuntimeKind.TrainingRuntime, "team-a"),
                informers.runtimes(RuntimeKind.TrainingRuntime, "team-b"));
        assertSame(informers.trainJobPods("team-a"), informers.trainJobPods("team-a"));
    }

    /** A wait's listener on a shared informer: the changes of its namespace, from now on, nothing else. */
    @Test
    void aListenerHearsTheChangesOfItsNamespaceOnlyAndIsNotReplayedTheCache() throws Exception {
        job("team-a", "before", "team: vision");
        SharedIndexInformer<TrainJob> all = informers.trainJobs(null, null);
        List<String> heard = new CopyOnWriteArrayList<>();
        informers.listen(all, "team-a", new ResourceEventHandler<>() {
            @Override
            public void onAdd(TrainJob job) {
                heard.add(job.getMetadata().getNamespace() + "/"
                        + job.getMetadata().getName());
            }

            @Override
            public void onUpdate(TrainJob before, TrainJob job) {}

            @Override
            public void onDelete(TrainJob job, boolean unknown) {}
        });
        job("team-b", "elsewhere", "team: vision");
        job("team-a", "after", "team: vision");
        // one informer hands on its changes in order: once after is heard, elsewhere was handed on before it
        Eventually.await(DEADLINE, () -> heard.contains("team-a/after"), heard::toString);
        assertEquals(List.of("team-a/after"), heard);
    }

    @Test
    void onceAnAllNamespacesInformerRunsItServesTheWaitsOfEveryNamespace() {
        SharedIndexInformer<TrainJob> own = informers.trainJobsServing("team-a");
        assertSame(informers.trainJobs("team-a", null), own, "before, a namespace's own");
        SharedIndexInformer<Pod> ownPods = informers.trainJobPods("team-a");
        SharedIndexInformer<TrainJob> all = informers.trainJobs(null, null);
        SharedIndexInformer<Pod> allPods = informers.trainJobPods(null);
        assertSame(all, informers.trainJobsServing("team-a"));
        assertSame(all, informers.trainJobsServing("team-b"));
        assertSame(allPods, informers.trainJobPods("team-a"));
        assertSame(allPods, informers.trainJobPods("team-b"));
        assertNotSame(
                informers.trainJobs(null, "team=vision"),
                informers.trainJobsServing("team-b"),
                "one with a selector misses jobs: it serves no wait");
        // an events consumer of one namespace still reads that namespace's own
        assertSame(own, informers.trainJobs("team-a", null));
        assertTrue(ownPods.isRunning());
    }

    @Test
    void jobsAreCachedWithoutTheirManagedFieldsAndPodsAsSummaries() throws Exception {
        String managedFields = """
                managedFields: [{manager: trainer, operation: Apply, apiVersion: v1,
                  fieldsType: FieldsV1, fieldsV1: {"f:metadata": {"f:labels": {}}}}]""";
        sandbox.client()
                .resources(TrainJob.class)
                .inNamespace("team-a")
                .resource(Serialization.unmarshal("""
                apiVersion: trainer.kubeflow.org/v1alpha1
                kind: TrainJob
                metadata: {name: applied, %s}
                spec: {runtimeRef: {name: torch-distributed}}
                """.formatted(managedFields), TrainJob.class))
                .create();
        sandbox.client()
                .pods()
                .inNamespace("team-a")
                .resource(Serialization.unmarshal("""
                metadata: {name: applied-node-0-0, labels: {jobset.sigs.k8s.io/jobset-name: applied, other: x},
                  annotations: {a: b}, %s}
                spec: {containers: [{name: node, image: i}]}
                """.formatted(managedFields), Pod.class))
                .create();
        // what the cache would otherwise hold: the server keeps them
        assertFalse(
                sandbox.client()
                        .resources(TrainJob.class)
                        .inNamespace("team-a")
                        .withName("applied")
                        .get()
                        .getMetadata()
                        .getManagedFields()
                        .isEmpty(),
                "the API server dropped the managed fields");

        SharedIndexInformer<TrainJob> jobs = informers.trainJobs("team-a", null);
        assertNoManagedFields(jobs.getStore().getByKey("team-a/applied"));
        Eventually.await(
                DEADLINE,
                () -> informers
                                .podsOf("team-a", new TrainJobRef("team-a", "applied"))
                                .size()
                        == 1,
                () -> "the pod never reached the cache");
        Pod cached =
                informers.podsOf("team-a", new TrainJobRef("team-a", "applied")).get(0);
        assertNoManagedFields(cached);
        assertEquals(
                Map.of("jobset.sigs.k8s.io/jobset-name", "applied"),
                cached.getMetadata().getLabels());
        assertEquals(Map.of(), cached.getMetadata().getAnnotations());
        assertEquals(null, cached.getSpec().getContainers().get(0).getImage());
    }

    private static void assertNoManagedFields(HasMetadata cached) {
        var fields = cached.getMetadata().getManagedFields();
        assertTrue(fields == null || fields.isEmpty(), "cached with its managed fields: " + fields);
    }

    @Test
    void podsAreFoundByTheirJobInTheNamespaceOrAllNamespaces() throws Exception {
        pod("team-a", "one", "one-node-0-0", "node");
        pod("team-a", "two", "two-node-0-0", "node");
        pod("team-b", "one", "one-node-0-0", "node");
        Eventually.await(
                DEADLINE,
                () -> informers
                                        .podsOf("team-a", new TrainJobRef("team-a", "one"))
                                        .size()
                                == 1
                        && informers
                                        .podsOf(null, new TrainJobRef("team-b", "one"))
                                        .size()
                                == 1,
                () -> "pods not indexed by their job");
        assertEquals(
                "team-a",
                informers
                        .podsOf("team-a", new TrainJobRef("team-a", "one"))
                        .get(0)
                        .getMetadata()
                        .getNamespace());
    }

    @Test
    void awaitPodsCompletesOnceTheLabelledPodsMeetTheConditionAndStopsLooking() throws Exception {
        pod("waits", "job", "job-initializer-0-0", "dataset-initializer");
        CompletableFuture<List<Pod>> two = informers.awaitPods(
                "waits", "job", Map.of("jobset.sigs.k8s.io/replicatedjob-name", "node"), pods -> pods.size() == 2);
        CompletableFuture<List<Pod>> any = informers.awaitPods("waits", "job", Map.of(), pods -> !pods.isEmpty());
        assertEquals(1, any.get(10, TimeUnit.SECONDS).size(), "a pod already there is found at once");
        pod("waits", "job", "job-node-0-0", "node");
        pod("waits", "other", "other-node-0-0", "node");
        assertFalse(two.isDone());
        pod("waits", "job", "job-node-0-1", "node");
        assertEquals(
                List.of("job-node-0-0", "job-node-0-1"),
                two.get(10, TimeUnit.SECONDS).stream()
                        .map(p -> p.getMetadata().getName())
                        .sorted()
                        .toList());
    }

    @Test
    void everyInformerIsMonitoredUnderTheNameOfItsWatch() throws Exception {
        informers.trainJobs("team-a", null);
        informers.trainJobs(null, "team=vision");
        informers.trainJobPods("team-a");
        informers.trainJobPods(null);
        informers.runtimes(RuntimeKind.ClusterTrainingRuntime, "team-a");
        informers.runtimes(RuntimeKind.TrainingRuntime, "team-a");
        // lost for as long as it takes the monitor to see all six down, then back
        Eventually.await(DEADLINE, () -> monitor.connected() == 6, () -> "connected: " + monitor.connected());
        sandbox.stopApiServer();
        Eventually.await(DEADLINE, () -> monitor.disconnected() == 6, () -> "down: " + monitor.disconnected());
        sandbox.startApiServer();
        Set<String> expected = Set.of(
                "trainjobs/team-a",
                "trainjobs/all-namespaces?team=vision",
                "pods/team-a",
                "pods/all-namespaces",
                "clustertrainingruntimes",
                "trainingruntimes/team-a");
        Eventually.await(DEADLINE, () -> reconnected.equals(expected), () -> "reconnected: " + reconnected);
    }

    @Test
    void closeStopsEveryInformerAndForgetsThemAndANewOneCanBeHadAfter() throws Exception {
        SharedIndexInformer<TrainJob> jobs = informers.trainJobs("team-a", null);
        SharedIndexInformer<Pod> pods = informers.trainJobPods("team-a");
        var runtimes = informers.runtimes(RuntimeKind.ClusterTrainingRuntime, null);
        Eventually.await(DEADLINE, () -> monitor.connected() == 3, () -> "connected: " + monitor.connected());
        sandbox.stopApiServer();
        Eventually.await(DEADLINE, () -> monitor.disconnected() == 3, () -> "down: " + monitor.disconnected());
        informers.close();
        assertEquals(0, monitor.disconnected(), "closed informers are still monitored");
        assertFalse(jobs.isRunning());
        assertFalse(pods.isRunning());
        assertFalse(runtimes.isRunning());
        sandbox.startApiServer();
        SharedIndexInformer<TrainJob> again = informers.trainJobs("team-a", null);
        assertNotSame(jobs, again);
        assertTrue(again.isRunning());
        assertNotSame(pods, informers.trainJobPods("team-a"));
        assertNotSame(runtimes, informers.runtimes(RuntimeKind.ClusterTrainingRuntime, null));
    }

    /** fabric8 stops an informer for good on a watch error it does not retry (stopped here as it would). */
    @Test
    void anInformerFabric8StoppedIsReplacedOnItsNextUse() {
        job("team-a", "one", "team: vision");
        SharedIndexInformer<TrainJob> jobs = informers.trainJobs("team-a", null);
        SharedIndexInformer<Pod> pods = informers.trainJobPods("team-a");
        var runtimes = informers.runtimes(RuntimeKind.ClusterTrainingRuntime, null);
        jobs.stop();
        pods.stop();
        runtimes.stop();
        SharedIndexInformer<TrainJob> again = informers.trainJobs("team-a", null);
        assertNotSame(jobs, again);
        assertTrue(again.isRunning());
        assertEquals(List.of("team-a/one"), names(again));
        assertNotSame(pods, informers.trainJobPods("team-a"));
        assertNotSame(runtimes, informers.runtimes(RuntimeKind.ClusterTrainingRuntime, null));
    }

    /** A log read waiting for a pod moves to the new pod informer when fabric8 stops the one it listened to. */
    @Test
    void awaitPodsKeepsLookingWhenFabric8StopsItsInformer() throws Exception {
        CompletableFuture<List<Pod>> any = informers.awaitPods("waits", "job", Map.of(), pods -> !pods.isEmpty());
        SharedIndexInformer<Pod> stopped = WatchTestSupport.stopAsFabric8Does(() -> informers.trainJobPods("waits"));
        pod("waits", "job", "job-node-0-0", "node");
        assertEquals(
                List.of("job-node-0-0"),
                any.get(30, TimeUnit.SECONDS).stream()
                        .map(pod -> pod.getMetadata().getName())
                        .toList());
        assertNotSame(stopped, informers.trainJobPods("waits"));
    }

    /**
     * With the API server away as well, no new informer can start: that is warned of, not kept quiet, and the waiting
     * read moves to a new informer once the API server is back (nothing else would move it: it has no timeout of its
     * own while it follows).
     */
    @Test
    void aReplacementThatCannotStartIsWarnedOf() throws Exception {
        SharedIndexInformer<Pod> stopped = informers.trainJobPods("waits");
        CompletableFuture<List<Pod>> any = informers.awaitPods("waits", "job", Map.of(), pods -> !pods.isEmpty());
        WatchTestSupport.stopWhileTheApiServerIsAway(sandbox, stopped);
        assertFalse(any.isDone());
        Eventually.await(
                DEADLINE,
                () -> informers.trainJobPods("waits") != stopped
                        && informers.trainJobPods("waits").isWatching(),
                () -> "no new informer watching");
        pod("waits", "job", "job-node-0-0", "node");
        assertEquals(
                List.of("job-node-0-0"),
                any.get(30, TimeUnit.SECONDS).stream()
                        .map(pod -> pod.getMetadata().getName())
                        .toList());
    }
}
