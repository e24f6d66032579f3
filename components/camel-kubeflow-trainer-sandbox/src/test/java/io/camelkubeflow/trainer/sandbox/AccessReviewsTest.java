package io.camelkubeflow.trainer.sandbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.authentication.TokenReview;
import io.fabric8.kubernetes.api.model.authentication.TokenReviewBuilder;
import io.fabric8.kubernetes.api.model.authorization.v1.SubjectAccessReview;
import io.fabric8.kubernetes.api.model.authorization.v1.SubjectAccessReviewBuilder;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBindingBuilder;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBuilder;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.api.model.rbac.PolicyRuleBuilder;
import io.fabric8.kubernetes.api.model.rbac.RoleBindingBuilder;
import io.fabric8.kubernetes.api.model.rbac.RoleBuilder;
import io.fabric8.kubernetes.api.model.rbac.RoleRef;
import io.fabric8.kubernetes.api.model.rbac.RoleRefBuilder;
import io.fabric8.kubernetes.api.model.rbac.Subject;
import io.fabric8.kubernetes.api.model.rbac.SubjectBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** TokenReview and SubjectAccessReview answered as a cluster with RBAC answers them, from the RBAC objects stored. */
class AccessReviewsTest {
    static TrainerSandbox sandbox;
    static KubernetesClient client;

    @BeforeAll
    static void start() {
        sandbox = TrainerSandbox.start();
        sandbox.createNamespace("ml");
        client = sandbox.client();
        client.resource(role("Role", "trainer", "ml", "trainer.kubeflow.org", "trainjobs", "create"))
                .create();
        client.resource(binding("RoleBinding", "alice-trains", "ml", "Role", "trainer", "User", "alice", null))
                .create();
        client.resource(role("ClusterRole", "hf-token-reader", null, "", "secrets", "get", "hf-token"))
                .create();
        client.resource(binding(
                        "ClusterRoleBinding",
                        "readers",
                        null,
                        "ClusterRole",
                        "hf-token-reader",
                        "Group",
                        "readers",
                        null))
                .create();
        client.resource(binding(
                        "RoleBinding", "pipeline-trains", "ml", "Role", "trainer", "ServiceAccount", "pipeline", "ml"))
                .create();
    }

    @AfterAll
    static void stop() {
        sandbox.close();
    }

    @Test
    void aTokenTheSandboxIssuedIsReviewedAsItsUser() {
        String token = sandbox.issueToken("alice", "team-a");
        TokenReview known = client.authentication()
                .v1()
                .tokenReviews()
                .create(new TokenReviewBuilder()
                        .withNewSpec()
                        .withToken(token)
                        .endSpec()
                        .build());
        assertTrue(known.getStatus().getAuthenticated());
        assertEquals("alice", known.getStatus().getUser().getUsername());
        assertEquals(List.of("team-a"), known.getStatus().getUser().getGroups());
        TokenReview unknown = client.authentication()
                .v1()
                .tokenReviews()
                .create(new TokenReviewBuilder()
                        .withNewSpec()
                        .withToken("forged")
                        .endSpec()
                        .build());
        assertFalse(unknown.getStatus().getAuthenticated());
    }

    @Test
    void accessIsWhatTheBoundRolesGrant() {
        assertTrue(allowed("alice", null, "create", "trainer.kubeflow.org", "trainjobs", "ml", null));
        assertFalse(
                allowed("alice", null, "create", "trainer.kubeflow.org", "trainjobs", "kube-system", null),
                "a RoleBinding grants in its namespace only");
        assertFalse(allowed("alice", null, "delete", "trainer.kubeflow.org", "trainjobs", "ml", null));
        assertFalse(allowed("bob", null, "create", "trainer.kubeflow.org", "trainjobs", "ml", null));
        assertTrue(allowed("bob", "readers", "get", "", "secrets", "ml", "hf-token"));
        assertFalse(
                allowed("bob", "readers", "get", "", "secrets", "ml", "db-credentials"),
                "resourceNames limit the rule");
        assertTrue(allowed(
                "system:serviceaccount:ml:pipeline", null, "create", "trainer.kubeflow.org", "trainjobs", "ml", null));
        assertTrue(allowed("root", "system:masters", "delete", "", "namespaces", null, "kube-system"));
    }

