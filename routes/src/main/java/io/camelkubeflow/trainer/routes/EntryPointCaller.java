package io.camelkubeflow.trainer.routes;

import static io.camelkubeflow.trainer.KubeflowTrainerConstants.CALLER_PROPERTY;

import io.camelkubeflow.trainer.access.Caller;
import java.util.List;
import java.util.Optional;
import org.apache.camel.Exchange;
import org.apache.camel.Processor;
import org.eclipse.microprofile.config.Config;

/**
 * The identity an entry point without callers of its own (a Kafka topic, an S3 prefix) acts as: with
 * {@code trainer.<entry>.caller-user} (and optionally {@code trainer.<entry>.caller-groups}) set, every request that
 * comes in there is authorized as that user, like an HTTP caller, on top of the request policy; unset, the request
 * policy alone bounds what it may ask. Name the user who owns the topic or bucket, e.g. a service account
 * {@code system:serviceaccount:<namespace>:<name>}, and bind it only what its producers may do.
 */
final class EntryPointCaller implements Processor {
    private final Optional<Caller> caller;

    private EntryPointCaller(Optional<Caller> caller) {
        this.caller = caller;
    }

    static EntryPointCaller of(Config config, String entryPoint) {
        return new EntryPointCaller(config.getOptionalValue("trainer." + entryPoint + ".caller-user", String.class)
                .map(user -> new Caller(
                        user,
                        config.getOptionalValues("trainer." + entryPoint + ".caller-groups", String.class)
                                .orElse(List.of()))));
    }

    /** The train endpoint's option for this entry point: authorize as its caller when one is configured. */
    String authorizeOption() {
        return caller.isPresent() ? "&authorizeCaller=true" : "";
    }

    /**
     * Puts the configured caller on the exchange, as the typed value the component reads: a record header or object
     * metadata cannot reach an exchange property.
     */
    @Override
    public void process(Exchange exchange) {
        caller.ifPresent(configured -> exchange.setProperty(CALLER_PROPERTY, configured));
    }
}
