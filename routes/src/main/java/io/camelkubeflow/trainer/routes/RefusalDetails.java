package io.camelkubeflow.trainer.routes;

import io.camelkubeflow.trainer.access.AccessDeniedException;
import io.camelkubeflow.trainer.job.PolicyViolationException;
import io.camelkubeflow.trainer.support.InvalidOptionException;
import jakarta.inject.Named;
import jakarta.inject.Singleton;
import java.util.Map;
import org.apache.camel.Exchange;

/**
 * What a refused request's report says besides the message, on every entry point that writes one (the Kafka dead
 * letter, the S3 report, the inbox's log): the field at fault as the caller wrote it, the policy rule, or the access
 * the caller was denied.
 */
@Singleton
@Named("refusalDetails")
public class RefusalDetails {
    /**
     * The caught refusal with its field named as the caller wrote it (a message field, not the component header it
     * became), for the reports and logs of the Kafka, S3 and inbox routes, as the HTTP API names it.
     */
    public void nameAsWritten(Exchange exchange) {
        Exception refusal = exchange.getProperty(Exchange.EXCEPTION_CAUGHT, Exception.class);
        // only a plain InvalidOptionException: a subclass (a policy's rule, a missing runtime) keeps what it says
        if (refusal != null
                && refusal.getClass() == InvalidOptionException.class
                && ((InvalidOptionException) refusal).getField() != null) {
            InvalidOptionException invalid = (InvalidOptionException) refusal;
            String field = TrainRequestMessage.fieldOf(invalid.getField());
            if (field != null) {
                exchange.setProperty(Exchange.EXCEPTION_CAUGHT, invalid.as(field));
            }
        }
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
