package io.camelkubeflow.trainer.job;

import io.camelkubeflow.trainer.api.KubernetesNames;
import io.camelkubeflow.trainer.support.InvalidOptionException;
import io.fabric8.kubernetes.api.model.Capabilities;
import io.fabric8.kubernetes.api.model.NodeAffinity;
import io.fabric8.kubernetes.api.model.NodeSelector;
import io.fabric8.kubernetes.api.model.NodeSelectorRequirement;
import io.fabric8.kubernetes.api.model.NodeSelectorTermBuilder;
import io.fabric8.kubernetes.api.model.PodSecurityContext;
import io.fabric8.kubernetes.api.model.SeccompProfile;
import io.fabric8.kubernetes.api.model.SecurityContext;
import io.fabric8.kubernetes.api.model.Toleration;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeBuilder;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.api.model.VolumeMountBuilder;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The pod and container settings a request gives as text (an endpoint option, a header, a message field), read into
 * the Kubernetes types a runtime patch carries. Each form is small and closed: a setting outside it is refused naming
 * the field and the forms it takes, never passed on as raw JSON. What a request may ask for (which nodes, accounts,
 * Secrets, no root, no privilege) is the {@link RequestPolicy}'s to judge, on the TrainJob these become.
 */
public final class PodOptions {
    /** The kinds of volume a request may mount; hostPath is none of them, nor any other that reaches the node. */
    public enum VolumeKind {
        PVC("pvc"),
        CONFIG_MAP("configMap"),
        SECRET("secret"),
        EMPTY_DIR("emptyDir");

        private final String word;

        VolumeKind(String word) {
            this.word = word;
        }

        static VolumeKind of(String word) {
            for (VolumeKind kind : values()) {
                if (kind.word.equals(word)) {
                    return kind;
                }
            }
            return null;
        }
    }

    /**
     * A volume a request mounts on the container of each job it patches: {@code KIND:NAME:/mount/path[:ro]}.
     *
     * @param source the PVC, ConfigMap or Secret mounted; for emptyDir, the volume's own name
     */
    public record PodVolume(VolumeKind kind, String source, String mountPath, boolean readOnly) {
        /** The pod's name for it: the kind and the source, so two kinds of one name never clash, and never ours. */
        public String volumeName() {
            String name = kind.word.toLowerCase(Locale.ROOT) + "-" + source.replace('.', '-');
            return name.length() <= 63
                    ? name
                    : name.substring(0, 50) + "-"
                            + TrainJobMetadata.sha256(name).substring(0, 12);
        }

        public Volume volume() {
            VolumeBuilder volume = new VolumeBuilder().withName(volumeName());
            return switch (kind) {
                case PVC ->
                    volume.withNewPersistentVolumeClaim()
                            .withClaimName(source)
                            .withReadOnly(readOnly ? true : null)
                            .endPersistentVolumeClaim()
                            .build();
                case CONFIG_MAP ->
                    volume.withNewConfigMap().withName(source).endConfigMap().build();
                case SECRET ->
                    volume.withNewSecret().withSecretName(source).endSecret().build();
                case EMPTY_DIR -> volume.withNewEmptyDir().endEmptyDir().build();
            };
        }

        public VolumeMount mount() {
            return new VolumeMountBuilder()
                    .withName(volumeName())
                    .withMountPath(mountPath)
                    .withReadOnly(readOnly ? true : null)
                    .build();
        }
    }

    private static final Set<String> EFFECTS = Set.of("NoSchedule", "PreferNoSchedule", "NoExecute");
    private static final String TOLERATION_FORMS = "write KEY, KEY=VALUE, KEY:EFFECT or KEY=VALUE:EFFECT with EFFECT"
            + " NoSchedule, PreferNoSchedule or NoExecute (e.g. nvidia.com/gpu=present:NoSchedule)";
    private static final String AFFINITY_FORMS = "write KEY=V1|V2 (one of), KEY!=V1|V2 (none of), KEY (has the"
            + " label) or !KEY (lacks it), e.g. topology.kubernetes.io/zone=zone-a|zone-b";
    private static final String VOLUME_FORMS = "write KIND:NAME:/mount/path, :ro at the end for read-only, with KIND"
            + " pvc, configMap, secret or emptyDir (e.g. pvc:datasets:/data:ro)";

    private PodOptions() {}

