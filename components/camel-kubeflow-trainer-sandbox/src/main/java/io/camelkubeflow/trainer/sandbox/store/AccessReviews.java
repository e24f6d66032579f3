package io.camelkubeflow.trainer.sandbox.store;

import io.fabric8.kubernetes.api.model.authentication.TokenReview;
import io.fabric8.kubernetes.api.model.authentication.TokenReviewStatusBuilder;
import io.fabric8.kubernetes.api.model.authentication.UserInfo;
import io.fabric8.kubernetes.api.model.authentication.UserInfoBuilder;
import io.fabric8.kubernetes.api.model.authorization.v1.NonResourceAttributes;
import io.fabric8.kubernetes.api.model.authorization.v1.ResourceAttributes;
import io.fabric8.kubernetes.api.model.authorization.v1.SubjectAccessReview;
import io.fabric8.kubernetes.api.model.authorization.v1.SubjectAccessReviewSpec;
import io.fabric8.kubernetes.api.model.authorization.v1.SubjectAccessReviewStatusBuilder;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBinding;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBindingList;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.api.model.rbac.Role;
import io.fabric8.kubernetes.api.model.rbac.RoleBinding;
import io.fabric8.kubernetes.api.model.rbac.RoleBindingList;
import io.fabric8.kubernetes.api.model.rbac.RoleRef;
import io.fabric8.kubernetes.api.model.rbac.Subject;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * Answers TokenReview and SubjectAccessReview as a real API server does: a token is one the sandbox issued
 * ({@link io.camelkubeflow.trainer.sandbox.TrainerSandbox#issueToken}), and access is decided by evaluating the Roles, ClusterRoles and their bindings
 * the sandbox stores, as Kubernetes' RBAC authorizer does (rules of bound roles add up; nothing is denied explicitly;
 * members of {@code system:masters} may do anything; a non-resource URL such as {@code /metrics} is granted by a
 * ClusterRoleBinding's rule naming it in {@code nonResourceURLs}, exactly or as a prefix ending in {@code *}). So tests
 * make real decisions, from RBAC objects a cluster would hold.
 */
public final class AccessReviews {
    static final String TOKEN_REVIEWS = "/apis/authentication.k8s.io/v1/tokenreviews";
    static final String ACCESS_REVIEWS = "/apis/authorization.k8s.io/v1/subjectaccessreviews";
    private static final String RBAC = "/apis/rbac.authorization.k8s.io/v1";
    private static final SecureRandom RANDOM = new SecureRandom();

    private final Map<String, UserInfo> tokens = new ConcurrentHashMap<>();
    /** Reads a path of the sandbox's store in process: its JSON, or null when there is none. */
    private final Function<String, String> store;

    AccessReviews(Function<String, String> store) {
        this.store = store;
    }

    public String issueToken(String user, List<String> groups) {
        byte[] secret = new byte[24];
        RANDOM.nextBytes(secret);
        String token = "sandbox-" + HexFormat.of().formatHex(secret);
        tokens.put(
                token,
                new UserInfoBuilder().withUsername(user).withGroups(groups).build());
        return token;
    }

    /** Whether the sandbox issued this token (its authenticator's whole decision). */
    public boolean isIssued(String token) {
        return tokens.containsKey(token);
    }

    /** The answer to a review request, or null for any other request. */
    MockResponse answer(RecordedRequest request, String body) {
        String path = request.getPath().contains("?")
                ? request.getPath().substring(0, request.getPath().indexOf('?'))
                : request.getPath();
        if (TOKEN_REVIEWS.equals(path)) {
            TokenReview review = Serialization.unmarshal(body, TokenReview.class);
            UserInfo user = review.getSpec() == null
                    ? null
                    : tokens.get(review.getSpec().getToken());
            review.setStatus(new TokenReviewStatusBuilder()
                    .withAuthenticated(user != null)
                    .withUser(user)
                    .withError(user == null ? "invalid bearer token" : null)
                    .build());
            return created(review);
        }
        if (ACCESS_REVIEWS.equals(path)) {
            SubjectAccessReview review = Serialization.unmarshal(body, SubjectAccessReview.class);
            String grantedBy = grantedBy(review.getSpec());
            review.setStatus(new SubjectAccessReviewStatusBuilder()
                    .withAllowed(grantedBy != null)
                    .withReason(grantedBy != null ? "RBAC: allowed by " + grantedBy : null)
                    .build());
            return created(review);
        }
        return null;
    }

    static boolean isReview(String path) {
        return path.startsWith(TOKEN_REVIEWS) || path.startsWith(ACCESS_REVIEWS);
    }

    private static MockResponse created(Object review) {
        return new MockResponse().setResponseCode(201).setBody(Serialization.asJson(review));
    }

    /** The binding that grants the access asked about, or null when none does. */
    private String grantedBy(SubjectAccessReviewSpec spec) {
        ResourceAttributes asked = spec == null ? null : spec.getResourceAttributes();
        NonResourceAttributes askedUrl = spec == null ? null : spec.getNonResourceAttributes();
        if (asked == null && askedUrl == null) {
            return null;
        }
        List<String> groups = spec.getGroups() == null ? List.of() : spec.getGroups();
        if (groups.contains("system:masters")) {
            return "group system:masters";
        }
        ClusterRoleBindingList clusterBindings = read(RBAC + "/clusterrolebindings", ClusterRoleBindingList.class);
        for (ClusterRoleBinding binding :
                clusterBindings == null ? List.<ClusterRoleBinding>of() : clusterBindings.getItems()) {
            if (binds(binding.getSubjects(), spec.getUser(), groups)
                    && (asked != null
                            ? allows(rules(null, binding.getRoleRef()), asked)
                            : allows(rules(null, binding.getRoleRef()), askedUrl))) {
                return "ClusterRoleBinding " + binding.getMetadata().getName();
            }
        }
        // a non-resource URL belongs to no namespace: only a ClusterRoleBinding grants it
        if (asked == null
                || asked.getNamespace() == null
                || asked.getNamespace().isEmpty()) {
            return null;
        }
        RoleBindingList bindings =
                read(RBAC + "/namespaces/" + asked.getNamespace() + "/rolebindings", RoleBindingList.class);
        for (RoleBinding binding : bindings == null ? List.<RoleBinding>of() : bindings.getItems()) {
            if (binds(binding.getSubjects(), spec.getUser(), groups)
                    && allows(rules(asked.getNamespace(), binding.getRoleRef()), asked)) {
                return "RoleBinding " + asked.getNamespace() + "/"
                        + binding.getMetadata().getName();
            }
        }
        return null;
    }

    private static boolean binds(List<Subject> subjects, String user, List<String> groups) {
        for (Subject subject : subjects == null ? List.<Subject>of() : subjects) {
            boolean match = switch (subject.getKind()) {
                case "User" -> subject.getName().equals(user);
                case "Group" -> groups.contains(subject.getName());
                case "ServiceAccount" ->
                    ("system:serviceaccount:" + subject.getNamespace() + ":" + subject.getName()).equals(user);
                default -> false;
            };
            if (match) {
                return true;
            }
        }
        return false;
    }

    /** The rules of the role a binding refers to (a Role of the binding's namespace, or a ClusterRole). */
    private List<PolicyRule> rules(String namespace, RoleRef ref) {
        if ("ClusterRole".equals(ref.getKind())) {
            ClusterRole role = read(RBAC + "/clusterroles/" + ref.getName(), ClusterRole.class);
            return role == null || role.getRules() == null ? List.of() : role.getRules();
        }
        Role role = namespace == null
                ? null
                : read(RBAC + "/namespaces/" + namespace + "/roles/" + ref.getName(), Role.class);
        return role == null || role.getRules() == null ? List.of() : role.getRules();
    }

    private static boolean allows(List<PolicyRule> rules, ResourceAttributes asked) {
        String resource = asked.getResource()
                + (asked.getSubresource() == null || asked.getSubresource().isEmpty()
                        ? ""
                        : "/" + asked.getSubresource());
        for (PolicyRule rule : rules) {
            if (matches(rule.getApiGroups(), asked.getGroup() == null ? "" : asked.getGroup())
                    && matches(rule.getResources(), resource)
                    && matches(rule.getVerbs(), asked.getVerb())
                    && (rule.getResourceNames() == null
                            || rule.getResourceNames().isEmpty()
                            || rule.getResourceNames().contains(asked.getName()))) {
                return true;
            }
        }
        return false;
    }

    /** Whether a rule grants the verb on the URL: named in its nonResourceURLs, or under a prefix there ending in '*'. */
    private static boolean allows(List<PolicyRule> rules, NonResourceAttributes asked) {
        for (PolicyRule rule : rules) {
            if (matches(rule.getVerbs(), asked.getVerb())
                    && rule.getNonResourceURLs() != null
                    && rule.getNonResourceURLs().stream()
                            .anyMatch(url -> url.equals(asked.getPath())
                                    || url.endsWith("*")
                                            && asked.getPath() != null
                                            && asked.getPath().startsWith(url.substring(0, url.length() - 1)))) {
                return true;
            }
        }
        return false;
    }

    private static boolean matches(List<String> allowed, String value) {
        return allowed != null && (allowed.contains("*") || allowed.contains(value));
    }

    private <T> T read(String path, Class<T> type) {
        String json = store.apply(path);
        return json == null ? null : Serialization.unmarshal(json, type);
    }
}
