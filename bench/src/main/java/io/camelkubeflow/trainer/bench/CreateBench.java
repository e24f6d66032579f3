package io.camelkubeflow.trainer.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import io.camelkubeflow.trainer.KubeflowTrainerComponent;
import io.camelkubeflow.trainer.KubeflowTrainerConstants;
import io.camelkubeflow.trainer.api.TrainJob;
import io.camelkubeflow.trainer.runtime.RuntimeKind;
import io.camelkubeflow.trainer.sandbox.TrainerSandbox;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.utils.Serialization;
import org.apache.camel.CamelContext;
import org.apache.camel.Exchange;
import org.apache.camel.ProducerTemplate;
import org.apache.camel.impl.DefaultCamelContext;

/**
 * Create throughput: a burst of exchanges sent to {@code kubeflow-trainer:train} by concurrent producers, each
 * exchange a new TrainJob (the sandbox validates each against the CRD), for each payload kind; and, as the baseline,
 * the Kubeflow Python SDK's request pattern for one create of the same payload (GET the namespaced TrainingRuntime,
 * GET the ClusterTrainingRuntime, POST the TrainJob the SDK would send) with a plain fabric8 client on as many
 * threads.
 */
final class CreateBench implements AutoCloseable {
    /** A create's payload, as the endpoint options that give it. */
    enum Payload {
        COMMAND("command", "&command=python -u -c 'print(1)'", List.of("python", "-u", "-c", "print(1)")),
        PYTHON_FILE("pythonFile", "&pythonFile=/app/train.py", List.of("torchrun", "/app/train.py")),
        // the SDK sends a function as a bash script that writes it to a file and runs that (CustomTrainer)
        SCRIPT("inline script", "&script=print(1)", List.of("bash", "-c", """
                read -r -d '' SCRIPT << EOM

                print(1)
                EOM
                printf "%s" "$SCRIPT" > "train.py"
                torchrun "train.py\""""));

        final String label;
        final String options;
        /** The trainer command of the TrainJob the Kubeflow SDK sends for the same payload. */
        final List<String> sdkCommand;

        Payload(String label, String options, List<String> sdkCommand) {
            this.label = label;
            this.options = options;
            this.sdkCommand = sdkCommand;
        }
    }

    /** Creates per second, and API requests the server received per create. */
    record Run(double createsPerSecond, double requestsPerCreate) {
        /** The run of median rate among rounds of the same setting. */
        static Run median(List<Run> rounds) {
            List<Run> sorted = rounds.stream().sorted(java.util.Comparator.comparingDouble(Run::createsPerSecond))
                    .toList();
            return sorted.get(sorted.size() / 2);
        }
    }

    private final TrainerSandbox sandbox = TrainerSandbox.start();
    private final KubernetesClient client = new KubernetesClientBuilder()
            .withConfig(sandbox.client().getConfiguration()).build();
    private final KubernetesClient sdkClient = new KubernetesClientBuilder()
            .withConfig(sandbox.client().getConfiguration()).build();
    private final CamelContext camel = new DefaultCamelContext();
    private final ProducerTemplate template;
    private int runs;

    CreateBench() {
        client.getConfiguration().setRequestRetryBackoffLimit(0);
        sdkClient.getConfiguration().setRequestRetryBackoffLimit(0);
        camel.getComponent("kubeflow-trainer", KubeflowTrainerComponent.class).setKubernetesClient(client);
        camel.start();
        template = camel.createProducerTemplate();
    }

    /** The component's creates of one payload kind. */
    Run component(Payload payload, int exchanges, int producers) throws Exception {
        String uri = "kubeflow-trainer:train?runtime=torch-distributed&namespace=create-" + (++runs)
                + "&bodyType=ignore" + payload.options;
        sandbox.createNamespace("create-" + runs);
        // warm the endpoint, its runtime cache and the connection pool
        check(template.send(uri, e -> e.getMessage().setHeader(KubeflowTrainerConstants.IDEMPOTENCY_KEY, "warm")));
        String prefix = "burst-" + runs + "-";
        Run run = burst(exchanges, producers, i -> () -> check(template.send(uri,
                e -> e.getMessage().setHeader(KubeflowTrainerConstants.IDEMPOTENCY_KEY, prefix + i))));
        clean("create-" + runs);
        return run;
    }

