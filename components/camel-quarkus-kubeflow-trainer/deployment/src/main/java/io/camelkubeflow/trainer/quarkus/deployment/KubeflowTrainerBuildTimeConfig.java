package io.camelkubeflow.trainer.quarkus.deployment;

import io.quarkus.runtime.annotations.ConfigPhase;
import io.quarkus.runtime.annotations.ConfigRoot;
import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/** What the extension reads at build time. */
@ConfigMapping(prefix = "quarkus.kubeflow-trainer")
@ConfigRoot(phase = ConfigPhase.BUILD_TIME)
public interface KubeflowTrainerBuildTimeConfig {
    /** The Dev Service: the local Trainer sandbox, started in dev and test mode when no cluster is configured. */
    DevServicesConfig devservices();

    interface DevServicesConfig {
        /**
         * Whether the Dev Service starts in dev and test mode. It starts only when no cluster is configured: no
         * {@code quarkus.kubernetes-client.api-server-url} (or {@code master-url}), no kubeconfig or in-cluster service
         * account the Kubernetes client would pick up, no cluster from the Kubernetes client's own Dev Service; and
         * only while Dev Services as a whole are on ({@code quarkus.devservices.enabled}).
         */
        @WithDefault("true")
        boolean enabled();

        /** The sandbox's API server port on the loopback address; 0 takes a free one. */
        @WithDefault("0")
        int port();

        /**
         * Where the sandbox's kubeconfig is written (created readable by its owner only: it holds the sandbox's admin
         * token), for kubectl or the Kubeflow Python SDK beside the app.
         */
        @WithDefault(".camel-kubeflow-trainer/dev-sandbox.kubeconfig")
        Path kubeconfig();

        /** Namespaces the sandbox holds from its start, beside {@code default}; objects go only into namespaces that exist. */
        Optional<List<String>> namespaces();

        /**
         * YAML files whose objects the sandbox holds from its start, created as {@code kubectl create -f} would (Roles,
         * your own runtimes, Secrets); a file that cannot be read or an object refused fails the start.
         */
        Optional<List<Path>> manifests();
    }
}
