package io.camelkubeflow.trainer;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

import io.camelkubeflow.trainer.access.AccessDeniedException;
import io.camelkubeflow.trainer.api.TrainJob;
import io.fabric8.kubernetes.api.model.rbac.PolicyRuleBuilder;
import io.fabric8.kubernetes.api.model.rbac.RoleBindingBuilder;
import io.fabric8.kubernetes.api.model.rbac.RoleBuilder;
import org.apache.camel.Exchange;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static io.camelkubeflow.trainer.KubeflowTrainerConstants.*;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * authorizeCaller: every operation acts within the rights of the caller its headers name, as the API server's RBAC
 * (here the sandbox's, evaluating the Roles and bindings below) decides; a denial names the verb, resource and
 * namespace, and nothing is written.
 */
class CallerAccessTest extends TrainerRouteTestSupport {
    private static final String TRAIN = "kubeflow-trainer:train?authorizeCaller=true&runtime=torch-distributed"
            + "&namespace=acl&pythonFile=/a.py";

    @BeforeAll
    static void alicesRights() {
        api.client().resource(new RoleBuilder().withNewMetadata().withName("trainer").withNamespace("acl").endMetadata()
                .withRules(new PolicyRuleBuilder().withApiGroups("trainer.kubeflow.org").withResources("trainjobs")
                                .withVerbs("create", "get", "list", "delete", "patch").build(),
                        new PolicyRuleBuilder().withApiGroups("").withResources("pods/log").withVerbs("get").build(),
                        new PolicyRuleBuilder().withApiGroups("").withResources("secrets").withVerbs("get")
                                .withResourceNames("hf-token").build())
                .build()).create();
        api.client().resource(new RoleBindingBuilder().withNewMetadata().withName("alice").withNamespace("acl")
                .endMetadata().addNewSubject().withKind("User").withName("alice").endSubject()
                .withNewRoleRef().withApiGroup("rbac.authorization.k8s.io").withKind("Role").withName("trainer")
                .endRoleRef().build()).create();
    }

    private static Exchange train(String extra, String user, Map<String, Object> headers) {
        Map<String, Object> all = new HashMap<>(headers);
        if (user != null) {
            all.put(CALLER_USER, user);
        }
        return send(TRAIN + extra, null, all);
    }

    private static AccessDeniedException denied(Exchange exchange) {
        AccessDeniedException denied = assertInstanceOf(AccessDeniedException.class, exchange.getException());
        assertEquals(List.of(), api.writesSinceMark(), "a denied request must not write anything");
        return denied;
    }

    @Test
    void aCallerWithTheRightsTrainsWithTheSecretsItMayRead() {
        Exchange trained = train("&env.HF_TOKEN=secretKeyRef:hf-token/token", "alice", Map.of());
        assertNull(trained.getException());
        TrainJob job = trainJob(trained);
        assertEquals("acl", job.getMetadata().getNamespace());
        assertTrue(api.requestsSinceMark().stream().anyMatch(r -> r.getPath().contains("subjectaccessreviews")));
    }

    @Test
    void aCallerWithoutCreateIsRefusedNamingTheVerbResourceAndNamespace() {
        AccessDeniedException denied = denied(train("", "bob", Map.of()));
        assertEquals("caller 'bob' may not create trainjobs.trainer.kubeflow.org in namespace acl", denied.getMessage());
    }

    @Test
    void aSecretTheCallerMayNotReadCannotBeHandedToThePods() {
        assertTrue(denied(train("&env.DB=secretKeyRef:db-credentials/password", "alice", Map.of())).getMessage()
                .contains("may not get secrets 'db-credentials' in namespace acl"));
        // the same through a header, and a ConfigMap reference
        assertTrue(denied(train("", "alice", Map.of(ENV, Map.of("CFG", "configMapKeyRef:settings/x")))).getMessage()
                .contains("may not get configmaps 'settings' in namespace acl"));
    }

    @Test
    void anotherNamespaceIsOutOfTheCallersRights() {
        assertTrue(denied(train("", "alice", Map.of(NAMESPACE, "kube-system"))).getMessage()
                .contains("may not create trainjobs.trainer.kubeflow.org in namespace kube-system"));
    }

    @Test
    void aMessageWithoutACallerIsRefused() {
        assertTrue(denied(train("", null, Map.of())).getMessage().startsWith("no caller identity given"));
    }

    @Test
    void readsAndDeletesAreCheckedAsTheCallerToo() {
        Exchange trained = train("&jobName=alices-job", "alice", Map.of());
        assertNull(trained.getException());
        for (String operation : List.of("get", "delete", "suspend", "logs", "wait")) {
            api.mark();
            Exchange byBob = template.send("kubeflow-trainer:" + operation + "?authorizeCaller=true", e -> {
                e.getMessage().setHeader(JOB_NAME, "alices-job");
                e.getMessage().setHeader(NAMESPACE, "acl");
                e.getMessage().setHeader(CALLER_USER, "bob");
            });
            assertInstanceOf(AccessDeniedException.class, byBob.getException(), operation);
            assertEquals(List.of(), api.writesSinceMark(), operation + " by bob wrote");
        }
        Exchange byAlice = template.send("kubeflow-trainer:get?authorizeCaller=true", e -> {
            e.getMessage().setHeader(JOB_NAME, "alices-job");
            e.getMessage().setHeader(NAMESPACE, "acl");
            e.getMessage().setHeader(CALLER_USER, "alice");
        });
        assertNull(byAlice.getException());
        assertEquals("alices-job", byAlice.getMessage().getHeader(JOB_NAME));
    }

    @Test
    void withoutAuthorizeCallerTheCallerHeadersChangeNothing() {
        Exchange trained = send("kubeflow-trainer:train?runtime=torch-distributed&namespace=acl&pythonFile=/a.py",
                null, Map.of(CALLER_USER, "bob", IDEMPOTENCY_KEY, "unchecked"));
        assertNull(trained.getException());
        assertTrue(api.requestsSinceMark().stream().noneMatch(r -> r.getPath().contains("subjectaccessreviews")));
    }
}