    /** The SDK's three requests per create, the TrainJob being what the SDK sends for the payload. */
    Run sdkPattern(Payload payload, int exchanges, int producers) throws Exception {
        String namespace = "sdk-" + (++runs);
        sandbox.createNamespace(namespace);
        String name = "torch-distributed";
        Callable<Object> warm = sdkCreate(namespace, name, "warm", payload);
        warm.call();
        Run run = burst(exchanges, producers, i -> sdkCreate(namespace, name, "sdk-" + runs + "-" + i, payload));
        clean(namespace);
        return run;
    }

    /**
     * Empties the namespace after a run (not timed): the mock API server's answers slow down as its store grows, so
     * each run starts from the same store, whatever ran before it.
     */
    private void clean(String namespace) {
        for (TrainJob job : client.resources(TrainJob.class).inNamespace(namespace).list().getItems()) {
            client.resource(job).delete();
        }
    }

    private Callable<Object> sdkCreate(String namespace, String runtime, String jobName, Payload payload) {
        return () -> {
            GenericKubernetesResource namespaced = sdkClient.genericKubernetesResources(
                    RuntimeKind.TrainingRuntime.context()).inNamespace(namespace).withName(runtime).get();
            GenericKubernetesResource cluster = namespaced != null ? null : sdkClient.genericKubernetesResources(
                    RuntimeKind.ClusterTrainingRuntime.context()).withName(runtime).get();
            if (namespaced == null && cluster == null) {
                throw new IllegalStateException("runtime " + runtime + " not found");
            }
            TrainJob job = Serialization.unmarshal("""
                    apiVersion: trainer.kubeflow.org/v1alpha1
                    kind: TrainJob
                    metadata:
                      name: %s
                      namespace: %s
                    spec:
                      runtimeRef:
                        name: %s
                      trainer:
                        command: %s
                    """.formatted(jobName, namespace, runtime, Serialization.asJson(payload.sdkCommand)),
                    TrainJob.class);
            return sdkClient.resources(TrainJob.class).inNamespace(namespace).resource(job).create();
        };
    }

    private Run burst(int exchanges, int producers, java.util.function.IntFunction<Callable<Object>> create)
            throws Exception {
        ExecutorService threads = Executors.newFixedThreadPool(producers);
        List<Future<Object>> sent = new ArrayList<>();
        long requestsBefore = sandbox.requestCount();
        long started = System.nanoTime();
        for (int i = 0; i < exchanges; i++) {
            sent.add(threads.submit(create.apply(i)));
        }
        for (Future<Object> future : sent) {
            future.get();
        }
        double seconds = (System.nanoTime() - started) / 1e9;
        long requests = clientRequestsSince(requestsBefore);
        threads.shutdown();
        return new Run(exchanges / seconds, (double) requests / exchanges);
    }

    /**
     * The Kubeflow Python SDK itself ({@code bench/sdk/sdk_creates.py}): {@code TrainerClient.train} with a
     * {@code CustomTrainer}, its way to run an inline script, on as many Python threads; the script times the creates
     * after one warm-up create.
     */
    Run pythonSdk(java.nio.file.Path root, int creates, int producers) throws Exception {
        String namespace = "python-" + (++runs);
        sandbox.createNamespace(namespace);
        long requestsBefore = sandbox.requestCount();
        var result = PythonSdk.run(root, sandbox, "sdk_creates.py", namespace, "torch-distributed",
                Integer.toString(creates), Integer.toString(producers));
        // the warm-up is one create more
        double requestsPerCreate = (double) clientRequestsSince(requestsBefore) / (creates + 1);
        clean(namespace);
        return new Run(creates / result.get("seconds").asDouble(), requestsPerCreate);
    }

    /** Requests the API server received since then, but the controller emulation's. */
    private long clientRequestsSince(long requestsBefore) {
        return sandbox.requestsSince(requestsBefore).stream()
                .filter(r -> !io.camelkubeflow.trainer.sandbox.TrainJobControllerEmulation.USER_AGENT
                        .equals(r.getHeader("User-Agent"))).count();
    }

    private static Object check(Exchange exchange) throws Exception {
        if (exchange.getException() != null) {
            throw exchange.getException();
        }
        return exchange;
    }

    @Override
    public void close() throws Exception {
        camel.close();
        client.close();
        sdkClient.close();
        sandbox.close();
    }
}
