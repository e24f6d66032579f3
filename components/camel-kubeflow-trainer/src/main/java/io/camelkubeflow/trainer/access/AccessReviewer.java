package io.camelkubeflow.trainer.access;

import io.camelkubeflow.trainer.support.ApiRetry;
import io.fabric8.kubernetes.api.model.authorization.v1.SubjectAccessReview;
import io.fabric8.kubernetes.api.model.authorization.v1.SubjectAccessReviewBuilder;
import io.fabric8.kubernetes.api.model.authorization.v1.SubjectAccessReviewSpecBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.Collection;

/**
 * Asks the API server, with a SubjectAccessReview, whether a caller may do something, so that a request acts within
 * its caller's rights and not the component's: Kubernetes RBAC (or whatever authorizer the cluster runs) decides, as
 * it would for the caller's own kubectl: a verb on a resource, or on a non-resource URL ({@link Access#nonResourceUrl}).
 * The component's identity needs {@code create} on
 * {@code subjectaccessreviews.authorization.k8s.io}.
 */
public class AccessReviewer {
    private final KubernetesClient client;
    private final ApiRetry retry;
    private final AccessDecisions decisions;

    /** Asks the API server every time. */
    public AccessReviewer(KubernetesClient client, ApiRetry retry) {
        this(client, retry, new AccessDecisions(Duration.ZERO));
    }

    /** Asks the API server what {@code decisions} does not hold yet, and keeps its answers there. */
    public AccessReviewer(KubernetesClient client, ApiRetry retry, AccessDecisions decisions) {
        this.client = client;
        this.retry = retry.forClient(client);
        this.decisions = decisions;
    }

    /** Returns when the caller may do all of it; else throws for the first access denied. */
    public void check(Caller caller, Collection<Access> accesses) {
        for (Access access : accesses) {
            check(caller, access);
        }
    }

    public void check(Caller caller, Access access) {
        if (caller == null) {
            throw new AccessDeniedException(
                    null, access, "acting within a caller's rights needs an authenticated" + " caller");
        }
        AccessDecisions.Decision decision = decisions.find(caller, access);
        if (decision == null) {
            decision = ask(caller, access);
            decisions.keep(caller, access, decision);
        }
        if (!decision.allowed()) {
            throw new AccessDeniedException(caller, access, decision.reason());
        }
    }

    private AccessDecisions.Decision ask(Caller caller, Access access) {
        SubjectAccessReviewSpecBuilder spec = new SubjectAccessReviewSpecBuilder()
                .withUser(caller.user())
                .withGroups(caller.groups())
                .withExtra(caller.extra());
        if (access.isNonResourceUrl()) {
            spec.withNewNonResourceAttributes()
                    .withVerb(access.verb())
                    .withPath(access.path())
                    .endNonResourceAttributes();
        } else {
            spec.withNewResourceAttributes()
                    .withVerb(access.verb())
                    .withGroup(access.group())
                    .withResource(access.resource())
                    .withSubresource(access.subresource())
                    .withNamespace(access.namespace())
                    .withName(access.name())
                    .endResourceAttributes();
        }
        SubjectAccessReview review = retry.call(
                "SubjectAccessReview for " + caller.user(),
                () -> client.authorization()
                        .v1()
                        .subjectAccessReview()
                        .create(new SubjectAccessReviewBuilder()
                                .withSpec(spec.build())
                                .build()));
        boolean allowed = review.getStatus() != null
                && Boolean.TRUE.equals(review.getStatus().getAllowed());
        String reason = review.getStatus() == null ? null : review.getStatus().getReason();
        return new AccessDecisions.Decision(allowed, reason == null || reason.isBlank() ? null : reason);
    }
}
