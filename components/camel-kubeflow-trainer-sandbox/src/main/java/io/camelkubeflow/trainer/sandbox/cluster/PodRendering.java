package io.camelkubeflow.trainer.sandbox.cluster;

import static io.camelkubeflow.trainer.sandbox.store.JsonMaps.list;
import static io.camelkubeflow.trainer.sandbox.store.JsonMaps.map;

import io.fabric8.kubernetes.api.model.Affinity;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerPortBuilder;
import io.fabric8.kubernetes.api.model.EnvFromSource;
import io.fabric8.kubernetes.api.model.EnvFromSourceBuilder;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.EnvVarBuilder;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.LocalObjectReference;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.PodSecurityContext;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ResourceRequirements;
import io.fabric8.kubernetes.api.model.SecurityContext;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeBuilder;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.api.model.VolumeMountBuilder;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.math.BigInteger;
import java.math.RoundingMode;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Predicate;

/**
 * The pod spec JobSet would give one pod of a TrainJob, rendered as the Trainer v2.3 runtime plugins do: the runtime's
 * replicated-job pod template, the TrainJob's runtime patches merged into it, the trainer settings (image, command,
 * args, env, resourcesPerNode) on the trainer's {@code node} container, the env the torch plugin (PET_*) or the MPI
 * plugin (OMPI_MCA_*, the hostfile volume) inject, and the initializers' settings (storage URI, env, Secret).
 */
final class PodRendering {
    static final String ANCESTOR_LABEL = "trainer.kubeflow.org/trainjob-ancestor-step";
    private static final int TORCH_PORT = 29500;

    private PodRendering() {}

    /** How many pods a replicated job runs: the trainer's numNodes (less the MPI launcher when it runs as a node). */
    static int podCount(Map<String, Object> replicatedJob, Map<String, Object> mlPolicy, int numNodes) {
        if (!"node".equals(replicatedJob.get("name"))) {
            return 1;
        }
        boolean launcherAsNode = Boolean.TRUE.equals(map(mlPolicy.get("mpi")).get("runLauncherAsNode"));
        return mlPolicy.containsKey("mpi") && launcherAsNode ? Math.max(numNodes - 1, 1) : numNodes;
    }

    /** The spec of pod {@code index} of {@code replicatedJob} for {@code job} on {@code runtime}. */
    static PodSpec spec(
            GenericKubernetesResource job,
            Map<String, Object> runtimeSpec,
            Map<String, Object> replicatedJob,
            int numNodes) {
        String jobName = (String) replicatedJob.get("name");
        Map<String, Object> template =
                map(map(map(replicatedJob.get("template")).get("spec")).get("template"));
        PodSpec spec = Serialization.jsonMapper().convertValue(map(template.get("spec")), PodSpec.class);
        Map<String, Object> jobSpec = map(job.getAdditionalProperties().get("spec"));
        for (Map<String, Object> patched : patchedPodTemplates(job, jobName::equals)) {
            merge(spec, map(patched.get("spec")));
        }
        Map<String, Object> mlPolicy = map(runtimeSpec.get("mlPolicy"));
        Map<String, Object> trainer = map(jobSpec.get("trainer"));
        String ancestor = ancestor(replicatedJob);
        Container node = container(spec, "node");
        if ("trainer".equals(ancestor) && node != null) {
            List<String> runtimeCommand = node.getCommand();
            applyTrainer(node, trainer);
            if (mlPolicy.containsKey("torch")) {
                String processes = injectTorch(node, job.getMetadata().getName(), trainer, numNodes);
                if (TorchTuneCommand.ENTRYPOINT.equals(node.getCommand())) {
                    String runtimeName =
                            String.valueOf(map(jobSpec.get("runtimeRef")).get("name"));
                    node.setCommand(TorchTuneCommand.complete(
                            job.getMetadata().getName(),
                            runtimeName,
                            numNodes,
                            processes,
                            gpus(node.getResources()),
                            node.getArgs(),
                            runtimeCommand));
                }
            }
        }
        if (mlPolicy.containsKey("mpi")) {
            injectMpi(
                    spec,
                    job.getMetadata().getName(),
                    "trainer".equals(ancestor),
                    map(mlPolicy.get("mpi")),
                    mpiSlots(job, runtimeSpec));
        }
        Map<String, Object> initializer = map(jobSpec.get("initializer"));
        if ("dataset-initializer".equals(ancestor) || "model-initializer".equals(ancestor)) {
            // as the Trainer's JobSet builder: only the container named as the step gets the settings, and only when
            // the TrainJob has that initializer; the storage URI, then its env upserted, then the Secret as envFrom
            Container container = container(spec, ancestor);
            Object settings = initializer.get(ancestor.replace("-initializer", ""));
            if (container != null && settings instanceof Map<?, ?>) {
                Map<String, Object> storage = map(settings);
                if (storage.get("storageUri") instanceof String uri) {
                    upsertEnv(
                            container,
                            List.of(new EnvVarBuilder()
                                    .withName("STORAGE_URI")
                                    .withValue(uri)
                                    .build()));
                }
                upsertEnv(container, envVars(storage.get("env")));
                if (map(storage.get("secretRef")).get("name") instanceof String secret) {
                    List<EnvFromSource> envFrom = new ArrayList<>(container.getEnvFrom());
                    envFrom.add(new EnvFromSourceBuilder()
                            .withNewSecretRef()
                            .withName(secret)
                            .endSecretRef()
                            .build());
                    container.setEnvFrom(envFrom);
                }
            }
        }
        return spec;
    }

