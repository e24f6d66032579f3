package io.camelkubeflow.trainer.routes;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.camelkubeflow.trainer.KubeflowTrainerComponent;
import io.camelkubeflow.trainer.KubeflowTrainerConstants;
import io.camelkubeflow.trainer.access.Access;
import io.camelkubeflow.trainer.access.AccessDeniedException;
import io.camelkubeflow.trainer.access.Caller;
import io.camelkubeflow.trainer.job.TrainJobMetadata;
import io.camelkubeflow.trainer.quarkus.LocalTrainerSandbox;
import io.camelkubeflow.trainer.support.ApiRetry;
import io.fabric8.kubernetes.api.model.authentication.TokenReview;
import io.fabric8.kubernetes.api.model.authentication.TokenReviewBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.runtime.StartupEvent;
import io.quarkus.vertx.http.HttpServer;
import io.quarkus.vertx.http.HttpServerStart;
import io.vertx.ext.auth.User;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.event.ObservesAsync;
import jakarta.inject.Inject;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;
import org.apache.camel.CamelContext;
import org.apache.camel.Exchange;
import org.apache.camel.component.platform.http.vertx.VertxPlatformHttpConstants;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.jboss.logging.Logger;

/**
 * Who is calling the HTTP API: every request under {@code /trainjobs} and {@code /runtimes} needs {@code Authorization: Bearer <token>}, a
 * Kubernetes token the API server vouches for (TokenReview), so a caller is a Kubernetes user or service account and
 * the routes then act within that caller's rights. With {@code trainer.http.oidc.issuer} set, an ID token of that
 * OIDC provider is accepted too, for human users, and names the caller as the API server's OIDC authenticator would
 * (see {@link OidcVerifier}). No token, or one the API server does not accept: 401 with a JSON
 * body saying how to authenticate. The caller goes on as a typed {@link Caller}, never as text: to the Vert.x routes in
 * the routing context ({@link #CALLER}), to the Camel routes as the routing context's Vert.x user, which platform-http
 * hands on as an object in {@code CamelVertxPlatformHttpAuthenticatedUser}; {@link #actAsCaller} moves it into the
 * component's exchange property. No header, query parameter or body of any name can set or extend it. A TokenReview's
 * answer is kept by the token's SHA-256 for {@code trainer.http.token-cache-ttl}; each caller then spends one request
 * of its budget ({@link CallerBudgets}), and past it is answered 429 with Retry-After.
 *
 * <p>The Prometheus metrics ({@code /q/metrics}) are authenticated the same way, and their caller must also be allowed
 * {@code get} on the non-resource URL {@code /metrics} (403 otherwise), as Kubernetes components guard theirs; the
 * health probes and the OpenAPI document stay open (a kubelet's probe carries no token; the contract is public).
 *
 * <p>On the local sandbox a token is made at start for the local developer (full rights on the sandbox) and written
 * to {@code trainer.http.token-file}, readable by its owner only, as Jupyter does: a web page in a browser can send a
 * request to localhost, but cannot read that file.
 */
@ApplicationScoped
public class HttpAuthentication {
    /** The caller in the routing context (for the Vert.x routes) and in its Vert.x user's attributes (for Camel's). */
    static final String CALLER = "kubeflow-trainer-caller";

    private static final Logger LOG = Logger.getLogger(HttpAuthentication.class);
    /** What reading the metrics needs, as Kubernetes components ask it of their scrapers. */
    static final Access READ_METRICS = Access.nonResourceUrl("get", "/metrics");
    /** At most this many tokens' answers are kept; the least used go first. */
    private static final long MAX_REVIEWED_TOKENS = 10_000;

    private static final String HOW = "send 'Authorization: Bearer <token>' with a Kubernetes token: a service"
            + " account's (kubectl create token <serviceaccount> -n <namespace>) or your own; on the local sandbox, the"
            + " token in the file the app named at start";

    @Inject
    KubernetesClient client;

    /** Its component's access reviewer, whose kept answers the API's reviews share. */
    @Inject
    CamelContext camel;

    /** Where Quarkus serves the Prometheus text (absolute, set in application.properties). */
    @ConfigProperty(name = "quarkus.micrometer.export.prometheus.path")
    String metricsPath;

    @Inject
    LocalTrainerSandbox localSandbox;

    @ConfigProperty(name = "trainer.http.token-file", defaultValue = ".camel-kubeflow-trainer/http-token")
    String tokenFile;

