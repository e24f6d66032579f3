package io.camelkubeflow.trainer.bench;

import io.camelkubeflow.trainer.KubeflowTrainerComponent;
import io.camelkubeflow.trainer.KubeflowTrainerConstants;
import io.camelkubeflow.trainer.api.TrainJob;
import io.camelkubeflow.trainer.runtime.RuntimeKind;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.IntFunction;
import org.apache.camel.CamelContext;
import org.apache.camel.Exchange;
import org.apache.camel.ProducerTemplate;
import org.apache.camel.impl.DefaultCamelContext;

/**
 * Create throughput: a burst of exchanges sent to {@code kubeflow-trainer:train} by concurrent producers, each
 * exchange a new TrainJob (validated by the sandbox against the CRD, or by the real API server and the Trainer's
 * webhooks), for each payload kind; and, as the baselines, the Kubeflow Python SDK's request pattern for one create of
 * the same payload (GET the namespaced TrainingRuntime, GET the ClusterTrainingRuntime, POST the TrainJob the SDK
 * would send) with a plain fabric8 client on as many threads, and a raw POST of the component's TrainJob with the
 * JDK's HTTP client (the physical limit).
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
            List<Run> sorted = rounds.stream()
                    .sorted(Comparator.comparingDouble(Run::createsPerSecond))
                    .toList();
            return sorted.get(sorted.size() / 2);
        }
    }

    private final BenchTarget target;
    private final KubernetesClient client;
    private final KubernetesClient sdkClient;
    private final HttpClient raw;
    private final CamelContext camel = new DefaultCamelContext();
    private final ProducerTemplate template;
    private int runs;

    CreateBench(BenchTarget target) throws Exception {
        this.target = target;
        client = target.newClient(BenchTarget.COMPONENT, false);
        sdkClient = target.newClient(BenchTarget.SDK_PATTERN, false);
        raw = target.rawHttp();
        camel.getComponent("kubeflow-trainer", KubeflowTrainerComponent.class).setKubernetesClient(client);
        camel.start();
        template = camel.createProducerTemplate();
    }

    /** The component's creates of one payload kind. */
    Run component(Payload payload, int exchanges, int producers) throws Exception {
        String namespace = "create-" + (++runs);
        String uri = "kubeflow-trainer:train?runtime=" + target.runtime() + "&namespace=" + namespace
                + "&bodyType=ignore" + payload.options;
        target.createNamespace(namespace);
        // warm the endpoint, its runtime cache and the connection pool
        check(template.send(uri, e -> e.getMessage().setHeader(KubeflowTrainerConstants.IDEMPOTENCY_KEY, "warm")));
        String prefix = "burst-" + runs + "-";
        Run run = burst(
                exchanges,
                producers,
                BenchTarget.COMPONENT,
                i -> () -> check(template.send(
                        uri, e -> e.getMessage().setHeader(KubeflowTrainerConstants.IDEMPOTENCY_KEY, prefix + i))));
        clean(namespace);
        return run;
    }

    /** The SDK's three requests per create, the TrainJob being what the SDK sends for the payload. */
    Run sdkPattern(Payload payload, int exchanges, int producers) throws Exception {
        String namespace = "sdk-" + (++runs);
        target.createNamespace(namespace);
        String name = target.runtime();
        Callable<Object> warm = sdkCreate(namespace, name, "warm", payload);
        warm.call();
        Run run = burst(
                exchanges,
                producers,
                BenchTarget.SDK_PATTERN,
                i -> sdkCreate(namespace, name, "sdk-" + runs + "-" + i, payload));
        clean(namespace);
        return run;
    }

    /**
     * What a raw POST sends, to see which part of the API server's chain a create waits on: the TrainJob (through
     * authentication, the Trainer's and JobSet's admission webhooks, validation and the etcd write), the same with
     * {@code dryRun=All} (everything but the etcd write), or a ConfigMap holding the same JSON (the etcd write, no
     * webhook).
     */
    enum RawPost {
        TRAINJOB("raw POST (the physical limit)"),
        DRY_RUN("raw POST, dryRun=All (admission and webhooks, no etcd write)"),
        CONFIG_MAP("raw POST of a ConfigMap as large (the etcd write, no webhook)");

        final String label;

        RawPost(String label) {
            this.label = label;
        }
    }

    /** One POST per create of the TrainJob the component makes for the payload, its name set: no reads. */
    Run raw(Payload payload, int exchanges, int producers) throws Exception {
        return raw(payload, exchanges, producers, RawPost.TRAINJOB);
    }

    Run raw(Payload payload, int exchanges, int producers, RawPost what) throws Exception {
        String namespace = "raw-" + (++runs);
        target.createNamespace(namespace);
        String uri = "kubeflow-trainer:train?runtime=" + target.runtime() + "&namespace=" + namespace
                + "&bodyType=ignore" + payload.options;
        // the component's TrainJob for the payload, as the API server stored it, its server-set fields dropped
        String name = check(template.send(uri, e -> {}))
                .getMessage()
                .getHeader(KubeflowTrainerConstants.JOB_NAME, String.class);
        TrainJob job = target.harness()
                .resources(TrainJob.class)
                .inNamespace(namespace)
                .withName(name)
                .get();
        job.setStatus(null);
        job.setMetadata(new ObjectMetaBuilder()
                .withNamespace(namespace)
                .withLabels(job.getMetadata().getLabels())
                .withAnnotations(job.getMetadata().getAnnotations())
                .build());
        String path = switch (what) {
            case TRAINJOB -> "apis/trainer.kubeflow.org/v1alpha1/namespaces/" + namespace + "/trainjobs";
            case DRY_RUN -> "apis/trainer.kubeflow.org/v1alpha1/namespaces/" + namespace + "/trainjobs?dryRun=All";
            case CONFIG_MAP -> "api/v1/namespaces/" + namespace + "/configmaps";
        };
        IntFunction<Callable<Object>> post = i -> () -> {
            TrainJob named = Serialization.clone(job);
            named.getMetadata().setName("raw-" + runs + "-" + i);
            String body = what != RawPost.CONFIG_MAP
                    ? Serialization.asJson(named)
                    : Serialization.asJson(new ConfigMapBuilder()
                            .withNewMetadata()
                            .withName(named.getMetadata().getName())
                            .withNamespace(namespace)
                            .endMetadata()
                            .addToData("trainjob.json", Serialization.asJson(named))
                            .build());
            HttpResponse<Void> created = raw.send(
                    target.rawRequest(path)
                            .header("Content-Type", "application/json")
                            .POST(HttpRequest.BodyPublishers.ofString(body))
                            .build(),
                    HttpResponse.BodyHandlers.discarding());
            if (created.statusCode() != 201) {
                throw new IllegalStateException("raw POST answered " + created.statusCode());
            }
            return created;
        };
        post.apply(-1).call(); // warm: the connection
        Run run = burst(exchanges, producers, BenchTarget.RAW, post);
        clean(namespace);
        if (what == RawPost.CONFIG_MAP) {
            target.harness().namespaces().withName(namespace).delete();
        }
        return run;
    }

    /**
     * Empties the namespace after a run (not timed): the sandbox's answers slow down as its store grows, and a real
     * cluster's controllers would go on running the jobs, so each run starts from the same store, whatever ran
     * before it.
     */
    private void clean(String namespace) {
        KubernetesClient harness = target.harness();
        for (TrainJob job :
                harness.resources(TrainJob.class).inNamespace(namespace).list().getItems()) {
            harness.resource(job).delete();
        }
    }

    private Callable<Object> sdkCreate(String namespace, String runtime, String jobName, Payload payload) {
        return () -> {
            GenericKubernetesResource namespaced = sdkClient
                    .genericKubernetesResources(RuntimeKind.TrainingRuntime.context())
                    .inNamespace(namespace)
                    .withName(runtime)
                    .get();
            GenericKubernetesResource cluster = namespaced != null
                    ? null
                    : sdkClient
                            .genericKubernetesResources(RuntimeKind.ClusterTrainingRuntime.context())
                            .withName(runtime)
                            .get();
            if (namespaced == null && cluster == null) {
                throw new IllegalStateException("runtime " + runtime + " not found");
            }
            TrainJob job = Serialization.unmarshal(
                    """
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
            return sdkClient
                    .resources(TrainJob.class)
                    .inNamespace(namespace)
                    .resource(job)
                    .create();
        };
    }

    private Run burst(int exchanges, int producers, String userAgent, IntFunction<Callable<Object>> create)
            throws Exception {
        ExecutorService threads = Executors.newFixedThreadPool(producers);
        List<Future<Object>> sent = new ArrayList<>();
        long mark = target.requestMark();
        long started = System.nanoTime();
        for (int i = 0; i < exchanges; i++) {
            sent.add(threads.submit(create.apply(i)));
        }
        for (Future<Object> future : sent) {
            future.get();
        }
        double seconds = (System.nanoTime() - started) / 1e9;
        long requests = target.requestsSince(mark, userAgent);
        threads.shutdown();
        return new Run(exchanges / seconds, (double) requests / exchanges);
    }

    /**
     * The Kubeflow Python SDK itself ({@code bench/sdk/sdk_creates.py}): {@code TrainerClient.train} with a
     * {@code CustomTrainer}, its way to run an inline script, on as many Python threads; the script times the creates
     * after one warm-up create.
     */
    Run pythonSdk(Path root, int creates, int producers) throws Exception {
        String namespace = "python-" + (++runs);
        target.createNamespace(namespace);
        long mark = target.requestMark();
        var result = PythonSdk.run(
                root,
                target,
                "sdk_creates.py",
                namespace,
                target.runtime(),
                Integer.toString(creates),
                Integer.toString(producers));
        // the warm-up is one create more
        double requestsPerCreate = (double) target.requestsSince(mark, BenchTarget.PYTHON_SDK) / (creates + 1);
        clean(namespace);
        return new Run(creates / result.get("seconds").asDouble(), requestsPerCreate);
    }

    private static Exchange check(Exchange exchange) throws Exception {
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
    }
}
