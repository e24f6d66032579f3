package io.camelkubeflow.trainer;

import java.util.Map;

import io.camelkubeflow.trainer.api.TrainJob;
import io.camelkubeflow.trainer.testing.TrainerApiServer;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.apache.camel.CamelContext;
import org.apache.camel.Exchange;
import org.apache.camel.ProducerTemplate;
import org.apache.camel.impl.DefaultCamelContext;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;

import static org.junit.jupiter.api.Assertions.assertEquals;

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
        assertEquals(java.util.List.of(), api.trainJobWriteViolations(), "TrainJobs sent that the CRD would refuse");
    }

    static Exchange send(String uri, Object body, Map<String, Object> headers) {
        api.mark();
        return template.send(uri, exchange -> {
            exchange.getMessage().setBody(body);
            exchange.getMessage().setHeaders(new java.util.HashMap<>(headers));
        });
    }

    static TrainJob trainJob(Exchange exchange) {
        if (exchange.getException() != null) {
            throw new AssertionError("the exchange failed", exchange.getException());
        }
        return exchange.getMessage().getBody(TrainJob.class);
    }

    static TrainJob stored(String namespace, String name) {
        return api.client().resources(TrainJob.class).inNamespace(namespace).withName(name).get();
    }

    static ConfigMap storedConfigMap(String namespace, String name) {
        return api.client().configMaps().inNamespace(namespace).withName(name).get();
    }
}
