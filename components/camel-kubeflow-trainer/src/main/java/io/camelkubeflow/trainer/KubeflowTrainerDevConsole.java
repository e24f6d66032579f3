package io.camelkubeflow.trainer;

import io.camelkubeflow.trainer.support.Printable;
import io.camelkubeflow.trainer.watch.WatchConnectionMonitor.WatchState;
import java.net.URISyntaxException;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import org.apache.camel.spi.annotations.DevConsole;
import org.apache.camel.support.console.AbstractDevConsole;
import org.apache.camel.util.URISupport;
import org.apache.camel.util.json.JsonArray;
import org.apache.camel.util.json.JsonObject;

/**
 * The component's Camel dev console, id {@code kubeflow-trainer}: per endpoint the exchanges in flight (a train's
 * create, a wait, a follow of logs), done and failed and the last failure; the waits pending on the watchers; each
 * informer's watch (connected, first list done, resource version, outages). Read from what the component tracks
 * ({@link ExchangeActivity}, the watchers, the watch connection monitor); asks the API server nothing. An endpoint
 * shows its operation, namespace, runtime and the names of its options, never their values (a token or key may be
 * one), and failures only as their escaped messages.
 */
@DevConsole(
        name = KubeflowTrainerDevConsole.ID,
        displayName = KubeflowTrainerDevConsole.TITLE,
        description = KubeflowTrainerDevConsole.DESCRIPTION)
public class KubeflowTrainerDevConsole extends AbstractDevConsole {
    static final String ID = "kubeflow-trainer";
    static final String TITLE = "Kubeflow Trainer";
    static final String DESCRIPTION =
            "TrainJobs in flight per endpoint, waits pending, log follows open and watch state"
                    + " of the kubeflow-trainer component";

    public KubeflowTrainerDevConsole() {
        super("camel", ID, TITLE, DESCRIPTION);
    }

    @Override
    protected Map<String, Object> doCallJson(Map<String, Object> options) {
        List<KubeflowTrainerEndpoint> endpoints = endpoints();
        JsonObject root = new JsonObject();
        root.put("creates", inFlight(endpoints, KubeflowTrainerOperation.train, false));
        root.put("waits", inFlight(endpoints, KubeflowTrainerOperation.wait, false));
        root.put("logFollows", inFlight(endpoints, KubeflowTrainerOperation.logs, true));
        KubeflowTrainerComponent component = component();
        root.put("waitsPending", component == null ? 0 : component.pendingWaits());
        JsonArray endpointList = new JsonArray();
        for (KubeflowTrainerEndpoint endpoint : endpoints) {
            ExchangeActivity activity = endpoint.activity();
            JsonObject shown = new JsonObject();
            shown.put("operation", endpoint.getOperation().name());
            shown.put("namespace", namespace(endpoint));
            shown.put("runtime", runtime(endpoint));
            shown.put("options", new JsonArray(optionNames(endpoint)));
            shown.put("inFlight", activity.inFlight());
            shown.put("done", activity.done());
            shown.put("failed", activity.failed());
            ExchangeActivity.Failure failure = activity.lastFailure();
            if (failure != null) {
                JsonObject last = new JsonObject();
                last.put("at", failure.at().toString());
                last.put("type", failure.type());
                last.put("message", failure.message());
                shown.put("lastFailure", last);
            }
            endpointList.add(shown);
        }
        root.put("endpoints", endpointList);
        JsonArray watchList = new JsonArray();
        for (WatchState watch : watches(component)) {
            JsonObject shown = new JsonObject();
            shown.put("name", Printable.escape(watch.name()));
            shown.put("running", watch.running());
            shown.put("connected", watch.connected());
            shown.put("synced", watch.synced());
            shown.put("resourceVersion", watch.resourceVersion());
            shown.put("outages", watch.outages());
            if (watch.down() != null) {
                shown.put("downMillis", watch.down().toMillis());
            }
            watchList.add(shown);
        }
        root.put("watches", watchList);
        return root;
    }

