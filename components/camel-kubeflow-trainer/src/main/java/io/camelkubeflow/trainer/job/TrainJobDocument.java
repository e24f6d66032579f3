package io.camelkubeflow.trainer.job;

import com.fasterxml.jackson.core.exc.StreamReadException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.camelkubeflow.trainer.api.Initializer;
import io.camelkubeflow.trainer.api.StorageInitializer;
import io.camelkubeflow.trainer.api.TrainJob;
import io.camelkubeflow.trainer.api.TrainJobSpec;
import io.camelkubeflow.trainer.api.Trainer;
import io.camelkubeflow.trainer.support.InvalidOptionException;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.Quantity;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * Reads a TrainJob given as a message body (typed, Map, JSON or YAML text) into a {@link TrainRequest} layer.
 * Unknown spec fields are refused, not pruned as the API server would: a field removed from the CRD (such as
 * spec.labels) would otherwise vanish silently.
 */
public final class TrainJobDocument {
    /** YAML is a superset of JSON, so one reader serves both. */
    private static final ObjectMapper STRICT = new ObjectMapper(new YAMLFactory())
            .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .findAndRegisterModules();

    private TrainJobDocument() {}

    /** True for text or a map that declares itself a TrainJob (kind TrainJob, or apiVersion trainer.kubeflow.org/...). */
    public static boolean looksLikeTrainJob(Object body) {
        if (body instanceof TrainJob) {
            return true;
        }
        Map<?, ?> map = body instanceof Map<?, ?> m ? m : body instanceof String text ? readMapOrNull(text) : null;
        return map != null
                && ("TrainJob".equals(map.get("kind"))
                        || String.valueOf(map.get("apiVersion")).startsWith(TrainJob.GROUP + "/"));
    }

    public static TrainJob read(Object body) {
        if (body instanceof TrainJob job) {
            return job;
        }
        try {
            TrainJob job = body instanceof String text
                    ? STRICT.readValue(text, TrainJob.class)
                    : STRICT.convertValue(body, TrainJob.class);
            if (job == null) {
                throw new InvalidOptionException("body", "the body is empty; send a TrainJob as JSON or YAML");
            }
            return job;
        } catch (InvalidOptionException e) {
            throw e;
        } catch (Exception e) {
            Throwable cause = e instanceof IllegalArgumentException && e.getCause() != null ? e.getCause() : e;
            if (cause instanceof StreamReadException || cause.getCause() instanceof StreamReadException) {
                StreamReadException syntax =
                        cause instanceof StreamReadException direct ? direct : (StreamReadException) cause.getCause();
                String where = syntax.getLocation() == null
                        ? ""
                        : " at line " + syntax.getLocation().getLineNr() + ", column "
                                + syntax.getLocation().getColumnNr();
                throw new InvalidOptionException(
                        "body", "not valid JSON or YAML" + where + ": " + firstLine(syntax.getOriginalMessage()), e);
            }
            if (cause instanceof JsonMappingException mapping
                    && !mapping.getPath().isEmpty()) {
                String path = mapping.getPath().stream()
                        .map(ref -> ref.getFieldName() != null ? ref.getFieldName() : "[" + ref.getIndex() + "]")
                        .collect(Collectors.joining("."));
                String problem = cause instanceof UnrecognizedPropertyException unknown
                        ? "unknown TrainJob field '" + unknown.getPropertyName() + "'; the v1alpha1 CRD knows "
                                + unknown.getKnownPropertyIds() + " there (labels and annotations go in metadata)"
                        : "wrong type: " + firstLine(mapping.getOriginalMessage());
                throw new InvalidOptionException("body." + path, problem, e);
            }
            throw new InvalidOptionException(
                    "body",
                    "not a TrainJob: " + firstLine(cause.getMessage())
                            + "; send a trainer.kubeflow.org/v1alpha1 TrainJob as JSON or YAML",
                    e);
        }
    }

