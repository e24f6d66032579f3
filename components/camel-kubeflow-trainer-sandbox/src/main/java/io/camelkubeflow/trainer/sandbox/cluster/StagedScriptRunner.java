package io.camelkubeflow.trainer.sandbox.cluster;

import static io.camelkubeflow.trainer.sandbox.store.JsonMaps.list;
import static io.camelkubeflow.trainer.sandbox.store.JsonMaps.map;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapKeySelector;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretKeySelector;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Runs a TrainJob's staged Python script for real, as local {@code python3} processes (one per node): the sandbox's way of
 * letting a newcomer see their script's output without a cluster. A script is "staged" when the trainer command
 * names a file of a volume (a downward API volume over a pod annotation, or a ConfigMap) that a runtime patch mounts
 * into the {@code node} container. Commands that install
 * packages first (bash wrappers) are not run: the sandbox has no package index.
 */
final class StagedScriptRunner {
    static final Duration MAX_RUN = Duration.ofMinutes(10);
    /** A downward API field path naming one annotation of the pod. */
    private static final Pattern ANNOTATION_FIELD = Pattern.compile("metadata\\.annotations\\['(.+)'\\]");
    /** A label's field path: the Job controller's JOB_COMPLETION_INDEX reads the completion index label. */
    private static final Pattern LABEL_FIELD = Pattern.compile("metadata\\.labels\\['(.+)'\\]");

    /** The script and its arguments, when the job runs a staged script. */
    record Script(String fileName, String source, List<String> args, Map<String, String> env) {}

    private StagedScriptRunner() {}

    static Optional<Script> find(KubernetesClient client, GenericKubernetesResource job) {
        Map<String, Object> spec = map(job.getAdditionalProperties().get("spec"));
        Map<String, Object> trainer = map(spec.get("trainer"));
        List<String> command =
                list(trainer.get("command")).stream().map(String::valueOf).toList();
        if (command.isEmpty() || command.contains("bash")) {
            return Optional.empty();
        }
        for (Map<String, Object> podTemplate : PodRendering.patchedPodTemplates(job, name -> true)) {
            Map<String, Object> podSpec = map(podTemplate.get("spec"));
            for (Object volume : list(podSpec.get("volumes"))) {
                String mountPath = mountPathOf(podSpec, (String) map(volume).get("name"));
                if (mountPath == null) {
                    continue;
                }
                for (Map.Entry<String, String> file : files(client, job, map(podTemplate.get("metadata")), map(volume))
                        .entrySet()) {
                    int at = command.indexOf(mountPath + "/" + file.getKey());
                    if (at >= 0) {
                        List<String> args = new ArrayList<>(command.subList(at + 1, command.size()));
                        list(trainer.get("args")).forEach(a -> args.add(String.valueOf(a)));
                        return Optional.of(new Script(file.getKey(), file.getValue(), args, plainEnv(trainer)));
                    }
                }
            }
        }
        return Optional.empty();
    }

    /**
     * The files a volume holds, as a kubelet would write them: a ConfigMap's keys, or a downward API volume's items
     * taken from the pod's annotations.
     */
    private static Map<String, String> files(
            KubernetesClient client,
            GenericKubernetesResource job,
            Map<String, Object> podMetadata,
            Map<String, Object> volume) {
        Map<String, String> files = new LinkedHashMap<>();
        if (map(volume.get("configMap")).get("name") instanceof String configMapName) {
            ConfigMap configMap = client.configMaps()
                    .inNamespace(job.getMetadata().getNamespace())
                    .withName(configMapName)
                    .get();
            if (configMap != null && configMap.getData() != null) {
                files.putAll(configMap.getData());
            }
        }
        Map<String, Object> annotations = map(podMetadata.get("annotations"));
        for (Object item : list(map(volume.get("downwardAPI")).get("items"))) {
            Matcher annotation = ANNOTATION_FIELD.matcher(
                    String.valueOf(map(map(item).get("fieldRef")).get("fieldPath")));
            if (annotation.matches() && annotations.get(annotation.group(1)) instanceof String value) {
                files.put(String.valueOf(map(item).get("path")), value);
            }
        }
        return files;
    }

    /** The ConfigMaps the job's runtime patches mount as volumes (not marked optional): pods start once they exist. */
    static List<String> mountedConfigMaps(GenericKubernetesResource job) {
        List<String> names = new ArrayList<>();
        for (Map<String, Object> podTemplate : PodRendering.patchedPodTemplates(job, name -> true)) {
            for (Object volume : list(map(podTemplate.get("spec")).get("volumes"))) {
                Map<String, Object> configMap = map(map(volume).get("configMap"));
                if (configMap.get("name") instanceof String name && !Boolean.TRUE.equals(configMap.get("optional"))) {
                    names.add(name);
                }
            }
        }
        return names;
    }

    /**
     * Runs the script as {@code pod}'s process, with its env, sending each output line to {@code log}; returns the exit
     * code.
     */
    static int run(KubernetesClient client, Script script, Pod pod, Consumer<String> log) {
        try {
            Path dir = Files.createTempDirectory("trainer-sandbox-");
            Path file = dir.resolve(script.fileName());
            Files.writeString(file, script.source());
            List<String> command = new ArrayList<>(List.of("python3", "-u", file.toString()));
            command.addAll(script.args());
            return runAsPod(client, command, dir, script.env(), pod, log);
        } catch (IOException e) {
            log.accept("sandbox: could not stage the script: " + e.getMessage());
            return 127;
        }
    }

