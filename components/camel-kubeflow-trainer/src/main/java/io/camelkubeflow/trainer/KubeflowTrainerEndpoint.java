package io.camelkubeflow.trainer;

import io.camelkubeflow.trainer.access.Access;
import io.camelkubeflow.trainer.access.AccessDeniedException;
import io.camelkubeflow.trainer.access.AccessReviewer;
import io.camelkubeflow.trainer.access.Caller;
import io.camelkubeflow.trainer.job.RuntimeLookup;
import io.camelkubeflow.trainer.job.TrainJobReaper;
import io.camelkubeflow.trainer.support.ApiRetry;
import io.camelkubeflow.trainer.watch.ClusterInformers;
import io.camelkubeflow.trainer.watch.TrainJobSteps;
import io.camelkubeflow.trainer.watch.TrainJobWatcher;
import io.camelkubeflow.trainer.watch.WatchedRuntimes;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.time.Duration;
import org.apache.camel.Category;
import org.apache.camel.Consumer;
import org.apache.camel.Exchange;
import org.apache.camel.Processor;
import org.apache.camel.Producer;
import org.apache.camel.spi.Metadata;
import org.apache.camel.spi.UriEndpoint;
import org.apache.camel.spi.UriParam;
import org.apache.camel.spi.UriPath;
import org.apache.camel.support.DefaultEndpoint;
import org.apache.camel.util.ObjectHelper;

/**
 * Drive Kubeflow Trainer v2 TrainJobs: create launcher-aware TrainJobs from any exchange, wait for them and follow
 * their logs.
 */
@UriEndpoint(
        firstVersion = "0.1.0",
        scheme = "kubeflow-trainer",
        title = "Kubeflow Trainer",
        syntax = "kubeflow-trainer:operation",
        category = {Category.CLOUD, Category.CONTAINER, Category.AI},
        headersClass = KubeflowTrainerConstants.class)
public class KubeflowTrainerEndpoint extends DefaultEndpoint {

    @UriPath(
            description = "The operation: train creates (or adopts) a TrainJob; wait waits for one to reach a"
                    + " status; logs reads or follows a step's logs; get, list, delete, suspend and resume"
                    + " manage TrainJobs; runtimes lists the runtimes (or reads one) with their launchers;"
                    + " runtimePackages lists the packages of a runtime's image;"
                    + " events emits TrainJob status changes in from() and answers a TrainJob's Kubernetes"
                    + " Events in to().")
    @Metadata(required = true)
    private final KubeflowTrainerOperation operation;

    @UriParam
    private final KubeflowTrainerConfiguration configuration;

    private KubernetesClient client;
    private boolean ownsClient;
    private final ExchangeActivity activity = new ExchangeActivity();

    public KubeflowTrainerEndpoint(
            String uri,
            KubeflowTrainerComponent component,
            KubeflowTrainerOperation operation,
            KubeflowTrainerConfiguration configuration) {
        super(uri, component);
        this.operation = operation;
        this.configuration = configuration;
    }

    @Override
    public Producer createProducer() {
        return new KubeflowTrainerProducer(this);
    }

    @Override
    public Consumer createConsumer(Processor processor) throws Exception {
        if (!operation.isConsumer()) {
            throw new IllegalArgumentException("kubeflow-trainer:" + operation + " cannot be used in from(); the"
                    + " consumer is kubeflow-trainer:events");
        }
        KubeflowTrainerConsumer consumer = new KubeflowTrainerConsumer(this, processor);
        configureConsumer(consumer);
        return consumer;
    }

    @Override
    protected void doStart() throws Exception {
        super.doStart();
        if (configuration.getKubernetesClient() != null) {
            client = configuration.getKubernetesClient();
        } else if (KubeflowTrainerComponent.SANDBOX.equals(configuration.getMasterUrl())) {
            client = getComponent()
                    .localSandbox(configuration.getNamespace() != null ? configuration.getNamespace() : "default");
        } else {
            client = connect();
            // the component retries 429 and 5xx itself, with jitter (apiRetryAttempts); fabric8's own retries would
            // multiply its requests. The client reads this setting on every request.
            client.getConfiguration().setRequestRetryBackoffLimit(0);
            ownsClient = true;
        }
        getComponent().registerHealthCheck(client, defaultNamespace());
    }

    @Override
    protected void doStop() throws Exception {
        // a client from the registry or the user belongs to them; only the one built here is closed here
        if (ownsClient && client != null) {
            getComponent().releaseClient(client);
            client.close();
        }
        client = null;
        ownsClient = false;
        super.doStop();
    }

