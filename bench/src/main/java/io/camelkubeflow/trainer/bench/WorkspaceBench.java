package io.camelkubeflow.trainer.bench;

import io.camelkubeflow.trainer.KubeflowTrainerComponent;
import io.camelkubeflow.trainer.sandbox.TrainerSandbox;
import io.camelkubeflow.trainer.sandbox.cluster.TrainJobControllerEmulation;
import io.camelkubeflow.trainer.workspace.Workspace;
import io.camelkubeflow.trainer.workspace.WorkspaceArchives;
import io.camelkubeflow.trainer.workspace.WorkspaceLimits;
import io.camelkubeflow.trainer.workspace.WorkspaceStore;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.camel.CamelContext;
import org.apache.camel.Exchange;
import org.apache.camel.ProducerTemplate;
import org.apache.camel.impl.DefaultCamelContext;

/**
 * Workspaces: a project folder of Python-like source (words of a small vocabulary, which compress as source does)
 * sent to {@code kubeflow-trainer:train?workspace=...}: the time of the first job (read, canonical tar, digest, the
 * job's create, the ConfigMap's create) and of each later job that reuses it (read and digest again, the job's create,
 * a patch adding it as an owner), and the API requests of each; a project too large for a ConfigMap goes to an object
 * store in memory (so its upload's network time is not in the figure).
 */
final class WorkspaceBench implements AutoCloseable {
    /** Times in ms and requests of the first job and the median reuse. */
    record Run(
            double firstMillis, double firstRequests, double reuseMillis, double reuseRequests, int compressedBytes) {}

    private static final String[] WORDS = {
        "def",
        "return",
        "self",
        "import",
        "torch",
        "model",
        "loss",
        "batch",
        "for",
        "in",
        "range",
        "if",
        "else",
        "x",
        "y",
        "lr",
        "optimizer",
        "step",
        "(",
        ")",
        ":",
        "=",
        "+",
        "0.1",
        "print",
        "data",
        "epoch",
        "\n    ",
        "\n"
    };

    private final TrainerSandbox sandbox = TrainerSandbox.start(TrainerSandbox.Options.defaults());
    private final KubernetesClient client = new KubernetesClientBuilder()
            .withConfig(sandbox.client().getConfiguration())
            .build();
    private final CamelContext camel = new DefaultCamelContext();
    private final ProducerTemplate template;

    /** An object store in memory: what the component does around the upload, without the network's time. */
    static final class MemoryStore implements WorkspaceStore {
        final Map<String, byte[]> objects = new ConcurrentHashMap<>();

        @Override
        public boolean store(Workspace workspace) {
            return objects.putIfAbsent(workspace.digest(), workspace.archive()) == null;
        }

        @Override
        public URI readUrl(Workspace workspace, Duration validity) {
            return URI.create("https://objects.example.com/" + workspace.digest() + "?expires=" + validity.toSeconds());
        }
    }

    WorkspaceBench() {
        sandbox.createNamespace("workspaces");
        camel.getRegistry().bind("memoryStore", new MemoryStore());
        camel.getComponent("kubeflow-trainer", KubeflowTrainerComponent.class).setKubernetesClient(client);
        camel.start();
        template = camel.createProducerTemplate();
    }

    /** A folder of {@code megabytes} MB of source files of 8 KB each, the same for the same seed. */
    static Path project(int megabytes, long seed) throws IOException {
        Path dir = Files.createTempDirectory("bench-workspace-");
        Random random = new Random(seed);
        for (int file = 0; file < megabytes * 128; file++) {
            StringBuilder text = new StringBuilder();
            while (text.length() < 8192) {
                text.append(WORDS[random.nextInt(WORDS.length)]).append(' ');
            }
            Path path = dir.resolve("pkg" + file / 100).resolve("module" + file + ".py");
            Files.createDirectories(path.getParent());
            Files.writeString(path, text);
        }
        Files.writeString(dir.resolve("train.py"), "print('train')\n");
        return dir;
    }

    /**
     * The first job of a project and {@code reuses} more, one at a time; a project too large for a ConfigMap goes to
     * an object store in memory.
     */
    Run stage(Path project, int reuses) {
        String uri = "kubeflow-trainer:train?runtime=torch-distributed&namespace=workspaces&pythonFile=train.py"
                + "&workspaceStore=#memoryStore&workspace=" + project;
        long[] first = send(uri);
        List<long[]> later = new ArrayList<>();
        for (int i = 0; i < reuses; i++) {
            later.add(send(uri));
        }
        later.sort(Comparator.comparingLong(r -> r[0]));
        long[] median = later.get(later.size() / 2);
        int compressed = WorkspaceArchives.fromDirectory(project, "workspace", WorkspaceLimits.DEFAULT)
                .archive()
                .length;
        return new Run(
                first[0] / 1e6,
                first[1],
                median[0] / 1e6,
                later.stream().mapToLong(r -> r[1]).average().orElse(0),
                compressed);
    }

    /** Nanoseconds and API requests (the controller's left out) of one train exchange. */
    private long[] send(String uri) {
        long mark = sandbox.requestCount();
        long started = System.nanoTime();
        Exchange exchange = template.send(uri, e -> e.getMessage().setBody(null));
        long took = System.nanoTime() - started;
        if (exchange.getException() != null) {
            throw new IllegalStateException("a workspace job failed", exchange.getException());
        }
        long requests = sandbox.requestsSince(mark).stream()
                .filter(r -> !TrainJobControllerEmulation.USER_AGENT.equals(r.getHeader("User-Agent")))
                .count();
        return new long[] {took, requests};
    }

    @Override
    public void close() throws Exception {
        camel.close();
        client.close();
        sandbox.close();
    }
}