    @ConfigProperty(name = "trainer.http.oidc.issuer")
    Optional<String> oidcIssuer;

    @ConfigProperty(name = "trainer.http.oidc.audience", defaultValue = "camel-kubeflow-trainer")
    String oidcAudience;

    @ConfigProperty(name = "trainer.http.oidc.username-claim", defaultValue = "sub")
    String oidcUsernameClaim;

    @ConfigProperty(name = "trainer.http.oidc.username-prefix", defaultValue = "oidc:")
    String oidcUsernamePrefix;

    @ConfigProperty(name = "trainer.http.oidc.groups-claim", defaultValue = "groups")
    String oidcGroupsClaim;

    @ConfigProperty(name = "trainer.http.oidc.groups-prefix", defaultValue = "oidc:")
    String oidcGroupsPrefix;

    @ConfigProperty(name = "trainer.http.token-cache-ttl", defaultValue = "10s")
    Duration tokenCacheTtl;

    @ConfigProperty(name = "trainer.http.rate-limit.per-second", defaultValue = "20")
    double ratePerSecond;

    @ConfigProperty(name = "trainer.http.rate-limit.burst", defaultValue = "40")
    int rateBurst;

    @Inject
    MeterRegistry meters;

    /** The HTTP server as it listens: its port once bound, also when {@code quarkus.http.port} is 0 (any free port). */
    @Inject
    HttpServer httpServer;

    @ConfigProperty(name = "quarkus.http.host")
    String httpHost;

    private Optional<OidcVerifier> oidc = Optional.empty();
    /** What the API server said of a token (the caller, or empty: not accepted), by the token's SHA-256. */
    private Cache<String, Optional<Caller>> reviewedTokens;

    private CallerBudgets budgets;

    void register(@Observes Router router) {
        // ahead of the log stream (-1) and the REST DSL's routes
        for (String api : HttpRoutes.PATHS) {
            router.route(api).order(-10).blockingHandler(this::authenticate, false);
        }
        // ahead of Quarkus's Prometheus routes, which serve the path and every path under it: matched, as theirs, on
        // the normalized path (no dot segments), whatever the method
        router.routeWithRegex(Pattern.quote(metricsPath) + "(/.*)?")
                .order(-10)
                .blockingHandler(this::authorizeMetricsReader, false);
    }

    /** On the sandbox: a token for the local developer, in a file only its owner can read. */
    void onStart(@Observes StartupEvent start) {
        // evictions on the calling thread: a token's answer past its TTL is never served while a pool catches up
        reviewedTokens = Caffeine.newBuilder()
                .expireAfterWrite(tokenCacheTtl)
                .maximumSize(MAX_REVIEWED_TOKENS)
                .executor(Runnable::run)
                .build();
        budgets = new CallerBudgets(ratePerSecond, rateBurst);
        oidc = oidcIssuer.map(issuer -> new OidcVerifier(new OidcVerifier.Settings(
                issuer, oidcAudience, oidcUsernameClaim, oidcUsernamePrefix, oidcGroupsClaim, oidcGroupsPrefix)));
        oidcIssuer.ifPresent(issuer -> LOG.infof(
                "The HTTP API accepts ID tokens of the OIDC provider %s for audience"
                        + " %s, besides Kubernetes tokens",
                issuer, oidcAudience));
        if (localSandbox.sandbox() == null) {
            return;
        }
        localSandbox.sandbox().writeToken(Path.of(tokenFile), "developer", "system:masters");
    }

    /**
     * On the sandbox, once the HTTP server listens (its port is then the bound one, also when configured as 0): where
     * the token is, and a request to copy.
     */
    void onListening(@ObservesAsync HttpServerStart listening) {
        if (localSandbox.sandbox() == null) {
            return;
        }
        Path file = Path.of(tokenFile).toAbsolutePath();
        // an IPv6 address is bracketed in a URL
        String host = httpHost.contains(":") ? "[" + httpHost + "]" : httpHost;
        LOG.infof(
                "The HTTP API listens on %s and needs 'Authorization: Bearer <token>': the token for the local"
                        + " sandbox is in %s (readable by you only), e.g. curl -H \"Authorization: Bearer $(cat %s)\""
                        + " http://%s:%d/trainjobs",
                httpHost, file, file, host, httpServer.getPort());
    }

    private void authenticate(RoutingContext context) {
        Caller caller = authenticated(context);
        if (caller == null) {
            return;
        }
        context.put(CALLER, caller);
        User user = User.fromName(caller.user());
        user.attributes().put(CALLER, caller);
        context.setUser(user);
        context.next();
    }

