package io.camelkubeflow.trainer.job;

import io.camelkubeflow.trainer.support.Printable;

/**
 * A request asks for more than the request policy allows. Thrown before anything is written; names the rule, what the
 * request asked and what the policy allows.
 */
public class PolicyViolationException extends RuntimeException {
    private final String rule;

    public PolicyViolationException(String rule, String message) {
        super(Printable.escape("refused by policy rule '" + rule + "': " + message));
        this.rule = rule;
    }

    /** The policy rule at fault, e.g. maxNumNodes. */
    public String getRule() {
        return rule;
    }
}
