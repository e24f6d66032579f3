package io.camelkubeflow.trainer.quarkus;

import io.quarkus.runtime.annotations.ConfigPhase;
import io.quarkus.runtime.annotations.ConfigRoot;
import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/** Which Kubernetes API the component's client (Quarkus's) talks to, read when the app starts. */
@ConfigMapping(prefix = "quarkus.kubeflow-trainer")
@ConfigRoot(phase = ConfigPhase.RUN_TIME)
public interface KubeflowTrainerConfig {
    /**
     * {@code auto}: the cluster Quarkus's Kubernetes client is configured for ({@code quarkus.kubernetes-client.*}, a
     * kubeconfig, the in-cluster service account, the Dev Service's sandbox), else the local sandbox in this JVM when
     * {@code io.camelkubeflow:camel-kubeflow-trainer-sandbox} is on the class path, else the client as configured;
     * {@code cluster}: a configured cluster, or the app does not start; {@code sandbox}: the local sandbox in this JVM
     * whatever is configured (it needs that artifact).
     */
    @WithDefault("auto")
    Cluster cluster();

    /**
     * A kubeconfig whose current context the client connects by (server, user, authority), over Quarkus's own
     * settings. Set by the Dev Service to its sandbox's; unlike {@code quarkus.kubernetes-client.kubeconfig-file}, it
     * may be set at runtime.
     */
    Optional<Path> kubeconfig();

    /** The local sandbox this JVM runs when {@code cluster} chooses it. */
    SandboxConfig sandbox();

    enum Cluster {
        AUTO,
        CLUSTER,
        SANDBOX
    }

    interface SandboxConfig {
        /** Its API server port on the loopback address; 0 takes a free one. */
        @WithDefault("0")
        int port();

        /** How long the emulated controller keeps a new TrainJob's pods pending. */
        @WithDefault("500ms")
        Duration startDelay();

        /** How long the emulated controller then runs a TrainJob (a job's run-millis annotation may say otherwise). */
        @WithDefault("2s")
        Duration runTime();

        /**
         * Whether a TrainJob's staged Python script really runs, with the local python3, one process per node; any
         * other code is only emulated.
         */
        @WithDefault("false")
        boolean runScripts();

        /**
         * YAML files whose objects the sandbox holds from its start, as {@code kubectl create -f} would make them; one
         * that cannot be read or an object refused stops the app's start.
         */
        Optional<List<Path>> manifests();

        /** Namespaces made at its start, beside {@code default}. */
        Optional<List<String>> namespaces();
    }
}
