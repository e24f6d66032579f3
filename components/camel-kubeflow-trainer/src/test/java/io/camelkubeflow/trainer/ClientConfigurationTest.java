package io.camelkubeflow.trainer;

import io.camelkubeflow.trainer.api.TrainJob;
import io.camelkubeflow.trainer.testing.TrainerApiServer;
import org.apache.camel.CamelContext;
import org.apache.camel.Exchange;
import org.apache.camel.impl.DefaultCamelContext;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Where the endpoint's KubernetesClient comes from: the registry, or built from the connection options. */
class ClientConfigurationTest {
    static TrainerApiServer api;

    @BeforeAll
    static void start() {
        api = TrainerApiServer.start();
    }

    @AfterAll
    static void stop() {
        api.close();
    }

    @Test
    void aClientInTheRegistryIsAutowired() throws Exception {
        try (CamelContext camel = new DefaultCamelContext()) {
            camel.getRegistry().bind("cluster", api.client());
            camel.start();
            Exchange exchange = camel.createProducerTemplate().send(
                    "kubeflow-trainer:train?runtime=torch-distributed&namespace=ml&pythonFile=/app/t.py", e -> { });
            assertNull(exchange.getException());
            assertNotNull(exchange.getMessage().getBody(TrainJob.class).getMetadata().getUid());
        }
        assertNotNull(api.client().resources(TrainJob.class).inNamespace("ml").list());
    }

    @Test
    void connectionOptionsBuildAClientThatSendsTheToken() throws Exception {
        String masterUrl = api.client().getMasterUrl().toString();
        try (CamelContext camel = new DefaultCamelContext()) {
            camel.start();
            api.mark();
            Exchange exchange = camel.createProducerTemplate().send("kubeflow-trainer:train?runtime=torch-distributed"
                    + "&namespace=ml&pythonFile=/app/t.py&trustCerts=true&oauthToken=RAW(s3cr3t-token)&masterUrl="
                    + masterUrl, e -> { });
            assertNull(exchange.getException());
            assertTrue(api.requestsSinceMark().stream()
                    .allMatch(r -> "Bearer s3cr3t-token".equals(r.getHeader("Authorization"))));
            // a plain create is one request: no look first, a 409 would be adopted
            assertEquals(1, api.requestsSinceMark().stream().filter(r -> r.getPath().contains("trainjobs")).count());
        }
    }
}
