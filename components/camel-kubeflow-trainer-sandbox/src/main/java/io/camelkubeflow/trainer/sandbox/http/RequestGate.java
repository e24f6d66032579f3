package io.camelkubeflow.trainer.sandbox.http;

import io.camelkubeflow.trainer.sandbox.store.Discovery;
import io.camelkubeflow.trainer.sandbox.store.StatusAnswers;
import io.fabric8.mockwebserver.http.MockResponse;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpServerRequest;
import java.util.Locale;
import java.util.Set;
import java.util.function.Predicate;
import java.util.regex.Pattern;

/**
 * Who may talk to the sandbox's API server at all, decided before a request is read or waits for the installation.
 * The sandbox runs code as its user (staged scripts) and holds Secrets, and loopback is shared with every local user
 * and every web page a local browser opens, so:
 * <ul>
 * <li>a request a browser sends for a page is refused ({@code 403}): it carries an {@code Origin} (kubectl and
 * client libraries never send one, but for the sandbox's own address on a WebSocket upgrade), a
 * {@code Sec-Fetch-Site} other than {@code none}/{@code same-origin}, or a {@code Host} other than the loopback address
 * the server listens on (a page whose name was rebound to 127.0.0.1);</li>
 * <li>a request without a bearer token the sandbox issued is refused ({@code 401}), as kube-apiserver refuses one
 * with anonymous access off; a GET of what {@code system:public-info-viewer} lets anyone read ({@code /version},
 * {@code /healthz}, {@code /livez}, {@code /readyz}) stays open, as it names no secret;</li>
 * <li>a write whose body is not of a type kube-apiserver decodes is refused ({@code 415}): the bodies a page may
 * send without asking ({@code text/plain}, forms, none) are among them.</li>
 * </ul>
 */
final class RequestGate {
    /** What {@code system:public-info-viewer} lets anyone GET on a cluster ({@link Discovery} answers each). */
    private static final Set<String> PUBLIC_PATHS = Set.of("/version", "/version/", "/healthz", "/livez", "/readyz");
    /**
     * JSON, YAML, protobuf and the patch types (json-patch+json, merge-patch+json, strategic-merge-patch+json,
     * apply-patch+yaml).
     */
    private static final Pattern DECODED_BODY =
            Pattern.compile("application/(json|yaml|vnd\\.kubernetes\\.protobuf|[a-z-]+-patch\\+(json|yaml))");

    private static final Set<String> WRITES = Set.of("POST", "PUT", "PATCH");
    private static final String BEARER = "bearer ";

    /** Whether a token is one the sandbox issued. */
    private final Predicate<String> issuedToken;
    /** The address the server listens on, as a client writes it in a Host header ("127.0.0.1", "[::1]"). */
    private final String listenHost;

    RequestGate(Predicate<String> issuedToken, String listenHost) {
        this.issuedToken = issuedToken;
        this.listenHost = listenHost;
    }

    /** The Status answer refusing the request, or null when it may go on; {@code port} is the one it came in on. */
    MockResponse refusal(HttpServerRequest request, int port) {
        String origin = request.getHeader(HttpHeaders.ORIGIN);
        if (origin != null && !(ApiHttpServer.isWebSocketUpgrade(request) && isOwnOrigin(origin, port))
                || !fetchedByItself(request.getHeader("Sec-Fetch-Site"))) {
            return StatusAnswers.failure(
                    403,
                    "Forbidden",
                    "the sandbox answers no request a web page makes: a"
                            + " browser sent it (Origin or Sec-Fetch-Site header)");
        }
        if (!isListenAddress(request.getHeader(HttpHeaders.HOST), port)) {
            return StatusAnswers.failure(
                    403, "Forbidden", "the sandbox answers only requests for its loopback address" + " (Host header)");
        }
        String method = request.method().name();
        String token = bearerToken(request.getHeader(HttpHeaders.AUTHORIZATION));
        boolean publicInfo = "GET".equals(method) && PUBLIC_PATHS.contains(request.path());
        if (!publicInfo && (token == null || !issuedToken.test(token))) {
            // kube-apiserver's words; the token is never repeated
            return StatusAnswers.failure(401, "Unauthorized", "Unauthorized");
        }
        boolean write = WRITES.contains(method) || !"GET".equals(method) && ApiHttpServer.hasBody(request);
        if (write && !isDecodedBody(request.getHeader(HttpHeaders.CONTENT_TYPE))) {
            return StatusAnswers.failure(
                    415,
                    "UnsupportedMediaType",
                    "the body of the request was in an unknown"
                            + " format - accepted media types include: application/json, application/yaml,"
                            + " application/vnd.kubernetes.protobuf");
        }
        return null;
    }

    /**
     * Vert.x's WebSocket client (fabric8's watches) names the server it connects to as the Origin; a page can send
     * that Origin only when it was served from the sandbox's own address, which serves no page.
     */
    private boolean isOwnOrigin(String origin, int port) {
        String prefix = "https://";
        return origin.regionMatches(true, 0, prefix, 0, prefix.length())
                && isListenAddress(origin.substring(prefix.length()), port);
    }

    private static boolean fetchedByItself(String secFetchSite) {
        return secFetchSite == null || secFetchSite.equals("none") || secFetchSite.equals("same-origin");
    }

    /** "localhost" or the listening address, with the listening port (a Host without one names port 80). */
    private boolean isListenAddress(String host, int port) {
        if (host == null) {
            return false;
        }
        int colon = host.lastIndexOf(':');
        boolean hasPort = colon > host.lastIndexOf(']');
        String name = (hasPort ? host.substring(0, colon) : host).toLowerCase(Locale.ROOT);
        String givenPort = hasPort ? host.substring(colon + 1) : "80";
        return (name.equals("localhost") || name.equals(listenHost)) && givenPort.equals(String.valueOf(port));
    }

    /** The token of an {@code Authorization: Bearer} header (its scheme in any case, as RFC 7235 has it); else null. */
    private static String bearerToken(String authorization) {
        if (authorization == null || !authorization.regionMatches(true, 0, BEARER, 0, BEARER.length())) {
            return null;
        }
        String token = authorization.substring(BEARER.length()).trim();
        return token.isEmpty() ? null : token;
    }

    private static boolean isDecodedBody(String contentType) {
        if (contentType == null) {
            return false;
        }
        int parameters = contentType.indexOf(';');
        String mediaType = (parameters < 0 ? contentType : contentType.substring(0, parameters))
                .trim()
                .toLowerCase(Locale.ROOT);
        return DECODED_BODY.matcher(mediaType).matches();
    }
}
