package io.camelkubeflow.trainer.routes;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.jose4j.jwk.JsonWebKeySet;
import org.jose4j.jwk.RsaJsonWebKey;
import org.jose4j.jwk.RsaJwkGenerator;
import org.jose4j.jws.AlgorithmIdentifiers;
import org.jose4j.jws.JsonWebSignature;
import org.jose4j.jwt.JwtClaims;
import org.jose4j.lang.JoseException;

/**
 * An OIDC provider for tests: a real HTTP server publishing a discovery document and its signing key (JWKS), which
 * signs ID tokens with that key. {@link #forgedToken} signs with a key it does not publish.
 */
final class OidcProvider implements AutoCloseable {
    static final String AUDIENCE = "camel-kubeflow-trainer";
    private final HttpServer server;
    private final RsaJsonWebKey key = generate("provider-key");
    private final RsaJsonWebKey otherKey = generate("provider-key");

    OidcProvider() {
        try {
            server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        serve(
                "/.well-known/openid-configuration",
                "{\"issuer\":\"" + issuer() + "\",\"jwks_uri\":\"" + issuer() + "/keys\"}");
        serve("/keys", new JsonWebKeySet(key).toJson());
        server.start();
    }

    String issuer() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    /** An ID token for {@code sub} in {@code groups}, valid for five minutes. */
    String token(String sub, List<String> groups) {
        return sign(key, claims(issuer(), AUDIENCE, sub, groups, 5));
    }

    String token(Map<String, Object> extraOrChanged, String sub, int validMinutes, String audience) {
        JwtClaims claims = claims(issuer(), audience, sub, List.of(), validMinutes);
        extraOrChanged.forEach(claims::setClaim);
        return sign(key, claims);
    }

    String forgedToken(String sub) {
        return sign(otherKey, claims(issuer(), AUDIENCE, sub, List.of(), 5));
    }

    private static JwtClaims claims(String issuer, String audience, String sub, List<String> groups, int validMinutes) {
        JwtClaims claims = new JwtClaims();
        claims.setIssuer(issuer);
        claims.setAudience(audience);
        claims.setSubject(sub);
        claims.setIssuedAtToNow();
        claims.setExpirationTimeMinutesInTheFuture(validMinutes);
        claims.setStringListClaim("groups", groups);
        return claims;
    }

    private static String sign(RsaJsonWebKey key, JwtClaims claims) {
        JsonWebSignature jws = new JsonWebSignature();
        jws.setPayload(claims.toJson());
        jws.setKey(key.getPrivateKey());
        jws.setKeyIdHeaderValue(key.getKeyId());
        jws.setAlgorithmHeaderValue(AlgorithmIdentifiers.RSA_USING_SHA256);
        try {
            return jws.getCompactSerialization();
        } catch (JoseException e) {
            throw new IllegalStateException(e);
        }
    }

    private static RsaJsonWebKey generate(String keyId) {
        try {
            RsaJsonWebKey key = RsaJwkGenerator.generateJwk(2048);
            key.setKeyId(keyId);
            return key;
        } catch (JoseException e) {
            throw new IllegalStateException(e);
        }
    }

    private void serve(String path, String json) {
        byte[] body = json.getBytes(StandardCharsets.UTF_8);
        server.createContext(path, exchange -> {
            exchange.getResponseHeaders().set("Content-Type", "application/json");
            exchange.sendResponseHeaders(200, body.length);
            exchange.getResponseBody().write(body);
            exchange.close();
        });
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