    /** Tolerations, each {@code KEY[=VALUE][:EFFECT]}: Equal with a value, Exists without. */
    public static List<Toleration> tolerations(String field, List<String> items) {
        List<Toleration> tolerations = new ArrayList<>();
        for (String item : items) {
            String rest = item;
            String effect = null;
            int colon = rest.lastIndexOf(':');
            if (colon >= 0) {
                effect = rest.substring(colon + 1);
                rest = rest.substring(0, colon);
                if (!EFFECTS.contains(effect)) {
                    throw new InvalidOptionException(
                            field, "'" + item + "' has the effect '" + effect + "'; " + TOLERATION_FORMS);
                }
            }
            int equals = rest.indexOf('=');
            String key = equals < 0 ? rest : rest.substring(0, equals);
            String value = equals < 0 ? null : rest.substring(equals + 1);
            if (!TrainRequestValidator.isQualifiedName(key)
                    || value != null && !TrainRequestValidator.isLabelValue(value)) {
                throw new InvalidOptionException(field, "'" + item + "' is not a toleration; " + TOLERATION_FORMS);
            }
            tolerations.add(new Toleration(effect, key, value == null ? "Exists" : "Equal", null, value));
        }
        return tolerations;
    }

    /** A required node affinity: every item must hold for a node to be chosen. */
    public static NodeAffinity nodeAffinity(String field, List<String> items) {
        List<NodeSelectorRequirement> requirements = new ArrayList<>();
        for (String item : items) {
            String operator;
            String key;
            List<String> values = null;
            int notEquals = item.indexOf("!=");
            int equals = item.indexOf('=');
            if (notEquals >= 0) {
                operator = "NotIn";
                key = item.substring(0, notEquals);
                values = List.of(item.substring(notEquals + 2).split("\\|", -1));
            } else if (equals >= 0) {
                operator = "In";
                key = item.substring(0, equals);
                values = List.of(item.substring(equals + 1).split("\\|", -1));
            } else if (item.startsWith("!")) {
                operator = "DoesNotExist";
                key = item.substring(1);
            } else {
                operator = "Exists";
                key = item;
            }
            if (!TrainRequestValidator.isQualifiedName(key)
                    || values != null
                            && values.stream().anyMatch(v -> v.isEmpty() || !TrainRequestValidator.isLabelValue(v))) {
                throw new InvalidOptionException(field, "'" + item + "' is not a node requirement; " + AFFINITY_FORMS);
            }
            requirements.add(new NodeSelectorRequirement(key, operator, values));
        }
        if (requirements.isEmpty()) {
            return null;
        }
        NodeAffinity affinity = new NodeAffinity();
        affinity.setRequiredDuringSchedulingIgnoredDuringExecution(new NodeSelector(List.of(
                new NodeSelectorTermBuilder().withMatchExpressions(requirements).build())));
        return affinity;
    }

    /** Volumes, each {@code KIND:NAME:/mount/path[:ro]}. */
    public static List<PodVolume> volumes(String field, List<String> items) {
        List<PodVolume> volumes = new ArrayList<>();
        Set<String> paths = new HashSet<>();
        Set<String> sources = new HashSet<>();
        for (String item : items) {
            String[] parts = item.split(":", -1);
            boolean readOnly = parts.length == 4 && "ro".equals(parts[3]);
            VolumeKind kind = parts.length < 3 ? null : VolumeKind.of(parts[0]);
            if (kind == null || parts.length > 4 || parts.length == 4 && !readOnly) {
                String hint = parts.length >= 1 && "hostPath".equalsIgnoreCase(parts[0])
                        ? "hostPath volumes are never mounted (they reach the node's disk); "
                        : "";
                throw new InvalidOptionException(field, "'" + item + "' is not a volume; " + hint + VOLUME_FORMS);
            }
            String name = parts[1];
            if (kind == VolumeKind.EMPTY_DIR) {
                if (name.length() > 50
                        || !KubernetesNames.RFC1123_LABEL.matcher(name).matches()) {
                    throw new InvalidOptionException(
                            field,
                            "'" + item + "': an emptyDir's name is an RFC 1123"
                                    + " label of at most 50 characters (lowercase letters, digits, '-')");
                }
            } else {
                KubernetesNames.objectName(field, name);
            }
            String path = parts[2];
            if (!path.startsWith("/")
                    || path.contains("//")
                    || path.matches(".*(^|/)\\.{1,2}(/|$).*")
                    || path.length() > 1024
                    || path.chars().anyMatch(c -> c < 0x20 || c == 0x7f)) {
                throw new InvalidOptionException(
                        field,
                        "'" + item + "' mounts at '" + path + "'; give an absolute"
                                + " path without '.' or '..' segments, e.g. /data");
            }
            String componentMount = TrainJobFactory.componentMountAt(path);
            if (componentMount != null) {
                throw new InvalidOptionException(
                        field,
                        "'" + item + "' would cover " + componentMount
                                + ", where the component mounts scripts, workspaces and outputs; mount it elsewhere");
            }
            PodVolume volume = new PodVolume(kind, name, path, readOnly);
            // the API server refuses a pod with two mounts at one path or two volumes of one name: its pods never start
            if (!paths.add(path.endsWith("/") ? path.substring(0, path.length() - 1) : path)) {
                throw new InvalidOptionException(
                        field,
                        "'" + item + "' mounts at a path another volume of the"
                                + " request mounts at; give each volume its own path");
            }
            if (!sources.add(volume.volumeName())) {
                throw new InvalidOptionException(
                        field,
                        "'" + item + "' names a " + parts[0] + " another volume of"
                                + " the request names; mount it once");
            }
            volumes.add(volume);
        }
        return volumes;
    }

