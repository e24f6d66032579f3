package io.camelkubeflow.trainer;

import io.camelkubeflow.trainer.access.AccessDecisions;
import io.camelkubeflow.trainer.access.AccessReviewer;
import io.camelkubeflow.trainer.job.FieldValues;
import io.camelkubeflow.trainer.job.LabelSelectors;
import io.camelkubeflow.trainer.job.TrainField;
import io.camelkubeflow.trainer.job.TrainJobReaper;
import io.camelkubeflow.trainer.support.ApiRetry;
import io.camelkubeflow.trainer.support.InvalidOptionException;
import io.camelkubeflow.trainer.watch.ClusterInformers;
import io.camelkubeflow.trainer.watch.TrainJobWatcher;
import io.camelkubeflow.trainer.watch.WatchConnectionMonitor;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Metrics;
import io.micrometer.core.instrument.Tags;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.apache.camel.Endpoint;
import org.apache.camel.PropertyBindingException;
import org.apache.camel.health.HealthCheckRegistry;
import org.apache.camel.spi.Metadata;
import org.apache.camel.spi.PropertyConfigurerGetter;
import org.apache.camel.spi.UriParam;
import org.apache.camel.spi.annotations.Component;
import org.apache.camel.support.DefaultComponent;
import org.apache.camel.util.PropertiesHelper;
import org.apache.camel.util.URISupport;

/** The {@code kubeflow-trainer:} component: start, wait for and follow Kubeflow Trainer v2 TrainJobs. */
@Component("kubeflow-trainer")
public class KubeflowTrainerComponent extends DefaultComponent {

    @Metadata(
            description = "The options every endpoint starts from (namespace, runtime, connection, ...); an"
                    + " endpoint's own options override them. Set each as"
                    + " camel.component.kubeflow-trainer.<option>, e.g. ...namespace=ml.")
    private KubeflowTrainerConfiguration configuration = new KubeflowTrainerConfiguration();

    @Metadata(
            autowired = true,
            label = "advanced",
            description = "The Micrometer MeterRegistry the component's meters go to (kubeflow.trainer.*); by default"
                    + " the one in the registry, else Micrometer's global registry.")
    private MeterRegistry meterRegistry;

    private TrainerMetrics metrics;

    @Metadata(
            label = "advanced",
            defaultValue = "60s",
            javaType = "java.time.Duration",
            description =
                    "How often finished TrainJobs with a ttlAfterFinished are checked and, once expired, deleted.")
    private long ttlCheckInterval = 60_000L;

    @Metadata(
            label = "security",
            defaultValue = "10s",
            javaType = "java.time.Duration",
            description = "How long the API server's answer to an access review (authorizeCaller) is kept, by the"
                    + " caller's user, groups and extra and the verb, resource, namespace and name it answered,"
                    + " so a caller repeating a request costs one SubjectAccessReview per this time; a revoked"
                    + " right holds at most this long. 0 asks every time.")
    private long accessReviewCacheTtl = 10_000L;
    /** What is kept per client: one object each, closed as one when the client is released or the component stops. */
    private final Map<KubernetesClient, ClientServices> clients = new ConcurrentHashMap<>();
    /** Watches the watch connections of every waiter and events consumer, for the log and the reconnect meters. */
    private WatchConnectionMonitor watchConnections;
    /** The masterUrl that names the local sandbox instead of a cluster. */
    static final String SANDBOX = "sandbox";

    private static final Map<String, Class<?>> WHOLE_NUMBER_OPTIONS = wholeNumberOptions();
    private static final Map<String, Class<?>> TRAIN_ENUM_OPTIONS = trainEnumOptions();
    private Function<String, KubernetesClient> localSandbox;
    private final Map<HealthCheckKey, KubeflowTrainerHealthCheck> healthChecks = new ConcurrentHashMap<>();