    /** The request a TrainJob body stands for: every field it sets, its command taken verbatim. */
    public static TrainRequest toRequest(TrainJob job) {
        TrainRequest request = new TrainRequest();
        if (job.getMetadata() != null) {
            request.jobName(job.getMetadata().getName())
                    .namespace(job.getMetadata().getNamespace());
            // what this component put on an earlier job (its idempotency key, group, run key, TTL, handled marks)
            // describes that submit, not this one: a body copied from a TrainJob does not carry it over
            if (job.getMetadata().getLabels() != null) {
                Map<String, String> labels =
                        new LinkedHashMap<>(job.getMetadata().getLabels());
                // Kueue's two labels a request sets are its queue and priorityClass, held to the policy as such
                request.queue(labels.remove(TrainJobMetadata.QUEUE_LABEL));
                request.priorityClass(labels.remove(TrainJobMetadata.PRIORITY_CLASS_LABEL));
                labels.entrySet().stream()
                        .filter(e -> !TrainJobMetadata.isReserved(e.getKey()))
                        .forEach(e -> request.label(e.getKey(), e.getValue()));
            }
            if (job.getMetadata().getAnnotations() != null) {
                job.getMetadata().getAnnotations().entrySet().stream()
                        .filter(e -> !TrainJobMetadata.isReserved(e.getKey()))
                        .forEach(e -> request.annotation(e.getKey(), e.getValue()));
            }
        }
        TrainJobSpec spec = job.getSpec();
        if (spec == null) {
            return request;
        }
        if (spec.runtimeRef() != null) {
            request.runtime(spec.runtimeRef().name())
                    .runtimeKind(spec.runtimeRef().kind());
        }
        Trainer trainer = spec.trainer();
        if (trainer != null) {
            request.image(trainer.image())
                    .numNodes(trainer.numNodes())
                    .numProcPerNode(trainer.numProcPerNode())
                    .args(trainer.args());
            if (trainer.command() != null) {
                request.command(trainer.command()).verbatimCommand(true);
            }
            if (trainer.env() != null) {
                trainer.env().forEach(request::env);
            }
            if (trainer.resourcesPerNode() != null) {
                Map<String, Quantity> quantities = trainer.resourcesPerNode().getLimits() != null
                                && !trainer.resourcesPerNode().getLimits().isEmpty()
                        ? trainer.resourcesPerNode().getLimits()
                        : trainer.resourcesPerNode().getRequests();
                if (quantities != null) {
                    quantities.forEach((name, q) -> request.resource(name, q.toString()));
                }
            }
        }
        Initializer initializer = spec.initializer();
        if (initializer != null) {
            readInitializer("body.spec.initializer.dataset", initializer.dataset(), request.dataset());
            readInitializer("body.spec.initializer.model", initializer.model(), request.model());
        }
        if (spec.runtimePatches() != null) {
            spec.runtimePatches().forEach(request::runtimePatch);
        }
        return request.suspend(spec.suspend())
                .managedBy(spec.managedBy())
                .activeDeadlineSeconds(spec.activeDeadlineSeconds());
    }

    /**
     * An initializer of a TrainJob body as the request's: its variables back into the typed settings they came from,
     * a credential only as a Secret key reference; a variable no setting writes is refused.
     */
    private static void readInitializer(String path, StorageInitializer storage, InitializerRequest into) {
        if (storage == null) {
            return;
        }
        into.uri(storage.storageUri())
                .secret(storage.secretRef() == null ? null : storage.secretRef().getName());
        if (storage.env() == null) {
            return;
        }
        for (EnvVar var : storage.env()) {
            String field = path + ".env." + var.getName();
            InitializerSetting setting = Arrays.stream(InitializerSetting.values())
                    .filter(s -> s.env().equals(var.getName()))
                    .findFirst()
                    .orElseThrow(() -> new InvalidOptionException(
                            field,
                            "is no variable of an initializer setting; the settings"
                                    + " are "
                                    + Arrays.stream(InitializerSetting.values())
                                            .map(InitializerSetting::env)
                                            .toList()
                                    + " (credentials in a Secret: secretRef, or a secretKeyRef)"));
            if (setting.form() == InitializerSetting.Form.SECRET_KEY) {
                if (var.getValueFrom() == null || var.getValueFrom().getSecretKeyRef() == null) {
                    throw new InvalidOptionException(
                            field,
                            "a credential is taken only as a valueFrom.secretKeyRef"
                                    + " (the value given is not repeated here); store it in a Secret and reference its key");
                }
                into.set(setting, var.getValueFrom().getSecretKeyRef(), field);
            } else if (var.getValue() == null) {
                throw new InvalidOptionException(field, "give it as a value");
            } else if (setting.form() == InitializerSetting.Form.PATTERNS) {
                into.set(setting, List.of(var.getValue().split(",")), field);
            } else if (setting.form() == InitializerSetting.Form.NODES) {
                into.set(
                        setting,
                        (int) FieldValues.parseWholeNumber(var.getValue(), field, 3, Integer.MAX_VALUE) - 1,
                        field);
            } else {
                into.set(setting, var.getValue(), field);
            }
        }
    }

    private static Map<?, ?> readMapOrNull(String text) {
        try {
            Object value = STRICT.readValue(text, Object.class);
            return value instanceof Map<?, ?> map ? map : null;
        } catch (Exception e) {
            return null;
        }
    }

    private static String firstLine(String message) {
        if (message == null) {
            return "unreadable";
        }
        int newline = message.indexOf('\n');
        return newline < 0 ? message : message.substring(0, newline);
    }
}