    /**
     * Runs a local process as {@code pod}'s one process: the trainer env given, then the pod's own; its rank and world
     * size what torchrun would give it (the node rank PET_NODE_RANK and the node count PET_NNODES, else 0 and 1); each
     * output line to {@code log}. Returns the exit code: 137 when it ran longer than {@link #MAX_RUN}, 127 when it
     * could not start.
     */
    static int runAsPod(
            KubernetesClient client,
            List<String> command,
            Path dir,
            Map<String, String> env,
            Pod pod,
            Consumer<String> log) {
        Map<String, String> podEnv = podEnv(client, pod);
        try {
            ProcessBuilder builder =
                    new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true);
            builder.environment().putAll(env);
            builder.environment().putAll(podEnv);
            builder.environment().putIfAbsent("RANK", podEnv.getOrDefault("PET_NODE_RANK", "0"));
            builder.environment().putIfAbsent("LOCAL_RANK", "0");
            builder.environment().putIfAbsent("WORLD_SIZE", podEnv.getOrDefault("PET_NNODES", "1"));
            Process process = builder.start();
            try (BufferedReader out =
                    new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = out.readLine()) != null) {
                    log.accept(line);
                }
            }
            if (!process.waitFor(MAX_RUN.toMillis(), TimeUnit.MILLISECONDS)) {
                process.destroyForcibly();
                log.accept("sandbox: the process ran longer than " + MAX_RUN + " and was killed");
                return 137;
            }
            return process.exitValue();
        } catch (IOException e) {
            log.accept("sandbox: could not run " + command.get(0) + ": " + e.getMessage());
            return 127;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return 130;
        }
    }

    private static String mountPathOf(Map<String, Object> podSpec, String volumeName) {
        for (Object container : list(podSpec.get("containers"))) {
            for (Object mount : list(map(container).get("volumeMounts"))) {
                if (volumeName != null && volumeName.equals(map(mount).get("name"))) {
                    return (String) map(mount).get("mountPath");
                }
            }
        }
        return null;
    }

    private static Map<String, String> plainEnv(Map<String, Object> trainer) {
        Map<String, String> env = new LinkedHashMap<>();
        for (Object var : list(trainer.get("env"))) {
            Object value = map(var).get("value");
            if (value != null) {
                env.put(String.valueOf(map(var).get("name")), String.valueOf(value));
            }
        }
        return env;
    }

    /**
     * The env of a pod's first container as the kubelet gives it: values, field references to the pod's metadata, and
     * keys of the namespace's Secrets and ConfigMaps (a missing one left out, where a kubelet would not start the
     * container).
     */
    static Map<String, String> podEnv(KubernetesClient client, Pod pod) {
        Map<String, String> env = new LinkedHashMap<>();
        for (EnvVar var : pod.getSpec().getContainers().get(0).getEnv()) {
            if (var.getValue() != null) {
                env.put(var.getName(), var.getValue());
            } else if (var.getValueFrom() != null && var.getValueFrom().getFieldRef() != null) {
                String path = var.getValueFrom().getFieldRef().getFieldPath();
                Matcher annotation = ANNOTATION_FIELD.matcher(path);
                Matcher label = LABEL_FIELD.matcher(path);
                if (annotation.matches() && pod.getMetadata().getAnnotations().containsKey(annotation.group(1))) {
                    env.put(var.getName(), pod.getMetadata().getAnnotations().get(annotation.group(1)));
                } else if (label.matches() && pod.getMetadata().getLabels().containsKey(label.group(1))) {
                    env.put(var.getName(), pod.getMetadata().getLabels().get(label.group(1)));
                } else if (path.equals("metadata.name")) {
                    env.put(var.getName(), pod.getMetadata().getName());
                } else if (path.equals("metadata.namespace")) {
                    env.put(var.getName(), pod.getMetadata().getNamespace());
                }
            } else if (var.getValueFrom() != null && var.getValueFrom().getSecretKeyRef() != null) {
                SecretKeySelector ref = var.getValueFrom().getSecretKeyRef();
                Secret secret = client.secrets()
                        .inNamespace(pod.getMetadata().getNamespace())
                        .withName(ref.getName())
                        .get();
                if (secret != null
                        && secret.getData() != null
                        && secret.getData().containsKey(ref.getKey())) {
                    env.put(
                            var.getName(),
                            new String(
                                    Base64.getDecoder().decode(secret.getData().get(ref.getKey())),
                                    StandardCharsets.UTF_8));
                } else if (secret != null
                        && secret.getStringData() != null
                        && secret.getStringData().containsKey(ref.getKey())) {
                    env.put(var.getName(), secret.getStringData().get(ref.getKey()));
                }
            } else if (var.getValueFrom() != null && var.getValueFrom().getConfigMapKeyRef() != null) {
                ConfigMapKeySelector ref = var.getValueFrom().getConfigMapKeyRef();
                ConfigMap configMap = client.configMaps()
                        .inNamespace(pod.getMetadata().getNamespace())
                        .withName(ref.getName())
                        .get();
                if (configMap != null
                        && configMap.getData() != null
                        && configMap.getData().containsKey(ref.getKey())) {
                    env.put(var.getName(), configMap.getData().get(ref.getKey()));
                }
            }
        }
        return env;
    }
}
