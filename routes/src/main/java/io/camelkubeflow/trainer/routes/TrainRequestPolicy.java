package io.camelkubeflow.trainer.routes;

import io.camelkubeflow.trainer.job.RequestPolicy;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Named;
import jakarta.inject.Singleton;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * The one request policy of the app, from {@code trainer.policy.*}: every entry point (HTTP, Kafka, S3, the inbox)
 * trains with {@code policy=#trainRequestPolicy}, so a request is held to the same rules whichever way it comes.
 */
@ApplicationScoped
public class TrainRequestPolicy {
    @ConfigProperty(name = "trainer.policy.namespaces")
    List<String> namespaces;

    @ConfigProperty(name = "trainer.policy.runtimes")
    List<String> runtimes;

    @ConfigProperty(name = "trainer.policy.image-override")
    boolean imageOverride;

    @ConfigProperty(name = "trainer.policy.images")
    Optional<List<String>> images;

    @ConfigProperty(name = "trainer.policy.command-override")
    boolean commandOverride;

    @ConfigProperty(name = "trainer.policy.secrets")
    Optional<List<String>> secrets;

    @ConfigProperty(name = "trainer.policy.config-maps")
    Optional<List<String>> configMaps;

    @ConfigProperty(name = "trainer.policy.persistent-volume-claims")
    Optional<List<String>> persistentVolumeClaims;

    @ConfigProperty(name = "trainer.policy.node-selectors")
    Optional<List<String>> nodeSelectors;

    @ConfigProperty(name = "trainer.policy.tolerations")
    Optional<List<String>> tolerations;

    @ConfigProperty(name = "trainer.policy.service-accounts")
    Optional<List<String>> serviceAccounts;

    @ConfigProperty(name = "trainer.policy.queues", defaultValue = RequestPolicy.ANY)
    List<String> queues;

    @ConfigProperty(name = "trainer.policy.default-queue")
    Optional<String> defaultQueue;

    @ConfigProperty(name = "trainer.policy.queue-required", defaultValue = "false")
    boolean queueRequired;

    @ConfigProperty(name = "trainer.policy.priority-classes")
    Optional<List<String>> priorityClasses;

    @ConfigProperty(name = "trainer.policy.max-num-nodes")
    int maxNumNodes;

    @ConfigProperty(name = "trainer.policy.max-num-proc-per-node")
    int maxNumProcPerNode;

    @ConfigProperty(name = "trainer.policy.max-gpu")
    String maxGpu;

    @ConfigProperty(name = "trainer.policy.max-cpu")
    String maxCpu;

    @ConfigProperty(name = "trainer.policy.max-memory")
    String maxMemory;

    @ConfigProperty(name = "trainer.policy.resource-maxima")
    Optional<List<String>> resourceMaxima;

    @ConfigProperty(name = "trainer.policy.max-active-deadline-seconds")
    long maxActiveDeadlineSeconds;

    @ConfigProperty(name = "trainer.policy.default-active-deadline-seconds")
    long defaultActiveDeadlineSeconds;

    @ConfigProperty(name = "trainer.policy.max-script-bytes")
    int maxScriptBytes;

    @ConfigProperty(name = "trainer.policy.workspace-sources")
    Optional<List<String>> workspaceSources;

    @ConfigProperty(name = "trainer.policy.output-locations")
    Optional<List<String>> outputLocations;

    @Produces
    @Singleton
    @Named("trainRequestPolicy")
    RequestPolicy policy() {
        return RequestPolicy.safeDefaults()
                .withNamespaces(set(namespaces))
                .withRuntimes(set(runtimes))
                .withImageOverride(imageOverride, images.orElse(List.of()))
                .withCommandOverride(commandOverride)
                .withSecrets(set(secrets.orElse(List.of())))
                .withConfigMaps(set(configMaps.orElse(List.of())))
                .withPersistentVolumeClaims(set(persistentVolumeClaims.orElse(List.of())))
                .withNodeSelectors(set(nodeSelectors.orElse(List.of())))
                .withTolerations(set(tolerations.orElse(List.of())))
                .withServiceAccounts(set(serviceAccounts.orElse(List.of())))
                .withQueues(
                        set(queues),
                        defaultQueue.map(String::trim).filter(q -> !q.isEmpty()).orElse(null),
                        queueRequired)
                .withPriorityClasses(set(priorityClasses.orElse(List.of())))
                .withMaxima(
                        maxNumNodes,
                        maxNumProcPerNode,
                        maxGpu,
                        maxCpu,
                        maxMemory,
                        maxActiveDeadlineSeconds,
                        maxScriptBytes)
                .withResourceMaxima(resourceMaxima(resourceMaxima.orElse(List.of())))
                .withDefaultActiveDeadlineSeconds(defaultActiveDeadlineSeconds)
                .withWorkspaceSources(List.copyOf(set(workspaceSources.orElse(List.of()))))
                .withOutputLocations(List.copyOf(set(outputLocations.orElse(List.of()))));
    }

    /** {@code amd.com/gpu=4} entries, as a resource name and its maximum. */
    private static Map<String, String> resourceMaxima(List<String> entries) {
        Map<String, String> maxima = new LinkedHashMap<>();
        for (String entry : entries) {
            int equals = entry.indexOf('=');
            if (equals < 1 || equals == entry.length() - 1) {
                throw new IllegalArgumentException("trainer.policy.resource-maxima: '" + entry + "' is not"
                        + " <resource>=<quantity>, e.g. amd.com/gpu=4");
            }
            maxima.put(
                    entry.substring(0, equals).trim(),
                    entry.substring(equals + 1).trim());
        }
        return maxima;
    }

    private static Set<String> set(List<String> names) {
        return new HashSet<>(
                names.stream().map(String::trim).filter(n -> !n.isEmpty()).toList());
    }
}