    /**
     * The labels and annotations of a replicated job's pods: its pod template's, then those the TrainJob's runtime
     * patches add (a staged script's annotation among them).
     */
    static ObjectMeta metadata(GenericKubernetesResource job, Map<String, Object> replicatedJob) {
        String jobName = (String) replicatedJob.get("name");
        Map<String, Object> template =
                map(map(map(replicatedJob.get("template")).get("spec")).get("template"));
        Map<String, String> labels =
                new LinkedHashMap<>(strings(map(template.get("metadata")).get("labels")));
        Map<String, String> annotations =
                new LinkedHashMap<>(strings(map(template.get("metadata")).get("annotations")));
        for (Map<String, Object> patched : patchedPodTemplates(job, jobName::equals)) {
            labels.putAll(strings(map(patched.get("metadata")).get("labels")));
            annotations.putAll(strings(map(patched.get("metadata")).get("annotations")));
        }
        return new ObjectMetaBuilder()
                .withLabels(labels)
                .withAnnotations(annotations)
                .build();
    }

    /** The pod templates (metadata and spec) the TrainJob's runtime patches give the replicated jobs named. */
    static List<Map<String, Object>> patchedPodTemplates(
            GenericKubernetesResource job, Predicate<String> replicatedJobs) {
        List<Map<String, Object>> podTemplates = new ArrayList<>();
        for (Object patch : list(map(job.getAdditionalProperties().get("spec")).get("runtimePatches"))) {
            for (Object patchedJob :
                    list(map(map(map(map(patch).get("trainingRuntimeSpec")).get("template"))
                                    .get("spec"))
                            .get("replicatedJobs"))) {
                if (map(patchedJob).get("name") instanceof String name && replicatedJobs.test(name)) {
                    podTemplates.add(
                            map(map(map(map(patchedJob).get("template")).get("spec"))
                                    .get("template")));
                }
            }
        }
        return podTemplates;
    }

    static Map<String, String> strings(Object value) {
        Map<String, String> strings = new LinkedHashMap<>();
        map(value).forEach((k, v) -> strings.put(k, String.valueOf(v)));
        return strings;
    }

    static String ancestor(Map<String, Object> replicatedJob) {
        Object label = map(map(map(replicatedJob.get("template")).get("metadata"))
                        .get("labels"))
                .get(ANCESTOR_LABEL);
        return label instanceof String text ? text : "";
    }

    private static void applyTrainer(Container node, Map<String, Object> trainer) {
        if (trainer.get("image") instanceof String image) {
            node.setImage(image);
        }
        if (trainer.get("command") instanceof List<?> command) {
            node.setCommand(command.stream().map(String::valueOf).toList());
        }
        if (trainer.get("args") instanceof List<?> args) {
            node.setArgs(args.stream().map(String::valueOf).toList());
        }
        upsertEnv(node, envVars(trainer.get("env")));
        if (trainer.get("resourcesPerNode") instanceof Map<?, ?> resources) {
            node.setResources(Serialization.jsonMapper().convertValue(resources, ResourceRequirements.class));
        }
    }