    @Override
    protected Endpoint createEndpoint(String uri, String remaining, Map<String, Object> parameters) throws Exception {
        KubeflowTrainerOperation operation;
        try {
            operation = KubeflowTrainerOperation.valueOf(remaining);
        } catch (IllegalArgumentException e) {
            // sanitized, and without the enum's own message: a URI missing its '?' holds its secrets in 'remaining'
            throw new IllegalArgumentException(
                    "Unknown kubeflow-trainer operation '" + URISupport.sanitizeUri(remaining)
                            + "' in " + URISupport.sanitizeUri(uri) + "; use one of "
                            + Arrays.stream(KubeflowTrainerOperation.values())
                                    .map(o -> "kubeflow-trainer:" + o)
                                    .toList());
        }
        KubeflowTrainerConfiguration configuration = this.configuration.copy();
        // multi-value options (env.X=, labels.X=, ...) are collected here, as Camel leaves prefixed keys to the
        // component; an endpoint's entries are merged over the component's, key by key
        configuration.setEnv(merged(configuration.getEnv(), PropertiesHelper.extractProperties(parameters, "env.")));
        configuration.setLabels(
                merged(configuration.getLabels(), PropertiesHelper.extractProperties(parameters, "labels.")));
        configuration.setAnnotations(
                merged(configuration.getAnnotations(), PropertiesHelper.extractProperties(parameters, "annotations.")));
        configuration.setResources(
                merged(configuration.getResources(), PropertiesHelper.extractProperties(parameters, "resources.")));
        KubeflowTrainerEndpoint endpoint = new KubeflowTrainerEndpoint(uri, this, operation, configuration);
        checkWholeNumbers(parameters);
        checkTrainEnumValues(parameters);
        try {
            setProperties(endpoint, parameters);
        } catch (PropertyBindingException e) {
            throw unknownEnumValue(e);
        }
        if (configuration.getLabelSelector() != null) {
            // refused when the route starts, rather than by the API server at the first list or watch
            LabelSelectors.check("labelSelector", configuration.getLabelSelector());
        }
        return endpoint;
    }

    /**
     * Takes the whole-number options as headers take them ({@link FieldValues#wholeNumberOrDigits}), each replaced by
     * its number: Camel's binding would read {@code numNodes=2s} as 2000 milliseconds and wrap {@code 4294967298} to
     * 2. The duration options ({@code waitTimeout=6h}) are left to Camel, which reads their units as documented.
     */
    private static void checkWholeNumbers(Map<String, Object> parameters) {
        for (Map.Entry<String, Object> parameter : parameters.entrySet()) {
            Class<?> type = WHOLE_NUMBER_OPTIONS.get(parameter.getKey().toLowerCase(Locale.ROOT));
            if (type == Integer.class) {
                parameter.setValue((int) FieldValues.wholeNumberOrDigits(
                        parameter.getValue(), parameter.getKey(), Integer.MIN_VALUE, Integer.MAX_VALUE));
            } else if (type == Long.class) {
                parameter.setValue(FieldValues.wholeNumberOrDigits(
                        parameter.getValue(), parameter.getKey(), Long.MIN_VALUE, Long.MAX_VALUE));
            }
        }
    }

    /**
     * A train option of an enum type takes its value as written, as a header, a message and the request schema take it:
     * Camel's binding would take {@code launcher=TORCHRUN} or {@code runtimeKind=trainingruntime} for the nearest
     * name, a coercion no other entry makes.
     */
    private static void checkTrainEnumValues(Map<String, Object> parameters) {
        for (Map.Entry<String, Object> parameter : parameters.entrySet()) {
            Class<?> type = TRAIN_ENUM_OPTIONS.get(parameter.getKey().toLowerCase(Locale.ROOT));
            if (type == null || !(parameter.getValue() instanceof String value)) {
                continue;
            }
            List<String> names =
                    Arrays.stream(type.getEnumConstants()).map(String::valueOf).toList();
            if (!names.contains(value)) {
                throw new InvalidOptionException(
                        parameter.getKey(),
                        "'" + value + "' is not one of " + names + "; write one of them as it is written there");
            }
        }
    }

    /** The train options (those a message may set too) of an enum type, by lower-case name, to their type. */
    private static Map<String, Class<?>> trainEnumOptions() {
        Map<String, Class<?>> options = new HashMap<>();
        for (java.lang.reflect.Field field : KubeflowTrainerConfiguration.class.getDeclaredFields()) {
            if (field.getAnnotation(UriParam.class) != null
                    && field.getType().isEnum()
                    && TrainField.named(field.getName()) != null) {
                options.put(field.getName().toLowerCase(Locale.ROOT), field.getType());
            }
        }
        return Map.copyOf(options);
    }

    /**
     * The options that take a whole number, by lower-case name (Camel matches option names in any case), to Integer
     * or Long: the int and long options of the configuration that are not declared durations.
     */
    private static Map<String, Class<?>> wholeNumberOptions() {
        Map<String, Class<?>> options = new HashMap<>();
        for (java.lang.reflect.Field field : KubeflowTrainerConfiguration.class.getDeclaredFields()) {
            UriParam option = field.getAnnotation(UriParam.class);
            Class<?> type = field.getType();
            if (option == null || !option.javaType().isEmpty()) {
                continue;
            }
            if (type == int.class || type == Integer.class) {
                options.put(field.getName().toLowerCase(Locale.ROOT), Integer.class);
            } else if (type == long.class || type == Long.class) {
                options.put(field.getName().toLowerCase(Locale.ROOT), Long.class);
            }
        }
        return Map.copyOf(options);
    }

