package io.camelkubeflow.trainer.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import io.camelkubeflow.trainer.KubeflowTrainerComponent;
import io.camelkubeflow.trainer.KubeflowTrainerConstants;
import io.camelkubeflow.trainer.sandbox.TrainerSandbox;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import org.apache.camel.CamelContext;
import org.apache.camel.Exchange;
import org.apache.camel.ProducerTemplate;
import org.apache.camel.impl.DefaultCamelContext;

/**
 * Create throughput: a burst of exchanges sent to {@code kubeflow-trainer:train} by 1, 8 or 32 concurrent producers,
 * each exchange a new TrainJob (runtime read, existence check, create; the sandbox validates each against the CRD).
 */
final class CreateBench implements AutoCloseable {
    private final TrainerSandbox sandbox = TrainerSandbox.start();
    private final KubernetesClient client = new KubernetesClientBuilder()
            .withConfig(sandbox.client().getConfiguration()).build();
    private final CamelContext camel = new DefaultCamelContext();
    private final ProducerTemplate template;
    private int runs;

    CreateBench() {
        client.getConfiguration().setRequestRetryBackoffLimit(0);
        camel.getComponent("kubeflow-trainer", KubeflowTrainerComponent.class).setKubernetesClient(client);
        camel.start();
        template = camel.createProducerTemplate();
    }

    /** TrainJobs created per second. */
    double createsPerSecond(int exchanges, int producers) throws Exception {
        String uri = "kubeflow-trainer:train?runtime=torch-distributed&namespace=create-" + (++runs)
                + "&pythonFile=/app/train.py";
        // warm the endpoint and the connection pool
        template.send(uri, e -> e.getMessage().setHeader(KubeflowTrainerConstants.IDEMPOTENCY_KEY, "warm"));
        ExecutorService threads = Executors.newFixedThreadPool(producers);
        List<Future<Exchange>> sent = new ArrayList<>();
        long started = System.nanoTime();
        for (int i = 0; i < exchanges; i++) {
            String key = "burst-" + runs + "-" + i;
            sent.add(threads.submit(() -> template.send(uri,
                    e -> e.getMessage().setHeader(KubeflowTrainerConstants.IDEMPOTENCY_KEY, key))));
        }
        for (Future<Exchange> future : sent) {
            Exchange exchange = future.get();
            if (exchange.getException() != null) {
                throw exchange.getException();
            }
        }
        double seconds = (System.nanoTime() - started) / 1e9;
        threads.shutdown();
        return exchanges / seconds;
    }

    @Override
    public void close() throws Exception {
        camel.close();
        client.close();
        sandbox.close();
    }
}