    /**
     * {@code /q/metrics}, as kube-rbac-proxy and controller-runtime's secure metrics guard theirs: a caller
     * authenticated as the API's are, allowed {@code get} on the non-resource URL {@code /metrics} (a ClusterRole's
     * {@code nonResourceURLs}, deploy/monitoring's {@code camel-kubeflow-trainer-metrics-reader}); reviewed through
     * the component's reviewer, so its answers are kept with the API's, each by its own access.
     */
    private void authorizeMetricsReader(RoutingContext context) {
        Caller caller = authenticated(context);
        if (caller == null) {
            return;
        }
        try {
            camel.getComponent("kubeflow-trainer", KubeflowTrainerComponent.class)
                    .accessReviewerFor(client, ApiRetry.DEFAULT)
                    .check(caller, READ_METRICS);
        } catch (AccessDeniedException e) {
            refusals(403).increment();
            ErrorAnswer.Problem.ACCESS_DENIED
                    .answer(
                            e.getMessage(),
                            null,
                            "scrape with a token of an account"
                                    + " bound to a ClusterRole allowing get on the non-resource URL "
                                    + READ_METRICS.path()
                                    + " (deploy/monitoring's camel-kubeflow-trainer-metrics-reader)")
                    .send(context);
            return;
        } catch (KubernetesClientException e) {
            unavailable(context, e, "the caller's access to the metrics");
            return;
        }
        context.next();
    }

    /**
     * The caller of the request's bearer token, its request counted against its budget; null when the request was
     * answered (401 without a token or with one nobody vouches for, 429 over budget, 503 when it cannot be checked).
     */
    private Caller authenticated(RoutingContext context) {
        String authorization = context.request().getHeader("Authorization");
        if (authorization == null
                || !authorization.regionMatches(true, 0, "Bearer ", 0, 7)
                || authorization.substring(7).isBlank()) {
            refuse(context, 401, "no bearer token");
            return null;
        }
        Caller caller;
        try {
            caller = callerOf(authorization.substring(7).trim(), context);
        } catch (OverBudgetException e) {
            tooMany(context, e.getMessage(), e.waitSeconds);
            return null;
        } catch (OidcVerifier.RejectedTokenException e) {
            refuse(context, 401, e.getMessage());
            return null;
        } catch (OidcVerifier.ProviderUnavailableException e) {
            LOG.warnf("Could not check a bearer token: %s", e.getMessage());
            ErrorAnswer.Problem.UNAVAILABLE
                    .answer(
                            "OIDC provider unreachable: the token could not be checked now",
                            "Authorization",
                            "try again shortly; nothing was changed")
                    .send(context);
            return null;
        } catch (KubernetesClientException e) {
            unavailable(context, e, "the token");
            return null;
        }
        if (caller == null) {
            refuse(context, 401, "the Kubernetes API does not accept this token");
            return null;
        }
        long waitSeconds = budgets.take(caller.user(), System.nanoTime());
        if (waitSeconds > 0) {
            tooMany(context, "too many requests from caller '" + caller.user() + "'", waitSeconds);
            return null;
        }
        return caller;
    }

    /** 503: the Kubernetes API did not answer the review of {@code what} the request needs. */
    private static void unavailable(RoutingContext context, KubernetesClientException e, String what) {
        LOG.warnf("Could not check %s: %s", what, e.getMessage());
        String who = ErrorAnswer.apiUnreachable(e)
                ? ErrorAnswer.API_UNREACHABLE
                : "the Kubernetes API did not review " + what + " (" + e.getCode() + ")";
        ErrorAnswer.Problem.UNAVAILABLE
                .answer(
                        who + ": " + what + " could not be checked now",
                        "Authorization",
                        "try again shortly; nothing was changed")
                .send(context);
    }