    /** A value that is none of an enum option's values is an invalid option, named, with the values it can take. */
    private RuntimeException unknownEnumValue(PropertyBindingException e) {
        Class<?> type = e.getPropertyName() == null
                ? null
                : ((PropertyConfigurerGetter) getEndpointPropertyConfigurer()).getOptionType(e.getPropertyName(), true);
        if (type == null || !type.isEnum()) {
            return e;
        }
        return new InvalidOptionException(
                e.getPropertyName(),
                "'" + e.getValue() + "' is not one of "
                        + Arrays.stream(type.getEnumConstants())
                                .map(String::valueOf)
                                .toList()
                        + "; use one of them",
                e);
    }

    private static Map<String, Object> merged(Map<String, Object> defaults, Map<String, Object> own) {
        Map<String, Object> merged = new LinkedHashMap<>();
        if (defaults != null) {
            merged.putAll(defaults);
        }
        merged.putAll(own);
        return merged;
    }

    /**
     * The informers of a client, shared by its waits, events consumers, log reads and progress (one TrainJob watch and
     * at most one pod watch per namespace in all); also for apps that read logs with {@code TrainJobLogs} themselves.
     */
    public ClusterInformers informersFor(KubernetesClient client) {
        return servicesOf(client).informers();
    }

    /** One watcher per client, shared by all its endpoints. */
    TrainJobWatcher watcherFor(KubernetesClient client) {
        return servicesOf(client).watcher();
    }

    private ClientServices servicesOf(KubernetesClient client) {
        return clients.computeIfAbsent(client, c -> new ClientServices(c, watchConnections));
    }

    /**
     * Registers the readiness check of a client and namespace, once, when the context has a health check registry. Its
     * id names the namespace it checks, {@code kubeflow-trainer:<namespace>}, and for each further client of that
     * namespace an index, {@code kubeflow-trainer:<namespace>#2}: never the API server's address, as health endpoints
     * are open.
     */
    synchronized void registerHealthCheck(KubernetesClient client, String namespace) {
        HealthCheckRegistry registry = HealthCheckRegistry.get(getCamelContext());
        if (registry == null) {
            return;
        }
        HealthCheckKey key = new HealthCheckKey(client, namespace);
        if (!healthChecks.containsKey(key)) {
            KubeflowTrainerHealthCheck check =
                    new KubeflowTrainerHealthCheck(healthCheckId(namespace), client, namespace);
            registry.register(check);
            healthChecks.put(key, check);
        }
    }

    /** The first id of a namespace's checks that no registered check has. */
    private String healthCheckId(String namespace) {
        Set<String> taken = healthChecks.values().stream()
                .map(KubeflowTrainerHealthCheck::getId)
                .collect(Collectors.toSet());
        String id = "kubeflow-trainer:" + namespace;
        for (int index = 2; taken.contains(id); index++) {
            id = "kubeflow-trainer:" + namespace + "#" + index;
        }
        return id;
    }

    /** Closes what is kept for a client (informers, watcher, reaper, access reviewer) and drops the health checks, of a client an endpoint built itself and is about to close. */
    void releaseClient(KubernetesClient client) {
        ClientServices services = clients.remove(client);
        if (services != null) {
            close(services);
        }
        healthChecks.entrySet().removeIf(entry -> {
            if (!entry.getKey().client().equals(client)) {
                return false;
            }
            unregister(entry.getValue());
            return true;
        });
    }

    /** Closes what was kept for a client; its access reviews stay counted in the metrics. */
    private void close(ClientServices services) {
        if (metrics != null && services.accessDecisions() != null) {
            metrics.accessReviewsRetired(services.accessDecisions());
        }
        services.close();
    }

    private void unregister(KubeflowTrainerHealthCheck check) {
        HealthCheckRegistry registry = HealthCheckRegistry.get(getCamelContext());
        if (registry != null) {
            registry.unregister(check);
        }
    }

    /** A client and the namespace its endpoints use. */
    private record HealthCheckKey(KubernetesClient client, String namespace) {}

    /**
     * The client of the local sandbox that {@code masterUrl=sandbox} names, once {@code namespace} exists in it: one
     * sandbox per component, started on first use and closed when the component stops. It comes from the sandbox's jar
     * (found as {@code META-INF/services/io/camelkubeflow/trainer/local-sandbox}), which the component does not depend
     * on.
     */
    @SuppressWarnings("unchecked")
    synchronized KubernetesClient localSandbox(String namespace) {
        if (localSandbox == null) {
            localSandbox = getCamelContext()
                    .getCamelContextExtension()
                    .getBootstrapFactoryFinder("META-INF/services/io/camelkubeflow/trainer/")
                    .newInstance("local-sandbox", Function.class)
                    .orElseThrow(() -> new InvalidOptionException(
                            "masterUrl",
                            "'" + SANDBOX + "' needs the sandbox on"
                                    + " the classpath: add io.camelkubeflow:camel-kubeflow-trainer-sandbox (camel run"
                                    + " --dep=...), or give the URL of a cluster's API server"));
        }
        return localSandbox.apply(namespace);
    }

