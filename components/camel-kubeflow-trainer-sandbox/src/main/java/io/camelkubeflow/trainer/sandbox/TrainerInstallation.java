package io.camelkubeflow.trainer.sandbox;

import static io.camelkubeflow.trainer.sandbox.TrainerSandbox.CRDS;
import static io.camelkubeflow.trainer.sandbox.TrainerSandbox.DEFAULT_RUNTIMES;
import static io.camelkubeflow.trainer.sandbox.TrainerSandbox.RUNTIMES;
import static io.camelkubeflow.trainer.sandbox.TrainerSandbox.TRAINER_SYSTEM_NAMESPACE;
import static io.camelkubeflow.trainer.sandbox.TrainerSandbox.TRAINER_VERSION;

import io.camelkubeflow.trainer.sandbox.store.CrdSchemaValidator;
import io.camelkubeflow.trainer.sandbox.store.Discovery;
import io.camelkubeflow.trainer.sandbox.store.JsonResources;
import io.camelkubeflow.trainer.sandbox.store.ObservingCrudDispatcher;
import io.camelkubeflow.trainer.sandbox.store.ServedCrd;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.fabric8.mockwebserver.dsl.HttpMethod;
import io.fabric8.mockwebserver.http.Buffer;
import io.fabric8.mockwebserver.http.Headers;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * What a cluster with the Trainer installed has before anyone uses it: the CRDs (the TrainJob's admitting TrainJob
 * writes, the runtimes' defaulting runtimes), the default runtimes, the system namespaces and the Trainer's public
 * ConfigMap; then the objects of given manifests and namespaces. Written straight into the store, as an installer's
 * {@code kubectl apply} would have left them, without a trip through the wire.
 */
final class TrainerInstallation {
    private static final List<String> INSTALLED_CRDS = List.of(
            JsonResources.TRAINJOBS_CRD,
            CRDS + "trainer.kubeflow.org_clustertrainingruntimes.yaml",
            CRDS + "trainer.kubeflow.org_trainingruntimes.yaml",
            JsonResources.JOBSET_CRD);
    private static final String NAMESPACES = "/api/v1/namespaces";
    private static final String CLUSTER_RUNTIMES = "/apis/trainer.kubeflow.org/v1alpha1/clustertrainingruntimes";
    private final ObservingCrudDispatcher store;

    TrainerInstallation(ObservingCrudDispatcher store) {
        this.store = store;
    }

    /** The Trainer's CRDs, its default runtimes, the system namespaces and its public ConfigMap. */
    void installTrainer() {
        for (String crd : INSTALLED_CRDS) {
            String json = JsonResources.read(crd);
            installObject(crd, Discovery.CRDS, json);
            if (crd.equals(JsonResources.TRAINJOBS_CRD)) {
                store.admission().admitTrainJobsBy(CrdSchemaValidator.of(json));
            } else if (crd.startsWith(CRDS)) {
                store.admission()
                        .defaultRuntimesBy(ServedCrd.of(json).context().getPlural(), CrdSchemaValidator.of(json));
            }
        }
        RuntimesOverlay overlay = RuntimesOverlay.release();
        for (String runtime : DEFAULT_RUNTIMES) {
            installObject(RUNTIMES + runtime, CLUSTER_RUNTIMES, overlay.apply(JsonResources.read(RUNTIMES + runtime)));
        }
        List.of("default", "kube-system", "kube-public", TRAINER_SYSTEM_NAMESPACE)
                .forEach(this::installNamespace);
        installObject(
                "the Trainer's public ConfigMap",
                NAMESPACES + "/" + TRAINER_SYSTEM_NAMESPACE + "/configmaps",
                Serialization.asJson(new ConfigMapBuilder()
                        .withNewMetadata()
                        .withName("kubeflow-trainer-public")
                        .endMetadata()
                        .addToData("kubeflow_trainer_version", TRAINER_VERSION)
                        .build()));
    }

    void installManifest(KubernetesClient client, Path manifest) {
        List<HasMetadata> objects;
        try {
            objects = client.load(new ByteArrayInputStream(Files.readAllBytes(manifest)))
                    .items();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the manifest " + manifest, e);
        }
        for (HasMetadata object : objects) {
            String what = manifest + ": " + object.getApiVersion() + " " + object.getKind() + " "
                    + object.getMetadata().getName();
            String path = store.discovery().collectionPath(object);
            if (path == null) {
                throw new IllegalArgumentException(what + ": the sandbox does not serve that kind");
            }
            installObject(what, path, Serialization.asJson(object));
        }
    }

    /** A namespace as the cluster's admin makes it, unless it exists (a manifest may have made it). */
    void installNamespace(String name) {
        if (!store.namespaceExists(name)) {
            installObject("namespace " + name, NAMESPACES, Serialization.asJson(namespace(name)));
        }
    }

    /** Creates an object in process, as a POST of its JSON to its collection would; a refusal is a failure. */
    private void installObject(String what, String collection, String json) {
        MockResponse answer = store.dispatch(new RecordedRequest(
                "HTTP/1.1",
                HttpMethod.POST,
                collection,
                Headers.builder().add("Content-Type", "application/json").build(),
                new Buffer(json.getBytes(StandardCharsets.UTF_8))));
        if (answer == null || answer.code() != 201) {
            String body = answer == null || answer.getBody() == null
                    ? ""
                    : answer.getBody().readUtf8();
            throw new IllegalStateException(what + ": the sandbox could not create it: "
                    + (answer == null ? "not served" : answer.code() + " " + body));
        }
    }

    static Namespace namespace(String name) {
        return new NamespaceBuilder()
                .withNewMetadata()
                .withName(name)
                .addToLabels("kubernetes.io/metadata.name", name)
                .endMetadata()
                .withNewStatus()
                .withPhase("Active")
                .endStatus()
                .build();
    }
}