    /**
     * The torch plugin's PET_* env; the master's address and port only for torchrun, since the torchtune builtin
     * trainer ({@code tune run}) is given its rendezvous endpoint on the command line.
     *
     * @return the processes per node it settled on
     */
    private static String injectTorch(Container node, String jobName, Map<String, Object> trainer, int numNodes) {
        Object perNode = trainer.get("numProcPerNode");
        String processes = perNode != null ? String.valueOf(perNode) : processesPerNode(node.getResources());
        upsertEnv(
                node,
                List.of(
                        new EnvVarBuilder()
                                .withName("PET_NNODES")
                                .withValue(Integer.toString(numNodes))
                                .build(),
                        new EnvVarBuilder()
                                .withName("PET_NPROC_PER_NODE")
                                .withValue(processes)
                                .build(),
                        new EnvVarBuilder()
                                .withName("PET_NODE_RANK")
                                .withNewValueFrom()
                                .withNewFieldRef()
                                .withFieldPath("metadata.annotations['batch.kubernetes.io/job-completion-index']")
                                .endFieldRef()
                                .endValueFrom()
                                .build()));
        if (!TorchTuneCommand.ENTRYPOINT.equals(node.getCommand())) {
            upsertEnv(
                    node,
                    List.of(
                            new EnvVarBuilder()
                                    .withName("PET_MASTER_ADDR")
                                    .withValue(jobName + "-node-0-0." + jobName)
                                    .build(),
                            new EnvVarBuilder()
                                    .withName("PET_MASTER_PORT")
                                    .withValue(Integer.toString(TORCH_PORT))
                                    .build()));
        }
        if (node.getPorts().stream().noneMatch(p -> p.getContainerPort() == TORCH_PORT)) {
            node.getPorts()
                    .add(new ContainerPortBuilder()
                            .withContainerPort(TORCH_PORT)
                            .withProtocol("TCP")
                            .build());
        }
        return processes;
    }

    /** The GPUs per node as the Trainer counts them: those requested, else those limited to. */
    static long gpus(ResourceRequirements resources) {
        if (resources == null) {
            return 0;
        }
        long requested = amount(resources.getRequests(), "gpu");
        return requested > 0 ? requested : amount(resources.getLimits(), "gpu");
    }

    /**
     * What the Trainer's torch plugin makes of numProcPerNode left to "auto": one process per GPU ("auto" stays, for
     * torchrun to count them) when the node asks for GPUs, else one per CPU it requests (or is limited to), at least
     * one.
     */
    static String processesPerNode(ResourceRequirements resources) {
        if (resources == null) {
            return "1";
        }
        if (amount(resources.getRequests(), "gpu") > 0 || amount(resources.getLimits(), "gpu") > 0) {
            return "auto";
        }
        long cpus = amount(resources.getRequests(), "cpu");
        return Long.toString(Math.max(1, cpus > 0 ? cpus : amount(resources.getLimits(), "cpu")));
    }

    /**
     * A resource's quantity rounded up, as Go's Quantity.Value() reads it; for "gpu", any resource whose name
     * contains it (nvidia.com/gpu, amd.com/gpu).
     */
    private static long amount(Map<String, Quantity> resources, String name) {
        if (resources == null) {
            return 0;
        }
        return resources.entrySet().stream()
                .filter(e -> name.equals("gpu")
                        ? e.getKey().toLowerCase(Locale.ROOT).contains(name)
                        : e.getKey().equals(name))
                .findFirst()
                .map(e -> e.getValue()
                        .getNumericalAmount()
                        .setScale(0, RoundingMode.CEILING)
                        .longValueExact())
                .orElse(0L);
    }

    /**
     * The MPI plugin's slots per node (EnforceMLPolicy): the TrainJob's numProcPerNode, else the runtime's; a runtime's 1
     * becomes the GPUs per node when a node has more than one (the TrainJob's resourcesPerNode, else the runtime's
     * node container's).
     */
    static int mpiSlots(GenericKubernetesResource job, Map<String, Object> runtimeSpec) {
        Map<String, Object> trainer =
                map(map(job.getAdditionalProperties().get("spec")).get("trainer"));
        Object perNode = trainer.get("numProcPerNode");
        if (perNode instanceof Number number) {
            return number.intValue();
        }
        if (perNode instanceof String text && text.matches("\\d+")) {
            return Integer.parseInt(text);
        }
        Object inRuntime = map(map(runtimeSpec.get("mlPolicy")).get("mpi")).get("numProcPerNode");
        int slots = inRuntime instanceof Number number ? number.intValue() : 1;
        if (slots != 1) {
            return slots;
        }
        Object resources = trainer.containsKey("resourcesPerNode")
                ? trainer.get("resourcesPerNode")
                : runtimeNodeResources(runtimeSpec);
        long gpus = gpus(Serialization.jsonMapper().convertValue(resources, ResourceRequirements.class));
        return gpus > 1 ? (int) gpus : 1;
    }

