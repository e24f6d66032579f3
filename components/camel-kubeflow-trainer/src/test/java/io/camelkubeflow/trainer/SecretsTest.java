package io.camelkubeflow.trainer;

import static io.camelkubeflow.trainer.KubeflowTrainerConstants.*;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.camelkubeflow.trainer.api.TrainJob;
import io.camelkubeflow.trainer.testing.ReliabilityFigures;
import io.camelkubeflow.trainer.testing.SecretScan;
import io.camelkubeflow.trainer.testing.TrainerApiServer;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.fabric8.mockwebserver.http.RecordedRequest;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.UUID;
import org.apache.camel.CamelContext;
import org.apache.camel.Exchange;
import org.apache.camel.builder.RouteBuilder;
import org.apache.camel.impl.DefaultCamelContext;
import org.junit.jupiter.api.Test;

/**
 * The API token of the component's client and the value of a secret env var never show up where they could leak:
 * log output, exceptions (with their causes), the headers of exchanges that leave the component, the TrainJobs and
 * ConfigMaps written, or the request bodies sent. Every captured byte is scanned, through a success, bad input, an
 * unknown runtime and an API refusal.
 */
class SecretsTest {
    static final String SECRET_VALUE = "hf_" + UUID.randomUUID().toString().replace("-", "");

    @Test
    void theTokenAndSecretValuesAppearNowhere() throws Exception {
        PrintStream out = System.out;
        PrintStream err = System.err;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        List<String> scanned = new ArrayList<>();
        int exchanges = 0;
        String token;
        try (TrainerApiServer api = TrainerApiServer.start()) {
            // the sandbox answers only tokens it issued
            token = api.sandbox().issueToken("secrets-scan", "system:masters");
            // captured, not echoed: the exchanges made to fail log ERROR lines, which are scanned, not build output
            System.setOut(new PrintStream(captured, true, StandardCharsets.UTF_8));
            System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
            api.client()
                    .secrets()
                    .inNamespace("secrets")
                    .resource(new SecretBuilder()
                            .withNewMetadata()
                            .withName("hf")
                            .endMetadata()
                            .addToData(
                                    "token",
                                    Base64.getEncoder().encodeToString(SECRET_VALUE.getBytes(StandardCharsets.UTF_8)))
                            .build())
                    .create();
            String connection = "&masterUrl=" + api.client().getMasterUrl() + "&oauthToken=RAW(" + token
                    + ")&trustCerts=true&namespace=secrets";
            try (CamelContext camel = new DefaultCamelContext()) {
                camel.addRoutes(new RouteBuilder() {
                    @Override
                    public void configure() {
                        from("direct:train")
                                .routeId("secret-train")
                                .to("kubeflow-trainer:train?runtime=torch-distributed&script=print('training')"
                                        + "&env.HF_TOKEN=secretKeyRef:hf/token" + connection)
                                .to("kubeflow-trainer:wait?waitTimeout=60s" + connection)
                                .to("kubeflow-trainer:logs?logStartTimeout=30s" + connection);
                        from("direct:bad")
                                .routeId("secret-bad")
                                .to("kubeflow-trainer:train?runtime=torch-distributed&pythonFile=/a.py&cpu=2 cores"
                                        + connection);
                        from("direct:unknown")
                                .routeId("secret-unknown")
                                .to("kubeflow-trainer:train?runtime=no-such-runtime&pythonFile=/a.py" + connection);
                    }
                });
                camel.start();
                try {
                    // a URI that lost its '?': Camel and the component must not echo the token while refusing it
                    camel.getEndpoint("kubeflow-trainer:logs" + connection);
                } catch (RuntimeException e) {
                    StringWriter trace = new StringWriter();
                    e.printStackTrace(new PrintWriter(trace));
                    scanned.add(trace.toString());
                    exchanges++;
                }
                var template = camel.createProducerTemplate();
                List<Exchange> sent = new ArrayList<>();
                sent.add(template.send("direct:train", e -> e.getMessage().setHeader(IDEMPOTENCY_KEY, "ok")));
                sent.add(template.send("direct:bad", e -> {}));
                sent.add(template.send("direct:unknown", e -> {}));
                api.sandbox().refuseNextTrainJobCreates(1, 403);
                sent.add(template.send("direct:train", e -> e.getMessage().setHeader(IDEMPOTENCY_KEY, "refused")));
                assertNull(sent.get(0).getException(), "the first request trains");
                assertTrue(
                        sent.get(0).getMessage().getBody(String.class).contains("exited with code 0"),
                        "its log was read");
                assertNotNull(sent.get(3).getException(), "the refused create fails");
                for (Exchange exchange : sent) {
                    exchanges++;
                    scanned.add(String.valueOf(exchange.getMessage().getHeaders()));
                    scanned.add(String.valueOf(exchange.getMessage().getBody()));
                    if (exchange.getException() != null) {
                        StringWriter trace = new StringWriter();
                        exchange.getException().printStackTrace(new PrintWriter(trace));
                        scanned.add(trace.toString());
                    }
                }
            }
            for (TrainJob job : api.client()
                    .resources(TrainJob.class)
                    .inNamespace("secrets")
                    .list()
                    .getItems()) {
                scanned.add(Serialization.asYaml(job));
            }
            scanned.add(Serialization.asYaml(
                    api.client().configMaps().inNamespace("secrets").list()));
            for (RecordedRequest request : api.sandbox().requestsSince(0)) {
                // the component's requests (they carry its token, in the one header meant for it); the test's own
                // Secret create is the one request that may hold the value
                if (("Bearer " + token).equals(request.getHeader("Authorization"))) {
                    scanned.add(request.getPath() + " " + request.getBody().readUtf8());
                }
            }
        } finally {
            System.setOut(out);
            System.setErr(err);
        }
        String logs = captured.toString(StandardCharsets.UTF_8);
        scanned.add(logs);
        String all = String.join("\n", scanned);
        int tokenHits = SecretScan.occurrences(all, token);
        int secretHits = SecretScan.occurrences(
                all,
                SECRET_VALUE,
                Base64.getEncoder()
                        .encodeToString(SECRET_VALUE.getBytes(StandardCharsets.UTF_8))
                        .replace("=", ""));
        ReliabilityFigures.record(
                "secrets (component)",
                "API token and secret env value scanned for in "
                        + logs.length() + " chars of log output and " + exchanges
                        + " exchanges' headers, bodies and exceptions,"
                        + " plus every TrainJob, ConfigMap and request body written: " + tokenHits + " token and "
                        + secretHits
                        + " secret value occurrences",
                tokenHits == 0 && secretHits == 0);
        assertTrue(logs.contains("Created TrainJob secrets/"), "the log capture works");
        assertEquals(0, tokenHits, "the API token leaked");
        assertEquals(0, secretHits, "the secret env value leaked");
    }
}