    @Override
    protected void doStart() throws Exception {
        super.doStart();
        MeterRegistry registry = meterRegistry != null ? meterRegistry : Metrics.globalRegistry;
        metrics = new TrainerMetrics(registry);
        metrics.bind(
                TrainerMetrics.PREFIX + "waits.inflight",
                Tags.empty(),
                () -> Gauge.builder(
                                TrainerMetrics.PREFIX + "waits.inflight", this, KubeflowTrainerComponent::pendingWaits)
                        .description("Waits pending now")
                        .register(registry));
        WatchConnectionMonitor connections = new WatchConnectionMonitor(metrics.watchConnectionListener());
        watchConnections = connections;
        metrics.bind(
                TrainerMetrics.PREFIX + "watch.disconnected",
                Tags.empty(),
                () -> Gauge.builder(
                                TrainerMetrics.PREFIX + "watch.disconnected",
                                connections,
                                WatchConnectionMonitor::disconnected)
                        .description("Watch connections (waits, events consumers) lost and not back yet")
                        .register(registry));
    }

    TrainerMetrics metrics() {
        return metrics;
    }

    /** Waits pending now, of every client's watcher (the routes app's own waits through them included). */
    int pendingWaits() {
        return clients.values().stream().mapToInt(ClientServices::pendingWaits).sum();
    }

    /** The state of every watch of the component's informers; empty before the component starts. */
    List<WatchConnectionMonitor.WatchState> watches() {
        return watchConnections == null ? List.of() : watchConnections.watches();
    }

    /**
     * The access reviewer of a client, shared by every endpoint (and the routes app) that reviews callers through it,
     * so they share its kept answers ({@link #getAccessReviewCacheTtl}).
     */
    public AccessReviewer accessReviewerFor(KubernetesClient client, ApiRetry retry) {
        return servicesOf(client).accessReviewer(retry, () -> {
            AccessDecisions decisions = new AccessDecisions(Duration.ofMillis(accessReviewCacheTtl));
            if (metrics != null) {
                metrics.accessReviews(decisions);
            }
            return decisions;
        });
    }

    public long getAccessReviewCacheTtl() {
        return accessReviewCacheTtl;
    }

    public void setAccessReviewCacheTtl(long accessReviewCacheTtl) {
        this.accessReviewCacheTtl = accessReviewCacheTtl;
    }

    /** The TTL reaper of a client, started on first use. */
    TrainJobReaper reaperFor(KubernetesClient client, ApiRetry retry) {
        return servicesOf(client).reaper(retry, Duration.ofMillis(ttlCheckInterval));
    }

    /** The TTL reaper of a client, or null when no endpoint of it has started one. */
    TrainJobReaper existingReaper(KubernetesClient client) {
        ClientServices services = clients.get(client);
        return services == null ? null : services.existingReaper();
    }

    public long getTtlCheckInterval() {
        return ttlCheckInterval;
    }

    public void setTtlCheckInterval(long ttlCheckInterval) {
        this.ttlCheckInterval = ttlCheckInterval;
    }

    public MeterRegistry getMeterRegistry() {
        return meterRegistry;
    }

    public void setMeterRegistry(MeterRegistry meterRegistry) {
        this.meterRegistry = meterRegistry;
    }

    @Override
    protected void doStop() throws Exception {
        if (localSandbox instanceof AutoCloseable sandbox) {
            sandbox.close();
        }
        localSandbox = null;
        clients.values().forEach(this::close);
        clients.clear();
        healthChecks.values().forEach(this::unregister);
        healthChecks.clear();
        if (watchConnections != null) {
            watchConnections.close();
        }
        if (metrics != null) {
            metrics.close();
        }
        super.doStop();
    }

    public KubeflowTrainerConfiguration getConfiguration() {
        return configuration;
    }

    public void setConfiguration(KubeflowTrainerConfiguration configuration) {
        this.configuration = configuration;
    }

    /** The KubernetesClient of every endpoint that sets none of its own. */
    public KubernetesClient getKubernetesClient() {
        return configuration.getKubernetesClient();
    }

    public void setKubernetesClient(KubernetesClient kubernetesClient) {
        configuration.setKubernetesClient(kubernetesClient);
    }
}