    @Override
    protected String doCallText(Map<String, Object> options) {
        List<KubeflowTrainerEndpoint> endpoints = endpoints();
        KubeflowTrainerComponent component = component();
        StringBuilder text = new StringBuilder();
        text.append(String.format(
                "In flight: %d creates, %d waits, %d log follows; waits pending: %d%n",
                inFlight(endpoints, KubeflowTrainerOperation.train, false),
                inFlight(endpoints, KubeflowTrainerOperation.wait, false),
                inFlight(endpoints, KubeflowTrainerOperation.logs, true),
                component == null ? 0 : component.pendingWaits()));
        for (KubeflowTrainerEndpoint endpoint : endpoints) {
            ExchangeActivity activity = endpoint.activity();
            text.append(String.format(
                    "%n    kubeflow-trainer:%s (namespace: %s, runtime: %s, options: %s)%n",
                    endpoint.getOperation(),
                    namespace(endpoint),
                    runtime(endpoint),
                    String.join(", ", optionNames(endpoint))));
            text.append(String.format(
                    "        in flight: %d, done: %d, failed: %d%n",
                    activity.inFlight(), activity.done(), activity.failed()));
            ExchangeActivity.Failure failure = activity.lastFailure();
            if (failure != null) {
                text.append(String.format(
                        "        last failure at %s: %s: %s%n", failure.at(), failure.type(), failure.message()));
            }
        }
        List<WatchState> watches = watches(component);
        if (!watches.isEmpty()) {
            text.append(String.format("%nWatches:%n"));
        }
        for (WatchState watch : watches) {
            String state = !watch.running()
                    ? "stopped"
                    : watch.connected()
                            ? "connected"
                            : watch.down() != null ? "down for " + watch.down().toMillis() + " ms" : "connecting";
            text.append(String.format(
                    "    %s: %s, %s, resource version %s, outages: %d%n",
                    Printable.escape(watch.name()),
                    state,
                    watch.synced() ? "synced" : "not synced yet",
                    watch.resourceVersion(),
                    watch.outages()));
        }
        return text.toString();
    }

    private List<KubeflowTrainerEndpoint> endpoints() {
        return getCamelContext().getEndpoints().stream()
                .filter(KubeflowTrainerEndpoint.class::isInstance)
                .map(KubeflowTrainerEndpoint.class::cast)
                .sorted(Comparator.comparing(KubeflowTrainerEndpoint::getEndpointUri))
                .toList();
    }

    /** The component, when the context has created it (no kubeflow-trainer endpoint yet: none). */
    private KubeflowTrainerComponent component() {
        return getCamelContext().hasComponent("kubeflow-trainer") instanceof KubeflowTrainerComponent component
                ? component
                : null;
    }

    private static List<WatchState> watches(KubeflowTrainerComponent component) {
        return component == null ? List.of() : component.watches();
    }

    /** Exchanges in flight on the endpoints of an operation (of logs: only those that follow). */
    private static int inFlight(
            List<KubeflowTrainerEndpoint> endpoints, KubeflowTrainerOperation operation, boolean following) {
        return endpoints.stream()
                .filter(e -> e.getOperation() == operation)
                .filter(e -> !following || e.getConfiguration().isFollow())
                .mapToInt(e -> e.activity().inFlight())
                .sum();
    }

    /**
     * The namespace of jobs no message names; before the endpoint started, the option as given (or none). Escaped: it
     * is the URI's text (a toD's may come from a message), not yet checked as a name.
     */
    private static String namespace(KubeflowTrainerEndpoint endpoint) {
        return Printable.escape(
                endpoint.getClient() != null
                        ? endpoint.defaultNamespace()
                        : endpoint.getConfiguration().getNamespace());
    }

    /** The endpoint's runtime option, escaped as its namespace is. */
    private static String runtime(KubeflowTrainerEndpoint endpoint) {
        return Printable.escape(endpoint.getConfiguration().getRuntime());
    }

    /** The names of the options in the endpoint's URI, without their values. */
    private static List<String> optionNames(KubeflowTrainerEndpoint endpoint) {
        try {
            return List.copyOf(
                    new TreeSet<>(URISupport.parseQuery(URISupport.extractQuery(endpoint.getEndpointUri()), false, true)
                            .keySet()));
        } catch (URISyntaxException e) {
            return List.of();
        }
    }
}
