package io.camelkubeflow.trainer.workspace;

import io.camelkubeflow.trainer.support.ApiRetry;
import io.camelkubeflow.trainer.support.InvalidOptionException;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.Status;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.http.HttpClient;
import io.fabric8.kubernetes.client.http.HttpResponse;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.fabric8.kubernetes.client.utils.URLUtils;
import java.net.HttpURLConnection;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Stages a workspace in a namespace as a ConfigMap named after its digest, so one workspace is stored once however
 * many jobs run it. Each job that uses it becomes one of its owners: Kubernetes' garbage collector deletes it with the
 * last of them. Staging comes after the job's create (its uid is the owner's): the job's pods wait for the volume, as
 * the kubelet makes them, for the moment it takes. A reuse is one request that sends no archive (a JSON patch adding
 * the owner); a first use finds no ConfigMap to patch and creates it, its first owner inside.
 */
public final class WorkspaceStaging {
    /** The ConfigMap key, and the file name in the pod, of the staged archive. */
    public static final String ARCHIVE_KEY = "workspace.tar.gz";
    /** The digest on the job and its ConfigMap, in the component's own domain (TrainJobMetadata.DOMAIN). */
    public static final String DIGEST_ANNOTATION = "camelkubeflow.io/workspace-sha256";

    public static final String DIGEST_LABEL = "camelkubeflow.io/workspace";
    /**
     * The API server refuses a ConfigMap whose data exceed 1 MiB (1,048,576 bytes); what is left is for its metadata.
     */
    public static final int MAX_STAGED_BYTES = 1_040_000;

    private final KubernetesClient client;
    private final ApiRetry retry;

    public WorkspaceStaging(KubernetesClient client, ApiRetry retry) {
        this.client = client;
        this.retry = retry;
    }

    /** The ConfigMap that holds a workspace: {@code workspace-<first 20 hex digits of its digest>}. */
    public static String configMapName(Workspace workspace) {
        return "workspace-" + workspace.shortDigest();
    }

    /** Whether the workspace's archive can be staged in a ConfigMap (else it needs a {@link WorkspaceStore}). */
    public static boolean fitsInConfigMap(Workspace workspace) {
        return workspace.archive().length <= MAX_STAGED_BYTES;
    }

    /** Refuses, before anything is written, a workspace too large to stage in a ConfigMap. */
    public static void checkSize(Workspace workspace, String field) {
        if (!fitsInConfigMap(workspace)) {
            throw new InvalidOptionException(
                    field,
                    "the workspace is " + workspace.archive().length + " bytes"
                            + " compressed, over the " + MAX_STAGED_BYTES + " bytes a ConfigMap can stage; leave data,"
                            + " checkpoints and virtual environments out of it (fetch data with datasetUri), or configure a"
                            + " workspaceStore (an object store) for large workspaces");
        }
    }

    /**
     * For a job adopted by a retry: stages the workspace unless the attempt that created the job did (it may have
     * stopped between the two).
     */
    public void stageForAdopted(Workspace workspace, HasMetadata job) {
        String namespace = job.getMetadata().getNamespace();
        ConfigMap staged = retry.call(
                "GET ConfigMap " + namespace + "/" + configMapName(workspace),
                () -> client.configMaps()
                        .inNamespace(namespace)
                        .withName(configMapName(workspace))
                        .get());
        if (staged == null
                || staged.getMetadata().getOwnerReferences().stream()
                        .noneMatch(ref -> job.getMetadata().getUid().equals(ref.getUid()))) {
            stageFor(workspace, job);
        }
    }

    /**
     * Makes {@code job} an owner of the workspace's ConfigMap in its namespace, creating the ConfigMap if it does not
     * exist; a concurrent first use of the same workspace is met by patching again.
     */
    public void stageFor(Workspace workspace, HasMetadata job) {
        String namespace = job.getMetadata().getNamespace();
        String name = configMapName(workspace);
        OwnerReference owner = new OwnerReferenceBuilder()
                .withApiVersion(job.getApiVersion())
                .withKind(job.getKind())
                .withName(job.getMetadata().getName())
                .withUid(job.getMetadata().getUid())
                .withBlockOwnerDeletion(false)
                .build();
        String addOwner = Serialization.asJson(
                List.of(Map.of("op", "add", "path", "/metadata/ownerReferences/-", "value", owner)));
        for (int attempt = 0; ; attempt++) {
            try {
                retry.call(
                        "add an owner to ConfigMap " + namespace + "/" + name, () -> patch(namespace, name, addOwner));
                return;
            } catch (KubernetesClientException e) {
                if (e.getCode() != HttpURLConnection.HTTP_NOT_FOUND || attempt > 0) {
                    throw e;
                }
            }
            ConfigMap staged = new ConfigMapBuilder()
                    .withNewMetadata()
                    .withName(name)
                    .withNamespace(namespace)
                    .addToLabels(DIGEST_LABEL, workspace.shortDigest())
                    .addToAnnotations(DIGEST_ANNOTATION, workspace.digest())
                    .withOwnerReferences(owner)
                    .endMetadata()
                    .withImmutable(true)
                    .addToBinaryData(ARCHIVE_KEY, Base64.getEncoder().encodeToString(workspace.archive()))
                    .build();
            try {
                retry.call(
                        "create ConfigMap " + namespace + "/" + name,
                        () -> client.configMaps()
                                .inNamespace(namespace)
                                .resource(staged)
                                .create());
                return;
            } catch (KubernetesClientException e) {
                if (e.getCode() != HttpURLConnection.HTTP_CONFLICT) {
                    throw e;
                }
                // made by a concurrent first use between our patch and create: patch it now
            }
        }
    }

    /**
     * A JSON patch sent as is: the client's own patch reads the object first, which here would fetch the whole archive
     * to add one owner.
     */
    private Void patch(String namespace, String name, String jsonPatch) {
        String url = URLUtils.join(
                client.getMasterUrl().toString(), "api", "v1", "namespaces", namespace, "configmaps", name);
        HttpClient http = client.getHttpClient();
        long timeout = client.getConfiguration().getRequestTimeout();
        HttpResponse<String> response;
        try {
            response = http.sendAsync(
                            http.newHttpRequestBuilder()
                                    .uri(url)
                                    .method("PATCH", "application/json-patch+json", jsonPatch)
                                    .timeout(timeout, TimeUnit.MILLISECONDS)
                                    .build(),
                            String.class)
                    .get(timeout, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new KubernetesClientException("interrupted while patching ConfigMap " + namespace + "/" + name, e);
        } catch (ExecutionException | TimeoutException e) {
            throw new KubernetesClientException("patching ConfigMap " + namespace + "/" + name + " failed: " + e, e);
        }
        if (!response.isSuccessful()) {
            Status status = response.body() != null && response.body().startsWith("{")
                    ? Serialization.unmarshal(response.body(), Status.class)
                    : null;
            throw new KubernetesClientException(
                    status != null && status.getMessage() != null
                            ? status.getMessage()
                            : "PATCH ConfigMap " + namespace + "/" + name + " answered " + response.code(),
                    response.code(),
                    status);
        }
        return null;
    }
}
