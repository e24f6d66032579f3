package io.camelkubeflow.trainer.job;

import io.camelkubeflow.trainer.runtime.ImageRule;
import io.camelkubeflow.trainer.runtime.Launcher;
import io.camelkubeflow.trainer.support.InvalidOptionException;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * How a value of a {@link TrainField} that is not plain lands in a {@link TrainRequest}: parsed (a launcher, image
 * rules, pod options), merged (env, labels, the resources), or set on a part of the request (an initializer, torchtune).
 * A field's entry in {@code endpoint-options.yaml} names its method here ({@code setter}); each takes the value of
 * the field's kind and the name the caller wrote it under, for refusals.
 */
final class TrainFieldSetters {
    private TrainFieldSetters() {}

    static void launcher(TrainRequest request, Object value, String field) {
        request.launcher(Launcher.parse(field, (String) value));
    }

    static void imageRules(TrainRequest request, Object value, String field) {
        request.imageRules(ImageRule.parseList(field, (String) value));
    }

    static void command(TrainRequest request, Object value, String field) {
        request.command(strings(value));
    }

    static void pythonFile(TrainRequest request, Object value, String field) {
        request.pythonFile((String) value);
    }

    static void script(TrainRequest request, Object value, String field) {
        request.script((String) value);
    }

    static void imageEntrypoint(TrainRequest request, Object value, String field) {
        request.imageEntrypoint((Boolean) value);
    }

    static void workspace(TrainRequest request, Object value, String field) {
        request.workspace((String) value);
    }

    static void env(TrainRequest request, Object value, String field) {
        map(value).forEach((name, item) -> request.env(EnvValues.of(name, item)));
    }

    static void resources(TrainRequest request, Object value, String field) {
        map(value).forEach((name, item) -> resource(request, name, text(item), field + "." + name));
    }

    static void cpu(TrainRequest request, Object value, String field) {
        resource(request, "cpu", (String) value, field);
    }

    static void memory(TrainRequest request, Object value, String field) {
        resource(request, "memory", (String) value, field);
    }

    static void gpu(TrainRequest request, Object value, String field) {
        resource(request, "nvidia.com/gpu", (String) value, field);
    }

    static void labels(TrainRequest request, Object value, String field) {
        map(value).forEach((key, item) -> request.label(key, text(item)));
    }

    static void annotations(TrainRequest request, Object value, String field) {
        map(value).forEach((key, item) -> request.annotation(key, text(item)));
    }

    static void datasetUri(TrainRequest request, Object value, String field) {
        request.dataset().uri((String) value);
    }

    static void datasetSecret(TrainRequest request, Object value, String field) {
        request.dataset().secret((String) value);
    }

    static void datasetKind(TrainRequest request, Object value, String field) {
        request.dataset().kind((String) value);
    }

    static void modelUri(TrainRequest request, Object value, String field) {
        request.model().uri((String) value);
    }

    static void modelSecret(TrainRequest request, Object value, String field) {
        request.model().secret((String) value);
    }

    static void modelKind(TrainRequest request, Object value, String field) {
        request.model().kind((String) value);
    }

    static void torchtuneDtype(TrainRequest request, Object value, String field) {
        request.torchtune().dtype((String) value);
    }

    static void torchtuneBatchSize(TrainRequest request, Object value, String field) {
        request.torchtune().batchSize((Integer) value);
    }

    static void torchtuneEpochs(TrainRequest request, Object value, String field) {
        request.torchtune().epochs((Integer) value);
    }

    static void torchtuneLoss(TrainRequest request, Object value, String field) {
        request.torchtune().loss((String) value);
    }

    static void torchtuneLoraAttnModules(TrainRequest request, Object value, String field) {
        request.torchtune().loraAttnModules(strings(value));
    }

    static void torchtuneLoraRank(TrainRequest request, Object value, String field) {
        request.torchtune().loraRank((Integer) value);
    }

    static void torchtuneLoraAlpha(TrainRequest request, Object value, String field) {
        request.torchtune().loraAlpha((Integer) value);
    }