    /** The caller an OIDC token of the configured issuer names, else the one the Kubernetes API vouches for; null when neither. */
    private Caller callerOf(String token, RoutingContext context) {
        Optional<Caller> human = oidc.flatMap(verifier -> verifier.verify(token));
        if (human.isPresent()) {
            return human.get();
        }
        String hash = TrainJobMetadata.sha256(token);
        Optional<Caller> kept = reviewedTokens.getIfPresent(hash);
        if (kept == null) {
            // a token not seen lately costs the API server a review: before anyone is known, the budget is the
            // client address's, so a stream of made-up tokens cannot turn into a stream of TokenReviews
            String address = context.request().remoteAddress() == null
                    ? "unknown"
                    : context.request().remoteAddress().hostAddress();
            long waitSeconds = budgets.take("address " + address, System.nanoTime());
            if (waitSeconds > 0) {
                throw new OverBudgetException("too many new tokens from " + address, waitSeconds);
            }
        }
        tokenReviews(kept == null ? "reviewed" : "cached").increment();
        if (kept == null) {
            // a failed review (API unreachable) throws and keeps nothing: the next request asks again
            kept = review(token);
            reviewedTokens.put(hash, kept);
        }
        return kept.orElse(null);
    }

    /** The caller the API server's TokenReview names, with its groups and extra as it gave them; empty if none. */
    private Optional<Caller> review(String token) {
        TokenReview review = client.authentication()
                .v1()
                .tokenReviews()
                .create(new TokenReviewBuilder()
                        .withNewSpec()
                        .withToken(token)
                        .endSpec()
                        .build());
        if (review.getStatus() == null
                || !Boolean.TRUE.equals(review.getStatus().getAuthenticated())) {
            return Optional.empty();
        }
        var user = review.getStatus().getUser();
        if (user == null || user.getUsername() == null || user.getUsername().isBlank()) {
            return Optional.empty();
        }
        return Optional.of(new Caller(
                user.getUsername(),
                user.getGroups() == null ? List.of() : user.getGroups(),
                user.getExtra() == null ? Map.of() : user.getExtra()));
    }

    private void tooMany(RoutingContext context, String who, long waitSeconds) {
        refusals(429).increment();
        context.response().putHeader("Retry-After", Long.toString(waitSeconds));
        ErrorAnswer.Problem.RATE_LIMITED
                .answer(
                        who + ": at most " + ratePerSecond + " a second over time, " + rateBurst + " at once",
                        null,
                        "try again after " + waitSeconds + " s (Retry-After); nothing was" + " changed")
                .send(context);
    }

    /** Tokens the API server would have to review, from an address past its budget. */
    private static final class OverBudgetException extends RuntimeException {
        private final long waitSeconds;

        OverBudgetException(String message, long waitSeconds) {
            super(message);
            this.waitSeconds = waitSeconds;
        }
    }

    private Counter tokenReviews(String result) {
        return Counter.builder("kubeflow.trainer.http.token.reviews")
                .tag("result", result)
                .description("Bearer tokens checked by a TokenReview (reviewed) or from the kept answers (cached)")
                .register(meters);
    }

    private Counter refusals(int status) {
        return Counter.builder("kubeflow.trainer.http.refusals")
                .tag("status", Integer.toString(status))
                .description("HTTP requests refused before they reached a route: 401 unauthenticated, 403 metrics"
                        + " without the right to read them, 429 over the caller's rate")
                .register(meters);
    }

    /**
     * The first step of every Camel route of the HTTP API: the caller this filter vouched for, taken from the Vert.x
     * user platform-http handed on (an object no client can send), becomes the component's caller
     * ({@link KubeflowTrainerConstants#CALLER_PROPERTY}). Anything else in that header (a string a client sent in its
     * name) is no caller: the request is refused as unauthenticated.
     */
    static Caller actAsCaller(Exchange exchange) {
        Object user = exchange.getMessage().removeHeader(VertxPlatformHttpConstants.AUTHENTICATED_USER);
        if (!(user instanceof User vertxUser)
                || !(vertxUser.attributes().getMap().get(CALLER) instanceof Caller caller)) {
            throw new UnauthenticatedException("the request reached the API without an authenticated caller");
        }
        exchange.setProperty(KubeflowTrainerConstants.CALLER_PROPERTY, caller);
        return caller;
    }

    /** A Camel route of the HTTP API reached without a caller: answered 401, as the filter would have. */
    static final class UnauthenticatedException extends RuntimeException {
        UnauthenticatedException(String message) {
            super(message);
        }
    }

    private void refuse(RoutingContext context, int status, String why) {
        refusals(status).increment();
        String how = oidcIssuer
                .map(issuer -> HOW + ", or an ID token of " + issuer + " for audience " + oidcAudience)
                .orElse(HOW);
        context.response().putHeader("WWW-Authenticate", "Bearer");
        ErrorAnswer.Problem.UNAUTHENTICATED
                .answer(why, "Authorization", how)
                .at(status)
                .send(context);
    }
}
