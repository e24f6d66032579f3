package io.camelkubeflow.trainer.sandbox.cluster;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;

/**
 * Runs a pod's {@code node} container as a kubelet would, on this machine: each volume it mounts is made in a
 * directory of its own (a ConfigMap's keys as files, binary ones decoded; an emptyDir empty), the container's command
 * and args read with those directories in place of the mount paths, and the local python3 standing in for the
 * launchers (torchrun and mpirun start one process per node here, as {@link StagedScriptRunner} does). The sandbox
 * uses it for a command that reads a staged archive (a workspace): the command itself (its bootstrap that verifies,
 * unpacks and installs) runs as it would in the pod.
 */
final class PodProcess {
    private static final String NODE = "node";
    /** torchrun flags that take no value. */
    private static final Set<String> TORCHRUN_FLAGS =
            Set.of("--standalone", "--no-python", "--no_python", "--run-path", "--run_path");
    /** mpirun options followed by a value. */
    private static final Set<String> MPIRUN_VALUED =
            Set.of("--hostfile", "-hostfile", "-np", "-n", "-H", "--host", "-x", "--map-by", "--bind-to");

    private PodProcess() {}

    /**
     * Whether the pod's node container runs a command that reads a staged archive: one naming a file of a ConfigMap
     * volume holding binary data, or an http(s) URL (an object store's) while it mounts an emptyDir to unpack into.
     */
    static boolean readsStagedArchive(KubernetesClient client, Pod pod) {
        Container node = pod == null ? null : node(pod);
        if (node == null || node.getCommand() == null) {
            return false;
        }
        boolean fetches =
                node.getCommand().stream().anyMatch(word -> word.startsWith("http://") || word.startsWith("https://"));
        for (VolumeMount mount : node.getVolumeMounts()) {
            Volume volume = volume(pod, mount.getName());
            if (fetches && volume != null && volume.getEmptyDir() != null) {
                return true;
            }
            if (volume == null || volume.getConfigMap() == null) {
                continue;
            }
            ConfigMap configMap = client.configMaps()
                    .inNamespace(pod.getMetadata().getNamespace())
                    .withName(volume.getConfigMap().getName())
                    .get();
            if (configMap != null
                    && configMap.getBinaryData() != null
                    && node.getCommand().stream().anyMatch(word -> word.startsWith(mount.getMountPath() + "/"))) {
                return true;
            }
        }
        return false;
    }

    /** Runs the node container; each output line goes to {@code log}; returns its exit code. */
    static int run(KubernetesClient client, Pod pod, Consumer<String> log) {
        Path root = null;
        try {
            root = Files.createTempDirectory("trainer-sandbox-pod-");
            Container node = node(pod);
            Map<String, String> mounts = new LinkedHashMap<>();
            for (VolumeMount mount : node.getVolumeMounts()) {
                Path dir = Files.createDirectories(root.resolve("volumes").resolve(mount.getName()));
                materialize(client, pod, volume(pod, mount.getName()), dir);
                mounts.put(mount.getMountPath(), dir.toString());
            }
            List<String> argv = new ArrayList<>();
            node.getCommand().forEach(word -> argv.add(remount(word, mounts)));
            if (node.getArgs() != null) {
                node.getArgs().forEach(word -> argv.add(remount(word, mounts)));
            }
            return StagedScriptRunner.runAsPod(
                    client, withoutLaunchers(argv), Files.createDirectories(root.resolve("cwd")), Map.of(), pod, log);
        } catch (IOException e) {
            log.accept("sandbox: could not make the pod's volumes: " + e.getMessage());
            return 127;
        } finally {
            delete(root);
        }
    }

    /** The volume's files as the kubelet writes them; an emptyDir (or any other kind) starts empty. */
    private static void materialize(KubernetesClient client, Pod pod, Volume volume, Path dir) throws IOException {
        if (volume == null || volume.getConfigMap() == null) {
            return;
        }
        ConfigMap configMap = client.configMaps()
                .inNamespace(pod.getMetadata().getNamespace())
                .withName(volume.getConfigMap().getName())
                .get();
        if (configMap == null) {
            return;
        }
        if (configMap.getData() != null) {
            for (Map.Entry<String, String> file : configMap.getData().entrySet()) {
                Files.writeString(inVolume(dir, file.getKey()), file.getValue());
            }
        }
        if (configMap.getBinaryData() != null) {
            for (Map.Entry<String, String> file : configMap.getBinaryData().entrySet()) {
                Files.write(inVolume(dir, file.getKey()), Base64.getDecoder().decode(file.getValue()));
            }
        }
    }