    /**
     * A client as camel-kubernetes builds one from the same settings (the component does not depend on camel-kubernetes,
     * whose dev console fails in Camel JBang): from kubeconfig or the pod's service account when no masterUrl is set
     * ({@code local} and {@code client} say the same), else from these settings; a username and password only without
     * a token.
     */
    private KubernetesClient connect() {
        String masterUrl = configuration.getMasterUrl();
        if (ObjectHelper.isEmpty(masterUrl) || "local".equals(masterUrl) || "client".equals(masterUrl)) {
            return new KubernetesClientBuilder().build();
        }
        ConfigBuilder settings = new ConfigBuilder().withMasterUrl(masterUrl);
        if (ObjectHelper.isNotEmpty(configuration.getUsername())
                && ObjectHelper.isNotEmpty(configuration.getPassword())
                && ObjectHelper.isEmpty(configuration.getOauthToken())) {
            settings.withUsername(configuration.getUsername()).withPassword(configuration.getPassword());
        }
        ObjectHelper.ifNotEmpty(configuration.getOauthToken(), settings::withOauthToken);
        ObjectHelper.ifNotEmpty(configuration.getCaCertData(), settings::withCaCertData);
        ObjectHelper.ifNotEmpty(configuration.getCaCertFile(), settings::withCaCertFile);
        ObjectHelper.ifNotEmpty(configuration.getClientCertData(), settings::withClientCertData);
        ObjectHelper.ifNotEmpty(configuration.getClientCertFile(), settings::withClientCertFile);
        ObjectHelper.ifNotEmpty(configuration.getClientKeyAlgo(), settings::withClientKeyAlgo);
        ObjectHelper.ifNotEmpty(configuration.getClientKeyData(), settings::withClientKeyData);
        ObjectHelper.ifNotEmpty(configuration.getClientKeyFile(), settings::withClientKeyFile);
        ObjectHelper.ifNotEmpty(configuration.getClientKeyPassphrase(), settings::withClientKeyPassphrase);
        ObjectHelper.ifNotEmpty(configuration.getTrustCerts(), settings::withTrustCerts);
        ObjectHelper.ifNotEmpty(configuration.getConnectionTimeout(), settings::withConnectionTimeout);
        ObjectHelper.ifNotEmpty(configuration.getNamespace(), settings::withNamespace);
        return new KubernetesClientBuilder().withConfig(settings.build()).build();
    }

    @Override
    public KubeflowTrainerComponent getComponent() {
        return (KubeflowTrainerComponent) super.getComponent();
    }

    /**
     * How this endpoint's API calls are retried (apiRetryAttempts, apiRetryBackoff); the classes that make the calls
     * drop it for a client that retries by itself.
     */
    ApiRetry apiRetry() {
        return new ApiRetry(
                configuration.getApiRetryAttempts(),
                Duration.ofMillis(configuration.getApiRetryBackoff()),
                Duration.ofMillis(configuration.getApiRetryBackoff() * 25));
    }

    /** The TTL reaper of this endpoint's client, started on first use. */
    TrainJobReaper ttlReaper() {
        return getComponent().reaperFor(client, apiRetry());
    }

    /**
     * With authorizeCaller, reviews with the API server that the exchange's caller may do {@code access}, throwing
     * AccessDeniedException otherwise; without, checks nothing.
     */
    void authorize(Exchange exchange, Access access) {
        if (configuration.isAuthorizeCaller()) {
            accessReviewer().check(requiredCaller(exchange), access);
        }
    }

    /** The reviewer of this endpoint's client, whose kept answers every endpoint of the client shares. */
    AccessReviewer accessReviewer() {
        return getComponent().accessReviewerFor(client, apiRetry());
    }

    /**
     * The caller the authentication step put on the exchange ({@link KubeflowTrainerConstants#CALLER_PROPERTY}, a
     * typed Caller); AccessDeniedException when there is none.
     */
    Caller requiredCaller(Exchange exchange) {
        if (exchange.getProperty(KubeflowTrainerConstants.CALLER_PROPERTY) instanceof Caller caller) {
            return caller;
        }
        throw new AccessDeniedException(
                null,
                null,
                "this endpoint acts within its caller's rights"
                        + " (authorizeCaller); the route's authentication step must set the exchange property "
                        + KubeflowTrainerConstants.CALLER_PROPERTY
                        + " to the authenticated io.camelkubeflow.trainer.access.Caller");
    }

    /** The informers shared by every endpoint using this endpoint's client. */
    ClusterInformers informers() {
        return getComponent().informersFor(client);
    }

    /**
     * Steps read from this client's pod informers, with runtimes from its runtime informers (a GET for one they do
     * not hold).
     */
    TrainJobSteps trainJobSteps() {
        return new TrainJobSteps(
                informers(), new WatchedRuntimes(informers(), RuntimeLookup.direct(client, apiRetry())));
    }

    /**
     * The namespace of the informers that read a job of {@code namespace}: its own, or the all-namespaces one for an
     * endpoint of allNamespaces (whose consumer already watches them all).
     */
    String watchedNamespace(String namespace) {
        return configuration.isAllNamespaces() ? null : namespace;
    }

    /** What this endpoint's producers are doing: exchanges in flight, done and failed, the last failure. */
    ExchangeActivity activity() {
        return activity;
    }

    /** The watcher shared by every endpoint using this endpoint's client. */
    public TrainJobWatcher getWatcher() {
        return getComponent().watcherFor(client);
    }

    /** The namespace of jobs no message names: the namespace option, else the client's, else "default". */
    public String defaultNamespace() {
        if (configuration.getNamespace() != null) {
            return configuration.getNamespace();
        }
        return client.getNamespace() != null ? client.getNamespace() : "default";
    }

    public KubeflowTrainerOperation getOperation() {
        return operation;
    }

    public KubeflowTrainerConfiguration getConfiguration() {
        return configuration;
    }

    public KubernetesClient getClient() {
        return client;
    }
}
