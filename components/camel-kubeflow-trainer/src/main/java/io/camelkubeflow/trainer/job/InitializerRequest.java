package io.camelkubeflow.trainer.job;

import io.fabric8.kubernetes.api.model.SecretKeySelector;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/**
 * What a request says about one initializer (the dataset's or the model's): the storage URI, the Secret handed whole
 * to the initializer ({@code secretRef}), the kind when the URI's scheme does not say it, and the typed settings. Each
 * part optional; layered like the request it belongs to ({@link #overlay}).
 */
public final class InitializerRequest {
    private String uri;
    private String secret;
    private String kind;
    private final Map<InitializerSetting, Object> settings = new EnumMap<>(InitializerSetting.class);

    /** A new one with this one's values overridden by every value {@code top} sets. */
    InitializerRequest overlay(InitializerRequest top) {
        InitializerRequest merged = new InitializerRequest();
        merged.uri = top.uri != null ? top.uri : uri;
        merged.secret = top.secret != null ? top.secret : secret;
        merged.kind = top.kind != null ? top.kind : kind;
        merged.settings.putAll(settings);
        merged.settings.putAll(top.settings);
        return merged;
    }

    /**
     * Sets a typed setting from a field's value: a List of patterns, an Integer of nodes, else text; a credential's
     * text must be {@code secretKeyRef:<secret>/<key>} and is refused otherwise, never echoed.
     *
     * @param field the name the caller wrote it under, for refusals
     */
    public InitializerRequest set(InitializerSetting setting, Object value, String field) {
        if (setting.form() == InitializerSetting.Form.SECRET_KEY && value instanceof String text) {
            settings.put(setting, EnvValues.secretKeyOnly(field, text));
        } else {
            settings.put(setting, value);
        }
        return this;
    }

    public boolean isEmpty() {
        return uri == null && secret == null && kind == null && settings.isEmpty();
    }

    public InitializerRequest uri(String v) {
        uri = v;
        return this;
    }

    public InitializerRequest secret(String v) {
        secret = v;
        return this;
    }

    public InitializerRequest kind(String v) {
        kind = v;
        return this;
    }

    public String uri() {
        return uri;
    }

    public String secret() {
        return secret;
    }

    public String kind() {
        return kind;
    }
    /** The settings given, in declaration order. */
    public Map<InitializerSetting, Object> settings() {
        return settings;
    }

    /** A Secret key reference a credential setting holds. */
    static SecretKeySelector secretKey(Object value) {
        return (SecretKeySelector) value;
    }

    @SuppressWarnings("unchecked")
    static List<String> patterns(Object value) {
        return (List<String>) value;
    }
}