    /**
     * Where a ConfigMap key lands in its volume, refused as the kubelet's atomic writer refuses it (validatePath): an
     * absolute path, a ".." element, a path starting with "..", or one leading out of the volume never reaches the
     * disk.
     */
    static Path inVolume(Path dir, String key) throws IOException {
        Path volume = dir.toAbsolutePath().normalize();
        Path relative = Path.of(key);
        Path target = volume.resolve(relative).normalize();
        boolean climbs = false;
        for (Path part : relative) {
            climbs |= part.toString().equals("..");
        }
        // the kubelet also refuses a path starting with "..": its own ..data link lives in the volume
        if (key.isEmpty()
                || key.startsWith("..")
                || relative.isAbsolute()
                || climbs
                || !target.startsWith(volume)
                || target.equals(volume)) {
            // the key is not quoted: it may hold anything a writer of ConfigMaps put there
            throw new IOException("invalid path in a ConfigMap volume: a key must be a relative path inside the"
                    + " volume, without '..'");
        }
        return target;
    }

    private static String remount(String word, Map<String, String> mounts) {
        for (Map.Entry<String, String> mount : mounts.entrySet()) {
            if (word.equals(mount.getKey()) || word.startsWith(mount.getKey() + "/")) {
                return mount.getValue() + word.substring(mount.getKey().length());
            }
        }
        return word;
    }

    /**
     * The argv with torchrun and mpirun (and their options) taken out and {@code python} made the local python3:
     * {@code torchrun train.py} runs {@code python3 -u train.py}; {@code torchrun --no_python prog} runs prog.
     */
    static List<String> withoutLaunchers(List<String> argv) {
        List<String> out = new ArrayList<>();
        for (int i = 0; i < argv.size(); i++) {
            String word = argv.get(i);
            String base = word.substring(word.lastIndexOf('/') + 1);
            if (base.equals("torchrun")) {
                boolean noPython = false;
                while (i + 1 < argv.size() && argv.get(i + 1).startsWith("-")) {
                    String option = argv.get(++i);
                    noPython |= option.equals("--no-python") || option.equals("--no_python");
                    if (!option.contains("=") && !TORCHRUN_FLAGS.contains(option)) {
                        i++;
                    }
                }
                if (!noPython) {
                    out.addAll(List.of("python3", "-u"));
                }
            } else if (base.equals("mpirun")) {
                while (i + 1 < argv.size() && argv.get(i + 1).startsWith("-")) {
                    if (MPIRUN_VALUED.contains(argv.get(++i))) {
                        i++;
                    }
                }
            } else if (base.equals("python") || base.equals("python3")) {
                out.add("python3");
            } else {
                out.add(word);
            }
        }
        return out;
    }

    /**
     * The node container's exit code once its launcher ends: torchrun, whose worker failed, exits 1 whatever the
     * worker's code (torch.distributed.elastic raises ChildFailedError), so a pod launched by torchrun reports 1 and
     * its log says which code the worker exited with; any other launcher passes its process's code on.
     */
    static int containerExit(Pod pod, int processExit, Consumer<String> log) {
        Container node = node(pod);
        boolean torchrun = node != null
                && node.getCommand().stream()
                        .anyMatch(word ->
                                word.substring(word.lastIndexOf('/') + 1).equals("torchrun"));
        if (!torchrun || processExit == 0) {
            return processExit;
        }
        log.accept("sandbox: torchrun's worker exited with code " + processExit + "; torchrun exits 1"
                + " (ChildFailedError)");
        return 1;
    }

    private static Container node(Pod pod) {
        return pod.getSpec().getContainers().stream()
                .filter(c -> NODE.equals(c.getName()))
                .findFirst()
                .orElse(null);
    }

    private static Volume volume(Pod pod, String name) {
        return pod.getSpec().getVolumes().stream()
                .filter(v -> name.equals(v.getName()))
                .findFirst()
                .orElse(null);
    }

    private static void delete(Path root) {
        if (root == null) {
            return;
        }
        try (var paths = Files.walk(root)) {
            paths.sorted(Comparator.reverseOrder())
                    .forEach(path -> path.toFile().delete());
        } catch (IOException e) {
            // a temporary directory left behind is no failure of the run
        }
    }
}
