package io.camelkubeflow.trainer.routes;

import java.util.Map;

import io.camelkubeflow.trainer.access.AccessDeniedException;
import io.camelkubeflow.trainer.job.PolicyViolationException;
import io.camelkubeflow.trainer.support.InvalidOptionException;

/**
 * What a refused request's report says besides the message, on every entry point that writes one (the Kafka dead
 * letter, the S3 report): the field at fault, the policy rule, or the access the caller was denied.
 */
final class RefusalDetails {
    private RefusalDetails() {
    }

    static void addTo(Map<String, Object> report, Throwable refusal) {
        if (refusal instanceof InvalidOptionException invalid) {
            report.put("field", invalid.getField());
        }
        if (refusal instanceof PolicyViolationException violation) {
            report.put("rule", violation.getRule());
        }
        if (refusal instanceof AccessDeniedException denied && denied.getAccess() != null) {
            report.put("denied", denied.getAccess().describe());
        }
    }
}
