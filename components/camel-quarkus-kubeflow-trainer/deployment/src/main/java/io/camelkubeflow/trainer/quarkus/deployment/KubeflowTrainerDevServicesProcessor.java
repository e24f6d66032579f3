package io.camelkubeflow.trainer.quarkus.deployment;

import io.camelkubeflow.trainer.quarkus.TrainerCluster;
import io.camelkubeflow.trainer.sandbox.TrainerSandbox;
import io.fabric8.kubernetes.client.Config;
import io.quarkus.deployment.IsNormal;
import io.quarkus.deployment.annotations.BuildStep;
import io.quarkus.deployment.annotations.BuildSteps;
import io.quarkus.deployment.builditem.DevServicesResultBuildItem;
import io.quarkus.deployment.dev.devservices.DevServicesConfig;
import io.quarkus.kubernetes.client.runtime.internal.KubernetesClientBuildConfig;
import io.quarkus.kubernetes.client.spi.KubernetesDevServiceInfoBuildItem;
import java.util.List;
import java.util.Optional;
import org.jboss.logging.Logger;

/**
 * The Dev Service: in dev and test mode, with no cluster configured, the local Trainer sandbox (an API server with the
 * Trainer's CRDs and runtimes and its controller emulated, in this JVM) and Quarkus's Kubernetes client pointed at it.
 * The Kubernetes client's own Dev Service (k3s in Docker) has no Trainer installed; when it did start a cluster, that
 * is the cluster configured and this one stands aside.
 */
@BuildSteps(onlyIfNot = IsNormal.class, onlyIf = DevServicesConfig.Enabled.class)
class KubeflowTrainerDevServicesProcessor {
    private static final Logger LOG = Logger.getLogger(KubeflowTrainerDevServicesProcessor.class);

    @BuildStep
    DevServicesResultBuildItem trainerSandbox(
            KubeflowTrainerBuildTimeConfig config,
            KubernetesClientBuildConfig kubernetesClient,
            Optional<KubernetesDevServiceInfoBuildItem> kubernetesDevService) {
        KubeflowTrainerBuildTimeConfig.DevServicesConfig devservices = config.devservices();
        if (!devservices.enabled()) {
            LOG.debug("No Dev Service for Kubeflow Trainer: quarkus.kubeflow-trainer.devservices.enabled=false");
            return null;
        }
        Optional<String> configured = clusterConfigured(kubernetesClient, kubernetesDevService.isPresent());
        if (configured.isPresent()) {
            LOG.debugf("No Dev Service for Kubeflow Trainer: %s", configured.get());
            return null;
        }
        TrainerSandbox.Options options = TrainerSandbox.Options.standalone()
                .withPort(devservices.port())
                .withInstalled(
                        devservices.manifests().orElse(List.of()),
                        devservices.namespaces().orElse(List.of()).toArray(String[]::new));
        return DevServicesResultBuildItem.<TrainerSandboxDevService>owned()
                .feature(KubeflowTrainerProcessor.FEATURE)
                .description("the local Kubeflow Trainer sandbox")
                // restarted on a live reload only when its settings change
                .serviceConfig(List.of(
                        devservices.port(),
                        devservices.kubeconfig().toAbsolutePath().toString(),
                        devservices.manifests().orElse(List.of()).toString(),
                        devservices.namespaces().orElse(List.of())))
                .startable(() -> new TrainerSandboxDevService(options, devservices.kubeconfig()))
                .configProvider(TrainerSandboxDevService.appConfig())
                .postStartHook(sandbox -> LOG.infof(
                        "Dev Services for Kubeflow Trainer started the local Trainer"
                                + " sandbox at %s (an emulation, not a cluster); its kubeconfig: %s",
                        sandbox.getConnectionInfo(), sandbox.kubeconfig()))
                .build();
    }

    /**
     * Why a cluster counts as configured (Quarkus's client settings, or what fabric8's auto-configuration finds: a
     * kubeconfig, the in-cluster service account, KUBERNETES_MASTER; as the runtime's TrainerCluster judges it), or
     * empty when none is.
     */
    static Optional<String> clusterConfigured(
            KubernetesClientBuildConfig kubernetesClient, boolean kubernetesDevServiceStarted) {
        if (kubernetesDevServiceStarted) {
            return Optional.of("the Kubernetes client's Dev Service started a cluster; set"
                    + " quarkus.kubernetes-client.devservices.enabled=false for the Trainer sandbox");
        }
        boolean urlSet =
                kubernetesClient.apiServerUrl().or(kubernetesClient::masterUrl).isPresent();
        Config autoConfigured = Config.autoConfigure(null);
        if (TrainerCluster.clusterConfigured(autoConfigured, urlSet)) {
            return Optional.of(
                    urlSet
                            ? "quarkus.kubernetes-client.api-server-url is set"
                            : "the Kubernetes client finds a cluster at " + autoConfigured.getMasterUrl()
                                    + " (a kubeconfig, the in-cluster service account or KUBERNETES_MASTER)");
        }
        return Optional.empty();
    }
}
