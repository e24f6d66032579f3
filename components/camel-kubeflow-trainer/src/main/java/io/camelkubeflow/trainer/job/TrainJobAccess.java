package io.camelkubeflow.trainer.job;

import io.camelkubeflow.trainer.access.Access;
import io.camelkubeflow.trainer.api.Initializer;
import io.camelkubeflow.trainer.api.RuntimePatch;
import io.camelkubeflow.trainer.api.RuntimePatch.ContainerPatch;
import io.camelkubeflow.trainer.api.RuntimePatch.PodSpecPatch;
import io.camelkubeflow.trainer.api.StorageInitializer;
import io.camelkubeflow.trainer.api.TrainJob;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.Volume;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * What a caller must be allowed to do for a TrainJob to be made on its behalf: create TrainJobs in the namespace,
 * and read every Secret, ConfigMap and PersistentVolumeClaim the job would hand its pods (env references, initializer
 * credentials, the volumes and image pull Secrets of its runtime patches), since the pods could print or use them. An inline script travels inside the TrainJob and needs nothing more; a workspace is staged
 * in a ConfigMap, which the caller must be allowed to create and patch.
 */
public final class TrainJobAccess {
    private TrainJobAccess() {}

    /** All of it: {@link #create} in the job's namespace, then {@link #referenced}. */
    public static List<Access> required(PreparedTrainJob prepared) {
        List<Access> needed = new ArrayList<>();
        needed.add(create(prepared.trainJob().getMetadata().getNamespace()));
        needed.addAll(referenced(prepared));
        return needed;
    }

    /** Creating TrainJobs in the namespace: reviewed first, before anything of the request is looked up or read. */
    public static Access create(String namespace) {
        return Access.trainJobs("create", namespace, null);
    }

    /** What the job would hand its pods or have staged, besides its create. */
    public static List<Access> referenced(PreparedTrainJob prepared) {
        TrainJob job = prepared.trainJob();
        String namespace = job.getMetadata().getNamespace();
        Set<Access> needed = new LinkedHashSet<>();
        if (job.getSpec().trainer() != null) {
            envReferences(job.getSpec().trainer().env(), namespace, needed);
        }
        if (job.getSpec().runtimePatches() != null) {
            for (RuntimePatch patch : job.getSpec().runtimePatches()) {
                boolean own = TrainJobMetadata.PATCH_MANAGER.equals(patch.manager());
                for (PodSpecPatch pod : patch.podSpecs()) {
                    podReferences(namespace, pod, own, needed);
                }
            }
        }
        if (prepared.workspaceInConfigMap()) {
            // the workspace's ConfigMap is created, or patched to add the job as an owner, in the caller's name
            needed.add(Access.configMaps("create", namespace));
            needed.add(Access.configMaps("patch", namespace));
        }
        Initializer initializer = job.getSpec().initializer();
        if (initializer != null) {
            for (StorageInitializer storage : new StorageInitializer[] {initializer.dataset(), initializer.model()}) {
                if (storage != null && storage.secretRef() != null) {
                    needed.add(Access.readSecret(namespace, storage.secretRef().getName()));
                }
                // the credentials given as Secret keys (an access token, S3 keys)
                if (storage != null) {
                    envReferences(storage.env(), namespace, needed);
                }
            }
        }
        return new ArrayList<>(needed);
    }

    /** The Secrets and ConfigMaps a container's variables read their values from. */
    private static void envReferences(List<EnvVar> env, String namespace, Set<Access> needed) {
        if (env == null) {
            return;
        }
        for (EnvVar var : env) {
            if (var.getValueFrom() != null && var.getValueFrom().getSecretKeyRef() != null) {
                needed.add(Access.readSecret(
                        namespace, var.getValueFrom().getSecretKeyRef().getName()));
            }
            if (var.getValueFrom() != null && var.getValueFrom().getConfigMapKeyRef() != null) {
                needed.add(Access.readConfigMap(
                        namespace, var.getValueFrom().getConfigMapKeyRef().getName()));
            }
        }
    }

    private static void podReferences(String namespace, PodSpecPatch pod, boolean own, Set<Access> needed) {
        for (Volume volume : pod.volumes() == null ? List.<Volume>of() : pod.volumes()) {
            if (volume.getSecret() != null) {
                needed.add(Access.readSecret(namespace, volume.getSecret().getSecretName()));
            }
            // the staged workspace's ConfigMap is the job's own, made in the caller's name (create and patch below)
            if (volume.getConfigMap() != null
                    && !(own && TrainJobFactory.WORKSPACE_ARCHIVE_VOLUME.equals(volume.getName()))) {
                needed.add(Access.readConfigMap(namespace, volume.getConfigMap().getName()));
            }
            if (volume.getPersistentVolumeClaim() != null) {
                needed.add(Access.readPersistentVolumeClaim(
                        namespace, volume.getPersistentVolumeClaim().getClaimName()));
            }
        }
        if (pod.imagePullSecrets() != null) {
            pod.imagePullSecrets().forEach(secret -> needed.add(Access.readSecret(namespace, secret.getName())));
        }
        for (List<ContainerPatch> containers : Arrays.asList(pod.containers(), pod.initContainers())) {
            for (ContainerPatch container : containers == null ? List.<ContainerPatch>of() : containers) {
                envReferences(container.env(), namespace, needed);
            }
        }
    }
}
