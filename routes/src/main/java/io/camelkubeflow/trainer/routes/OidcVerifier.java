package io.camelkubeflow.trainer.routes;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.camelkubeflow.trainer.access.Caller;
import io.camelkubeflow.trainer.support.Printable;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.jose4j.jwa.AlgorithmConstraints;
import org.jose4j.jwk.HttpsJwks;
import org.jose4j.jws.AlgorithmIdentifiers;
import org.jose4j.jwt.JwtClaims;
import org.jose4j.jwt.MalformedClaimException;
import org.jose4j.jwt.consumer.ErrorCodes;
import org.jose4j.jwt.consumer.InvalidJwtException;
import org.jose4j.jwt.consumer.JwtConsumer;
import org.jose4j.jwt.consumer.JwtConsumerBuilder;
import org.jose4j.keys.resolvers.HttpsJwksVerificationKeyResolver;

/**
 * Checks OIDC ID tokens of human users the way the Kubernetes API server's OIDC authenticator does, and names the
 * caller the way it would: the username is the {@code usernameClaim} with {@code usernamePrefix}, the groups the
 * {@code groupsClaim} with {@code groupsPrefix}. Set these like the API server's {@code --oidc-*} flags, so that the
 * access reviews made for the caller ask about the user the cluster's RBAC knows.
 *
 * <p>Only tokens whose {@code iss} is the configured issuer are this verifier's; any other token (a Kubernetes service
 * account token, say) is left to the TokenReview. The provider's keys come from its discovery document's
 * {@code jwks_uri}, fetched on first use (so the app starts while the provider is down) and refreshed when a token
 * names a key not yet seen.
 */
final class OidcVerifier {
    /** The provider could not be asked for its keys: the token is neither accepted nor refused. */
    static final class ProviderUnavailableException extends RuntimeException {
        ProviderUnavailableException(String message, Throwable cause) {
            super(message, cause);
        }
    }

    /**
     * A name for the logs and reviews: one holding what a message would have to escape (control characters: a forged
     * log line, a header) is no name.
     */
    private static String printable(String claim, String value) {
        if (!Printable.escape(value).equals(value)) {
            throw new RejectedTokenException("the OIDC token's '" + claim + "' claim holds control characters");
        }
        return value;
    }

    /** A token of this issuer that does not pass: bad signature, wrong audience, expired, no username. */
    static final class RejectedTokenException extends RuntimeException {
        RejectedTokenException(String message) {
            super(message);
        }
    }

    record Settings(
            String issuer,
            String audience,
            String usernameClaim,
            String usernamePrefix,
            String groupsClaim,
            String groupsPrefix) {}

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final JwtConsumer UNVERIFIED = new JwtConsumerBuilder()
            .setSkipAllValidators()
            .setDisableRequireSignature()
            .setSkipSignatureVerification()
            .build();

    private final Settings settings;
    private final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private volatile JwtConsumer verifying;

    OidcVerifier(Settings settings) {
        this.settings = settings;
    }

    /**
     * @return the caller the token names, or empty when the token is not from this issuer
     * @throws RejectedTokenException the token is from this issuer but does not pass
     * @throws ProviderUnavailableException the provider's keys could not be read
     */
    Optional<Caller> verify(String token) {
        try {
            if (!settings.issuer().equals(UNVERIFIED.processToClaims(token).getIssuer())) {
                return Optional.empty();
            }
        } catch (InvalidJwtException | MalformedClaimException notAJwt) {
            return Optional.empty();
        }
        JwtClaims claims;
        try {
            claims = consumer().processToClaims(token);
        } catch (InvalidJwtException e) {
            if (causedByIo(e)) {
                throw new ProviderUnavailableException("the OIDC provider's keys could not be read", e);
            }
            throw new RejectedTokenException("the OIDC token does not pass: " + reason(e));
        }
        Object user = claims.getClaimValue(settings.usernameClaim());
        if (!(user instanceof String name) || name.isBlank()) {
            throw new RejectedTokenException("the OIDC token has no '" + settings.usernameClaim() + "' claim");
        }
        printable(settings.usernameClaim(), name);
        List<String> groups = new ArrayList<>();
        Object groupsClaim = claims.getClaimValue(settings.groupsClaim());
        // each group is one element, whatever it holds (a comma too), as the API server's authenticator takes it
        for (Object group : groupsClaim instanceof List<?> values
                ? values
                : groupsClaim == null ? List.of() : List.of(groupsClaim)) {
            if (!(group instanceof String text)) {
                throw new RejectedTokenException("the OIDC token's '" + settings.groupsClaim() + "' claim holds a"
                        + " value that is not a string");
            }
            groups.add(settings.groupsPrefix() + printable(settings.groupsClaim(), text));
        }
        return Optional.of(new Caller(settings.usernamePrefix() + name, groups));
    }