    /** A pod security context: runAsUser, runAsGroup, fsGroup, runAsNonRoot and seccompProfile (RuntimeDefault). */
    public static PodSecurityContext podSecurityContext(String field, Map<String, Object> settings) {
        PodSecurityContext context = new PodSecurityContext();
        settings.forEach((key, value) -> {
            String name = field + "." + key;
            String text = String.valueOf(value);
            switch (key) {
                case "runAsUser" -> context.setRunAsUser(id(name, text));
                case "runAsGroup" -> context.setRunAsGroup(id(name, text));
                case "fsGroup" -> context.setFsGroup(id(name, text));
                case "runAsNonRoot" -> context.setRunAsNonRoot(flag(name, text));
                case "seccompProfile" -> context.setSeccompProfile(seccomp(name, text));
                default ->
                    throw new InvalidOptionException(
                            name,
                            "is not a pod security setting a request may"
                                    + " give; give runAsUser, runAsGroup, fsGroup, runAsNonRoot or seccompProfile");
            }
        });
        return context;
    }

    /**
     * A container security context: runAsUser, runAsGroup, runAsNonRoot, readOnlyRootFilesystem,
     * allowPrivilegeEscalation, seccompProfile (RuntimeDefault) and dropCapabilities (e.g. ALL, or NET_RAW|CHOWN).
     * There is no form for privileged or added capabilities: a request gets neither.
     */
    public static SecurityContext containerSecurityContext(String field, Map<String, Object> settings) {
        SecurityContext context = new SecurityContext();
        settings.forEach((key, value) -> {
            String name = field + "." + key;
            String text = String.valueOf(value);
            switch (key) {
                case "runAsUser" -> context.setRunAsUser(id(name, text));
                case "runAsGroup" -> context.setRunAsGroup(id(name, text));
                case "runAsNonRoot" -> context.setRunAsNonRoot(flag(name, text));
                case "readOnlyRootFilesystem" -> context.setReadOnlyRootFilesystem(flag(name, text));
                case "allowPrivilegeEscalation" -> context.setAllowPrivilegeEscalation(flag(name, text));
                case "seccompProfile" -> context.setSeccompProfile(seccomp(name, text));
                case "dropCapabilities" -> {
                    List<String> drop = List.of(text.split("\\|", -1));
                    if (drop.stream().anyMatch(c -> !c.matches("[A-Z][A-Z_]{0,63}"))) {
                        throw new InvalidOptionException(
                                name,
                                "'" + text + "' is not a list of capabilities; write"
                                        + " them in capitals separated by '|', e.g. ALL or NET_RAW|CHOWN");
                    }
                    context.setCapabilities(new Capabilities(null, drop));
                }
                default ->
                    throw new InvalidOptionException(
                            name,
                            "is not a container security setting a request"
                                    + " may give; give runAsUser, runAsGroup, runAsNonRoot, readOnlyRootFilesystem,"
                                    + " allowPrivilegeEscalation, seccompProfile or dropCapabilities");
            }
        });
        return context;
    }

    private static Long id(String field, String text) {
        return FieldValues.parseWholeNumber(text, field, 0, Integer.MAX_VALUE);
    }

    private static Boolean flag(String field, String text) {
        if (!text.equals("true") && !text.equals("false")) {
            throw new InvalidOptionException(field, "'" + text + "' is not true or false");
        }
        return Boolean.valueOf(text);
    }

    private static SeccompProfile seccomp(String field, String text) {
        if (!text.equals("RuntimeDefault")) {
            throw new InvalidOptionException(
                    field,
                    "'" + text + "' is not a profile a request may give; give"
                            + " RuntimeDefault (Unconfined lifts the filter, Localhost names a file on the node)");
        }
        return new SeccompProfile(null, text);
    }
}