    @Test
    void aNonResourceUrlIsWhatAClusterRoleBindingsRulesNameOfIt() {
        client.resource(new ClusterRoleBuilder()
                        .withNewMetadata()
                        .withName("metrics-reader")
                        .endMetadata()
                        .addNewRule()
                        .withNonResourceURLs("/metrics")
                        .withVerbs("get")
                        .endRule()
                        .build())
                .create();
        client.resource(binding(
                        "ClusterRoleBinding",
                        "prometheus-metrics",
                        null,
                        "ClusterRole",
                        "metrics-reader",
                        "ServiceAccount",
                        "prometheus",
                        "monitoring"))
                .create();
        client.resource(binding(
                        "RoleBinding", "dave-metrics", "ml", "ClusterRole", "metrics-reader", "User", "dave", null))
                .create();
        client.resource(new ClusterRoleBuilder()
                        .withNewMetadata()
                        .withName("debugger")
                        .endMetadata()
                        .addNewRule()
                        .withNonResourceURLs("/debug/*")
                        .withVerbs("get")
                        .endRule()
                        .build())
                .create();
        client.resource(binding(
                        "ClusterRoleBinding", "erin-debugs", null, "ClusterRole", "debugger", "User", "erin", null))
                .create();
        String prometheus = "system:serviceaccount:monitoring:prometheus";

        assertTrue(allowedUrl(prometheus, null, "get", "/metrics"));
        assertFalse(allowedUrl(prometheus, null, "post", "/metrics"), "the verb is part of the rule");
        assertFalse(allowedUrl(prometheus, null, "get", "/metrics/extra"), "a URL without '*' is exact");
        assertFalse(allowedUrl("dave", null, "get", "/metrics"), "a RoleBinding grants no non-resource URL");
        assertFalse(allowedUrl("alice", null, "get", "/metrics"), "rights on resources grant no URL");
        assertFalse(allowedUrl("bob", "readers", "get", "/metrics"));
        assertTrue(allowedUrl("erin", null, "get", "/debug/pprof"), "a URL ending in '*' is a prefix");
        assertFalse(allowedUrl("erin", null, "get", "/metrics"));
        assertTrue(allowedUrl("root", "system:masters", "get", "/metrics"));
        assertFalse(allowed(prometheus, null, "get", "", "pods", "ml", null), "a URL rule grants no resource");
    }

    private static boolean allowedUrl(String user, String group, String verb, String path) {
        SubjectAccessReview review = client.authorization()
                .v1()
                .subjectAccessReview()
                .create(new SubjectAccessReviewBuilder()
                        .withNewSpec()
                        .withUser(user)
                        .withGroups(group == null ? List.of() : List.of(group))
                        .withNewNonResourceAttributes()
                        .withVerb(verb)
                        .withPath(path)
                        .endNonResourceAttributes()
                        .endSpec()
                        .build());
        return review.getStatus().getAllowed();
    }

    private static boolean allowed(
            String user, String group, String verb, String apiGroup, String resource, String namespace, String name) {
        SubjectAccessReview review = client.authorization()
                .v1()
                .subjectAccessReview()
                .create(new SubjectAccessReviewBuilder()
                        .withNewSpec()
                        .withUser(user)
                        .withGroups(group == null ? List.of() : List.of(group))
                        .withNewResourceAttributes()
                        .withVerb(verb)
                        .withGroup(apiGroup)
                        .withResource(resource)
                        .withNamespace(namespace)
                        .withName(name)
                        .endResourceAttributes()
                        .endSpec()
                        .build());
        return review.getStatus().getAllowed();
    }

    private static HasMetadata role(
            String kind,
            String name,
            String namespace,
            String apiGroup,
            String resource,
            String verb,
            String... resourceNames) {
        PolicyRule rule = new PolicyRuleBuilder()
                .withApiGroups(apiGroup)
                .withResources(resource)
                .withVerbs(verb)
                .withResourceNames(resourceNames)
                .build();
        return "Role".equals(kind)
                ? new RoleBuilder()
                        .withNewMetadata()
                        .withName(name)
                        .withNamespace(namespace)
                        .endMetadata()
                        .withRules(rule)
                        .build()
                : new ClusterRoleBuilder()
                        .withNewMetadata()
                        .withName(name)
                        .endMetadata()
                        .withRules(rule)
                        .build();
    }

    private static HasMetadata binding(
            String kind,
            String name,
            String namespace,
            String roleKind,
            String roleName,
            String subjectKind,
            String subjectName,
            String subjectNamespace) {
        Subject subject = new SubjectBuilder()
                .withKind(subjectKind)
                .withName(subjectName)
                .withNamespace(subjectNamespace)
                .build();
        RoleRef ref = new RoleRefBuilder()
                .withApiGroup("rbac.authorization.k8s.io")
                .withKind(roleKind)
                .withName(roleName)
                .build();
        return "RoleBinding".equals(kind)
                ? new RoleBindingBuilder()
                        .withNewMetadata()
                        .withName(name)
                        .withNamespace(namespace)
                        .endMetadata()
                        .withSubjects(subject)
                        .withRoleRef(ref)
                        .build()
                : new ClusterRoleBindingBuilder()
                        .withNewMetadata()
                        .withName(name)
                        .endMetadata()
                        .withSubjects(subject)
                        .withRoleRef(ref)
                        .build();
    }
}