    static void torchtuneLoraDropout(TrainRequest request, Object value, String field) {
        request.torchtune().loraDropout((Double) value);
    }

    static void torchtuneLoraApplyToMlp(TrainRequest request, Object value, String field) {
        request.torchtune().loraApplyToMlp((Boolean) value);
    }

    static void torchtuneLoraApplyToOutput(TrainRequest request, Object value, String field) {
        request.torchtune().loraApplyToOutput((Boolean) value);
    }

    static void torchtuneQuantizeBase(TrainRequest request, Object value, String field) {
        request.torchtune().quantizeBase((Boolean) value);
    }

    static void torchtuneUseDora(TrainRequest request, Object value, String field) {
        request.torchtune().useDora((Boolean) value);
    }

    static void torchtuneDatasetSource(TrainRequest request, Object value, String field) {
        request.torchtune().datasetSource((String) value);
    }

    static void torchtuneDatasetSplit(TrainRequest request, Object value, String field) {
        request.torchtune().datasetSplit((String) value);
    }

    static void torchtuneTrainOnInput(TrainRequest request, Object value, String field) {
        request.torchtune().trainOnInput((Boolean) value);
    }

    static void torchtuneNewSystemPrompt(TrainRequest request, Object value, String field) {
        request.torchtune().newSystemPrompt((String) value);
    }

    static void torchtuneColumnMap(TrainRequest request, Object value, String field) {
        map(value).forEach((key, column) -> request.torchtune().column(key, text(column)));
    }

    static void nodeSelector(TrainRequest request, Object value, String field) {
        map(value).forEach((key, item) -> request.nodeSelector(key, text(item)));
    }

    static void tolerations(TrainRequest request, Object value, String field) {
        request.tolerations(PodOptions.tolerations(field, strings(value)));
    }

    static void nodeAffinity(TrainRequest request, Object value, String field) {
        request.nodeAffinity(PodOptions.nodeAffinity(field, strings(value)));
    }

    static void volumes(TrainRequest request, Object value, String field) {
        request.volumes(PodOptions.volumes(field, strings(value)));
    }

    static void podSecurityContext(TrainRequest request, Object value, String field) {
        request.podSecurityContext(PodOptions.podSecurityContext(field, map(value)));
    }

    static void securityContext(TrainRequest request, Object value, String field) {
        request.securityContext(PodOptions.containerSecurityContext(field, map(value)));
    }

    static void ttlAfterFinished(TrainRequest request, Object value, String field) {
        request.ttlAfterFinishedSeconds(ttlSeconds((Duration) value));
    }

    /** A typed initializer setting: applied as its {@link InitializerSetting} says. */
    static TrainFieldSetter initializer(InitializerStep step, InitializerSetting setting) {
        return (request, value, field) -> request.initializer(step).set(setting, value, field);
    }

    @SuppressWarnings("unchecked")
    private static List<String> strings(Object value) {
        return (List<String>) value;
    }

    /**
     * Sets a resource quantity per node. Its own field (cpu, memory, gpu) and the resources map may both name it; one
     * layer giving both is refused naming the field, whatever the values, rather than one of them dropped. A rule
     * beyond the request schema (docs/http-api.md): the merged request it runs on holds each quantity once.
     */
    private static void resource(TrainRequest request, String name, String quantity, String field) {
        String given = request.resources().get(name);
        if (given != null) {
            String own = switch (name) {
                case "nvidia.com/gpu" -> "gpu";
                default -> name;
            };
            throw new InvalidOptionException(
                    field,
                    name + " given twice (" + own + " and resources." + name + "): '" + quantity + "' and '" + given
                            + "'; give it once: " + own + ", or " + name + " in resources");
        }
        request.resource(name, quantity);
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> map(Object value) {
        return (Map<String, Object>) value;
    }

    private static String text(Object value) {
        return value == null ? null : value.toString();
    }

    /** Whole seconds, rounded up; zero means no TTL, and a negative value is kept for the validator to refuse. */
    private static Long ttlSeconds(Duration ttl) {
        long millis = ttl.toMillis();
        return millis == 0 ? null : millis < 0 ? millis : (millis + 999) / 1000;
    }
}
