package io.camelkubeflow.trainer.routes;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.camelkubeflow.trainer.access.Caller;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** OIDC ID tokens are checked against the provider's published keys and name the caller as the API server would. */
class OidcVerifierTest {
    private static OidcProvider provider;
    private static OidcVerifier verifier;

    @BeforeAll
    static void start() {
        provider = new OidcProvider();
        verifier = new OidcVerifier(
                new OidcVerifier.Settings(provider.issuer(), OidcProvider.AUDIENCE, "sub", "oidc:", "groups", "oidc:"));
    }

    @AfterAll
    static void stop() {
        provider.close();
    }

    @Test
    void aValidTokenNamesThePrefixedUserAndGroups() {
        assertEquals(
                Optional.of(new Caller("oidc:alice", List.of("oidc:ml-team", "oidc:admins"))),
                verifier.verify(provider.token("alice", List.of("ml-team", "admins"))));
    }

    @Test
    void theUsernameComesFromTheConfiguredClaim() {
        OidcVerifier byEmail = new OidcVerifier(
                new OidcVerifier.Settings(provider.issuer(), OidcProvider.AUDIENCE, "email", "", "groups", ""));
        assertEquals(
                "alice@example.com",
                byEmail.verify(provider.token(Map.of("email", "alice@example.com"), "a1", 5, OidcProvider.AUDIENCE))
                        .orElseThrow()
                        .user());
        assertTrue(assertThrows(
                        OidcVerifier.RejectedTokenException.class,
                        () -> byEmail.verify(provider.token("alice", List.of())))
                .getMessage()
                .contains("'email'"));
    }

    @Test
    void aTokenSignedWithAKeyTheProviderDoesNotPublishIsRejected() {
        assertThrows(OidcVerifier.RejectedTokenException.class, () -> verifier.verify(provider.forgedToken("alice")));
    }

    @Test
    void anExpiredTokenIsRejected() {
        assertThrows(
                OidcVerifier.RejectedTokenException.class,
                () -> verifier.verify(provider.token(Map.of(), "alice", -5, OidcProvider.AUDIENCE)));
    }

    @Test
    void aTokenForAnotherAudienceIsRejected() {
        assertThrows(
                OidcVerifier.RejectedTokenException.class,
                () -> verifier.verify(provider.token(Map.of(), "alice", 5, "another-app")));
    }

    @Test
    void aTokenOfAnotherIssuerOrNoJwtIsLeftToTheTokenReview() {
        assertEquals(
                Optional.empty(),
                verifier.verify(provider.token(
                        Map.of("iss", "https://kubernetes.default.svc"),
                        "system:serviceaccount:ml:ci",
                        5,
                        OidcProvider.AUDIENCE)));
        assertEquals(Optional.empty(), verifier.verify("an-opaque-token"));
    }

    @Test
    void aProviderThatDoesNotAnswerMakesTheCheckUnavailableNotRejected() {
        OidcProvider gone = new OidcProvider();
        OidcVerifier unreachable = new OidcVerifier(
                new OidcVerifier.Settings(gone.issuer(), OidcProvider.AUDIENCE, "sub", "oidc:", "groups", "oidc:"));
        String token = gone.token("alice", List.of());
        gone.close();
        assertThrows(OidcVerifier.ProviderUnavailableException.class, () -> unreachable.verify(token));
    }
}