    /** The resources of the runtime's node container, in the node or trainer replicated job. */
    private static Object runtimeNodeResources(Map<String, Object> runtimeSpec) {
        for (Object item :
                list(map(map(runtimeSpec.get("template")).get("spec")).get("replicatedJobs"))) {
            Map<String, Object> replicatedJob = map(item);
            if (!"node".equals(replicatedJob.get("name")) && !"trainer".equals(ancestor(replicatedJob))) {
                continue;
            }
            Map<String, Object> template =
                    map(map(map(replicatedJob.get("template")).get("spec")).get("template"));
            for (Object container : list(map(template.get("spec")).get("containers"))) {
                if ("node".equals(map(container).get("name")) && map(container).containsKey("resources")) {
                    return map(container).get("resources");
                }
            }
        }
        return null;
    }

    private static void injectMpi(PodSpec spec, String jobName, boolean launcher, Map<String, Object> mpi, int slots) {
        String sshPath = mpi.get("sshAuthMountPath") instanceof String path ? path : "/root/.ssh";
        // the Trainer's MPI plugin's items and modes: the private key 0640, the public key and authorized_keys 0644
        // in a 0400 volume, the hostfile 0444
        upsertVolume(
                spec,
                new VolumeBuilder()
                        .withName("mpi-ssh-auth")
                        .withNewSecret()
                        .withSecretName(jobName + "-mpi-ssh-auth")
                        .withDefaultMode(0400)
                        .addNewItem()
                        .withKey("ssh-privatekey")
                        .withMode(0640)
                        .withPath("id_rsa")
                        .endItem()
                        .addNewItem()
                        .withKey("ssh-publickey")
                        .withMode(0644)
                        .withPath("id_rsa.pub")
                        .endItem()
                        .addNewItem()
                        .withKey("ssh-publickey")
                        .withMode(0644)
                        .withPath("authorized_keys")
                        .endItem()
                        .endSecret()
                        .build());
        if (launcher) {
            upsertVolume(
                    spec,
                    new VolumeBuilder()
                            .withName("mpi-hostfile")
                            .withNewConfigMap()
                            .withName(jobName + "-mpi-hostfile")
                            .addNewItem()
                            .withKey("hostfile")
                            .withMode(0444)
                            .withPath("hostfile")
                            .endItem()
                            .endConfigMap()
                            .build());
        }
        for (Container container : spec.getContainers()) {
            if (!"node".equals(container.getName())) {
                continue;
            }
            upsertMount(
                    container,
                    new VolumeMountBuilder()
                            .withName("mpi-ssh-auth")
                            .withMountPath(sshPath)
                            .build());
            if (launcher) {
                upsertMount(
                        container,
                        new VolumeMountBuilder()
                                .withName("mpi-hostfile")
                                .withMountPath("/etc/mpi")
                                .build());
                upsertEnv(
                        container,
                        List.of(
                                new EnvVarBuilder()
                                        .withName("OMPI_MCA_orte_default_hostfile")
                                        .withValue("/etc/mpi/hostfile")
                                        .build(),
                                new EnvVarBuilder()
                                        .withName("OMPI_MCA_orte_keep_fqdn_hostnames")
                                        .withValue("true")
                                        .build(),
                                new EnvVarBuilder()
                                        .withName("OMPI_MCA_orte_set_default_slots")
                                        .withValue(Integer.toString(slots))
                                        .build(),
                                new EnvVarBuilder()
                                        .withName("OMPI_MCA_plm_rsh_args")
                                        .withValue("-o ConnectionAttempts=10")
                                        .build()));
            }
        }
    }

