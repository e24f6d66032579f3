package io.camelkubeflow.trainer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.camelkubeflow.trainer.api.RuntimePatch;
import io.camelkubeflow.trainer.api.TrainJob;
import io.camelkubeflow.trainer.job.TrainJobMetadata;
import io.camelkubeflow.trainer.testing.TrainerApiServer;
import io.fabric8.kubernetes.api.model.DownwardAPIVolumeFile;
import io.fabric8.kubernetes.api.model.Volume;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.camel.CamelContext;
import org.apache.camel.Exchange;
import org.apache.camel.ProducerTemplate;
import org.apache.camel.impl.DefaultCamelContext;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;

/**
 * One mock Trainer API server and one CamelContext per test class. After every test, each TrainJob the component
 * sent to the server is validated against the real CRD schema.
 */
abstract class TrainerRouteTestSupport {
    static TrainerApiServer api;
    static CamelContext camel;
    static ProducerTemplate template;
    /** The component's meters, found in the registry as a Micrometer-enabled app would offer them. */
    static SimpleMeterRegistry meters;

    @BeforeAll
    static void startServerAndCamel() throws Exception {
        api = TrainerApiServer.start();
        camel = new DefaultCamelContext();
        meters = new SimpleMeterRegistry();
        camel.getRegistry().bind("meters", meters);
        camel.getComponent("kubeflow-trainer", KubeflowTrainerComponent.class).setKubernetesClient(api.client());
        camel.start();
        template = camel.createProducerTemplate();
    }

    @AfterAll
    static void stopServerAndCamel() {
        camel.stop();
        api.close();
    }

    @AfterEach
    void everyTrainJobWrittenMatchesTheCrd() {
        assertEquals(List.of(), api.trainJobWriteViolations(), "TrainJobs sent that the CRD would refuse");
    }

    static Exchange send(String uri, Object body, Map<String, Object> headers) {
        api.mark();
        return template.send(uri, exchange -> {
            exchange.getMessage().setBody(body);
            exchange.getMessage().setHeaders(new HashMap<>(headers));
        });
    }

    static TrainJob trainJob(Exchange exchange) {
        if (exchange.getException() != null) {
            throw new AssertionError("the exchange failed", exchange.getException());
        }
        return exchange.getMessage().getBody(TrainJob.class);
    }

    static TrainJob stored(String namespace, String name) {
        return api.client()
                .resources(TrainJob.class)
                .inNamespace(namespace)
                .withName(name)
                .get();
    }

    /**
     * The inline script files a TrainJob's pods get, read as a kubelet would: the downward API volume items of the
     * component's runtime patch, each from the pod annotation it names; the same in every patched replicated job.
     */
    static Map<String, String> stagedScript(TrainJob job) {
        Map<String, String> files = null;
        for (RuntimePatch patch : job.getSpec().runtimePatches() == null
                ? List.<RuntimePatch>of()
                : job.getSpec().runtimePatches()) {
            if (!TrainJobMetadata.PATCH_MANAGER.equals(patch.manager())) {
                continue;
            }
            for (RuntimePatch.ReplicatedJobPatch replicatedJob :
                    patch.trainingRuntimeSpec().template().spec().replicatedJobs()) {
                RuntimePatch.PodTemplatePatch pod =
                        replicatedJob.template().spec().template();
                Map<String, String> podFiles = new TreeMap<>();
                for (Volume volume : pod.spec().volumes()) {
                    if (volume.getDownwardAPI() == null) {
                        continue; // a pod option's volume, in the same patch
                    }
                    for (DownwardAPIVolumeFile item : volume.getDownwardAPI().getItems()) {
                        String field = item.getFieldRef().getFieldPath();
                        String annotation = field.substring("metadata.annotations['".length(), field.length() - 2);
                        podFiles.put(
                                item.getPath(), pod.metadata().annotations().get(annotation));
                    }
                }
                assertTrue(files == null || files.equals(podFiles), "replicated jobs get different scripts");
                files = podFiles;
            }
        }
        return files == null ? Map.of() : files;
    }
}
