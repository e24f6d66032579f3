package io.camelkubeflow.trainer.bench;

import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.internal.SSLUtils;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * Where the bench sends its requests: the sandbox in this JVM ({@link SandboxTarget}) or the real control plane of
 * testcluster/up.sh ({@link TestClusterTarget}). Every client the bench makes names itself in its User-Agent, so
 * the requests each one made are counted at the API server: the sandbox's recorder, or the real API server's audit
 * log.
 */
abstract class BenchTarget implements AutoCloseable {
    /** The User-Agent of the component's client, of the SDK's request pattern, of a raw request and of the harness. */
    static final String COMPONENT = "bench-component";

    static final String SDK_PATTERN = "bench-sdk-pattern";
    static final String RAW = "bench-raw";
    static final String HARNESS = "bench-harness";
    /** The Kubeflow SDK's Kubernetes client, as it names itself (OpenAPI-Generator/&lt;version&gt;/python). */
    static final String PYTHON_SDK = "OpenAPI-Generator/";

    private KubernetesClient harness;

    /** How the table names this target. */
    abstract String name();

    /** The API server's address and the admin's credentials. */
    abstract Config adminConfig();

    /**
     * The address and credentials of the measured clients (the component's, the SDK's, the raw requests'): the admin's
     * unless the target has a plain user for them.
     */
    Config clientConfig() {
        return adminConfig();
    }

    /** A kubeconfig file of the measured clients' credentials, for a process of its own (the Kubeflow SDK's scripts). */
    abstract Path kubeconfig();

    /** A mark in the target's record of requests: what came after it is counted by {@link #requestsSince}. */
    abstract long requestMark() throws Exception;

    /** How many requests clients whose User-Agent matches made since the mark (their reads and writes alike). */
    abstract long requestsSince(long mark, Predicate<String> userAgent) throws Exception;

    /** The TrainingRuntime the bench's jobs name: one whose pods cost this target the least. */
    abstract String runtime();

    final long requestsSince(long mark, String userAgentPrefix) throws Exception {
        return requestsSince(mark, agent -> agent != null && agent.startsWith(userAgentPrefix));
    }

    /**
     * A measured client of its own ({@link #clientConfig}) that names itself {@code userAgent}, with fabric8's retries
     * off unless {@code retries}.
     */
    final KubernetesClient newClient(String userAgent, boolean retries) {
        return newClient(clientConfig(), userAgent, retries);
    }

    private static KubernetesClient newClient(Config credentials, String userAgent, boolean retries) {
        ConfigBuilder config = new ConfigBuilder(credentials).withUserAgent(userAgent);
        if (!retries) {
            config.withRequestRetryBackoffLimit(0);
        }
        return new KubernetesClientBuilder().withConfig(config.build()).build();
    }

    /** The harness's own client: namespaces, status reads; its requests are counted for no one. */
    final synchronized KubernetesClient harness() {
        if (harness == null) {
            harness = newClient(adminConfig(), HARNESS, true);
        }
        return harness;
    }

    void createNamespace(String name) {
        harness()
                .namespaces()
                .resource(new NamespaceBuilder()
                        .withNewMetadata()
                        .withName(name)
                        .endMetadata()
                        .build())
                .serverSideApply();
    }

    /**
     * Deletes the namespaces, all at once, and waits until each is gone (its TrainJobs, JobSets, Jobs and pods with
     * it), up to 30 minutes each, so what runs next does not share the cluster with their deletion.
     */
    void deleteNamespaces(List<String> names) {
        names.forEach(name -> harness().namespaces().withName(name).delete());
        for (String name : names) {
            try {
                harness().namespaces().withName(name).waitUntilCondition(Objects::isNull, 30, TimeUnit.MINUTES);
            } catch (KubernetesClientException timedOut) {
                Benchmarks.progress("the namespace " + name + " is still being deleted after 30 minutes");
            }
        }
    }

    /**
     * A plain JDK HTTP client that trusts the API server and presents the measured clients' certificate, if they have
     * one.
     */
    final HttpClient rawHttp() throws Exception {
        return HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .sslContext(SSLUtils.sslContext(clientConfig()))
                .build();
    }

    /** A raw request to the API server at {@code path}, with the measured clients' token if they use one. */
    final HttpRequest.Builder rawRequest(String path) {
        Config config = clientConfig();
        String base = config.getMasterUrl().endsWith("/") ? config.getMasterUrl() : config.getMasterUrl() + "/";
        HttpRequest.Builder request =
                HttpRequest.newBuilder(URI.create(base + path)).header("User-Agent", RAW);
        // a kubeconfig's token is the "auto" one (fabric8 keeps one given outright apart)
        String token = config.getOauthToken() != null ? config.getOauthToken() : config.getAutoOAuthToken();
        if (token != null) {
            request.header("Authorization", "Bearer " + token);
        }
        return request;
    }

    @Override
    public void close() throws Exception {
        if (harness != null) {
            harness.close();
        }
    }
}