    /**
     * A PodSpecPatch merged as the Trainer does (a strategic merge patch of the JobSet spec): lists with a merge key
     * by it (volumes, containers, env and imagePullSecrets by name, volumeMounts by mountPath), objects (security
     * contexts, affinity) field by field, maps key by key, the other lists (tolerations) and values replaced.
     */
    private static void merge(PodSpec spec, Map<String, Object> patch) {
        PodSpec patchSpec = Serialization.jsonMapper().convertValue(patch, PodSpec.class);
        patchSpec.getVolumes().forEach(v -> upsertVolume(spec, v));
        for (Object item : list(patch.get("containers"))) {
            Map<String, Object> patchedMap = map(item);
            Container patched = Serialization.jsonMapper().convertValue(patchedMap, Container.class);
            Container container = container(spec, patched.getName());
            if (container == null) {
                continue;
            }
            upsertEnv(container, patched.getEnv());
            patched.getVolumeMounts().forEach(m -> upsertMount(container, m));
            if (patchedMap.containsKey("securityContext")) {
                container.setSecurityContext(merged(
                        container.getSecurityContext(), patchedMap.get("securityContext"), SecurityContext.class));
            }
        }
        List<Container> initContainers = new ArrayList<>(spec.getInitContainers());
        initContainers.addAll(patchSpec.getInitContainers());
        spec.setInitContainers(initContainers);
        if (patch.containsKey("nodeSelector")) {
            Map<String, String> selector = new LinkedHashMap<>(spec.getNodeSelector());
            selector.putAll(patchSpec.getNodeSelector());
            spec.setNodeSelector(selector);
        }
        if (patch.containsKey("tolerations")) {
            spec.setTolerations(patchSpec.getTolerations());
        }
        if (patch.containsKey("affinity")) {
            spec.setAffinity(merged(spec.getAffinity(), patch.get("affinity"), Affinity.class));
        }
        if (patch.containsKey("serviceAccountName")) {
            spec.setServiceAccountName(patchSpec.getServiceAccountName());
        }
        if (patch.containsKey("imagePullSecrets")) {
            List<LocalObjectReference> secrets = new ArrayList<>(spec.getImagePullSecrets());
            for (LocalObjectReference secret : patchSpec.getImagePullSecrets()) {
                secrets.removeIf(existing -> existing.getName().equals(secret.getName()));
                secrets.add(secret);
            }
            spec.setImagePullSecrets(secrets);
        }
        if (patch.containsKey("securityContext")) {
            spec.setSecurityContext(
                    merged(spec.getSecurityContext(), patch.get("securityContext"), PodSecurityContext.class));
        }
        if (patch.containsKey("schedulingGates")) {
            spec.setSchedulingGates(patchSpec.getSchedulingGates());
        }
    }

    /** An object with a patch merged field by field (nested objects too; lists and values replaced). */
    private static <T> T merged(T current, Object patch, Class<T> type) {
        Map<String, Object> target = current == null
                ? new LinkedHashMap<>()
                : new LinkedHashMap<>(map(Serialization.jsonMapper().convertValue(current, Map.class)));
        deepMerge(target, map(patch));
        return Serialization.jsonMapper().convertValue(target, type);
    }

    private static void deepMerge(Map<String, Object> target, Map<String, Object> patch) {
        patch.forEach((key, value) -> {
            if (value instanceof Map && target.get(key) instanceof Map) {
                Map<String, Object> nested = new LinkedHashMap<>(map(target.get(key)));
                deepMerge(nested, map(value));
                target.put(key, nested);
            } else if (value == null) {
                target.remove(key);
            } else {
                target.put(key, value);
            }
        });
    }

    private static Container container(PodSpec spec, String name) {
        return spec.getContainers().stream()
                .filter(c -> name.equals(c.getName()))
                .findFirst()
                .orElse(null);
    }

    private static List<EnvVar> envVars(Object env) {
        return env instanceof List<?> list
                ? list.stream()
                        .map(e -> Serialization.jsonMapper().convertValue(e, EnvVar.class))
                        .toList()
                : List.of();
    }

    /** As the Trainer's apply.UpsertEnvVars: a variable of the same name is replaced where it stands, else appended. */
    private static void upsertEnv(Container container, List<EnvVar> env) {
        List<EnvVar> merged = new ArrayList<>(container.getEnv());
        for (EnvVar var : env) {
            int at = -1;
            for (int i = 0; i < merged.size() && at < 0; i++) {
                if (merged.get(i).getName().equals(var.getName())) {
                    at = i;
                }
            }
            if (at >= 0) {
                merged.set(at, var);
            } else {
                merged.add(var);
            }
        }
        container.setEnv(merged);
    }

    private static void upsertVolume(PodSpec spec, Volume volume) {
        List<Volume> volumes = new ArrayList<>(spec.getVolumes());
        volumes.removeIf(existing -> existing.getName().equals(volume.getName()));
        volumes.add(volume);
        spec.setVolumes(volumes);
    }

    private static void upsertMount(Container container, VolumeMount mount) {
        List<VolumeMount> mounts = new ArrayList<>(container.getVolumeMounts());
        mounts.removeIf(existing -> existing.getMountPath().equals(mount.getMountPath()));
        mounts.add(mount);
        container.setVolumeMounts(mounts);
    }

    /** The image digest a kubelet reports for an image, stable for one image name. */
    static String imageId(String image) {
        String digest = String.format("%064x", new BigInteger(1, sha256(image)));
        return (image.contains("/") ? "" : "docker.io/library/") + image.replaceAll(":[^/:]*$", "") + "@sha256:"
                + digest;
    }

    private static byte[] sha256(String text) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