    private static boolean causedByIo(Throwable e) {
        for (Throwable cause = e; cause != null; cause = cause.getCause()) {
            if (cause instanceof IOException) {
                return true;
            }
        }
        return false;
    }

    /**
     * What is wrong with a token, by jose4j's error code: its messages can quote the token itself (a signature
     * failure prints the whole JWS), which an answer must not carry back to logs and proxies.
     */
    private static String reason(InvalidJwtException e) {
        if (e.getErrorDetails().isEmpty()) {
            return "invalid";
        }
        return switch (e.getErrorDetails().get(0).getErrorCode()) {
            case ErrorCodes.EXPIRED -> "expired";
            case ErrorCodes.AUDIENCE_INVALID, ErrorCodes.AUDIENCE_MISSING -> "not for this audience";
            case ErrorCodes.ISSUER_INVALID, ErrorCodes.ISSUER_MISSING -> "not of this issuer";
            case ErrorCodes.SIGNATURE_INVALID, ErrorCodes.SIGNATURE_MISSING -> "its signature does not verify";
            case ErrorCodes.EXPIRATION_MISSING -> "it has no expiry";
            case ErrorCodes.SUBJECT_MISSING -> "it has no subject";
            case ErrorCodes.NOT_YET_VALID, ErrorCodes.ISSUED_AT_INVALID_FUTURE -> "not valid yet";
            default -> "invalid (error " + e.getErrorDetails().get(0).getErrorCode() + ")";
        };
    }

    private JwtConsumer consumer() {
        JwtConsumer consumer = verifying;
        if (consumer == null) {
            synchronized (this) {
                if (verifying == null) {
                    verifying = new JwtConsumerBuilder()
                            .setRequireExpirationTime()
                            .setAllowedClockSkewInSeconds(30)
                            .setRequireSubject()
                            .setExpectedIssuer(settings.issuer())
                            .setExpectedAudience(settings.audience())
                            .setJwsAlgorithmConstraints(
                                    AlgorithmConstraints.ConstraintType.PERMIT,
                                    AlgorithmIdentifiers.RSA_USING_SHA256,
                                    AlgorithmIdentifiers.RSA_USING_SHA384,
                                    AlgorithmIdentifiers.RSA_USING_SHA512,
                                    AlgorithmIdentifiers.ECDSA_USING_P256_CURVE_AND_SHA256,
                                    AlgorithmIdentifiers.ECDSA_USING_P384_CURVE_AND_SHA384)
                            .setVerificationKeyResolver(new HttpsJwksVerificationKeyResolver(new HttpsJwks(jwksUri())))
                            .build();
                }
                consumer = verifying;
            }
        }
        return consumer;
    }

    /** The provider's discovery document names where its keys are. */
    private String jwksUri() {
        String discovery = settings.issuer().replaceAll("/+$", "") + "/.well-known/openid-configuration";
        try {
            HttpResponse<String> answer = http.send(
                    HttpRequest.newBuilder(URI.create(discovery))
                            .timeout(Duration.ofSeconds(5))
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
            Object jwksUri = answer.statusCode() == 200
                    ? JSON.readValue(answer.body(), Map.class).get("jwks_uri")
                    : null;
            if (!(jwksUri instanceof String uri)) {
                throw new ProviderUnavailableException(
                        discovery + " answered " + answer.statusCode() + " without a jwks_uri", null);
            }
            return uri;
        } catch (IOException e) {
            throw new ProviderUnavailableException("cannot read " + discovery + ": " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ProviderUnavailableException("interrupted reading " + discovery, e);
        }
    }
}
