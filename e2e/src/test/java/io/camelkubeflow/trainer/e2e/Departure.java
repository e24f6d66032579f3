package io.camelkubeflow.trainer.e2e;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.function.UnaryOperator;

/**
 * Where the sandbox still answers otherwise than the real control plane, and DifferentialIT allows it: each one by the
 * name e2e/DIFFERENCES.md gives it, which says what differs and why it stays. A comparison allows a departure only
 * where it names it, by taking out of one side's answer exactly what that departure is about.
 */
enum Departure {
    /** The sandbox runs no ServiceAccount controller: a new namespace gets no "default" account. */
    NO_SERVICE_ACCOUNT_CONTROLLER,
    /** The sandbox's pods get no ServiceAccount token volume (kube-api-access-*) and mount. */
    SERVICE_ACCOUNT_TOKEN_VOLUME,
    /** The sandbox keeps an empty map of a built-in object as sent ({@code "data": {}}); Go's omitempty drops it. */
    EMPTY_FIELDS_KEPT,
    /** A body that is not JSON is refused with the JSON parser's own words: Go's encoding/json's, Jackson's. */
    JSON_PARSER_WORDS,
    /**
     * A TrainJob the CRD's schema refuses is refused with 422 Invalid, the same causes by field and reason, in the
     * sandbox's validator's words.
     */
    SCHEMA_VIOLATION_WORDS,
    /** /openapi/v2 in JSON: the sandbox's document outlines the kinds and paths its v3 documents serve. */
    OPENAPI_V2_OUTLINE,
    /** An SSH key pair the Trainer generates: each side's own keys, compared by their form. */
    KEY_MATERIAL,
    /** The runtime snapshot's YAML: Go's marshalling of the typed runtime, the sandbox's of the stored one. */
    GO_TYPED_YAML;

    /** The departure allowed in one comparison: what it takes out of the real side's or the sandbox's answer. */
    record Allowance(Departure departure, boolean onReal, UnaryOperator<JsonNode> without) {}

    /** Allows this departure by taking {@code without} out of the real side's answer. */
    Allowance onReal(UnaryOperator<JsonNode> without) {
        return new Allowance(this, true, without);
    }

    /** Allows this departure by taking {@code without} out of the sandbox's answer. */
    Allowance onSandbox(UnaryOperator<JsonNode> without) {
        return new Allowance(this, false, without);
    }
}
