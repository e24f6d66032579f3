package io.camelkubeflow.trainer;

import static io.camelkubeflow.trainer.KubeflowTrainerConstants.*;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.camelkubeflow.trainer.access.Access;
import io.camelkubeflow.trainer.access.AccessDeniedException;
import io.camelkubeflow.trainer.access.AccessReviewer;
import io.camelkubeflow.trainer.access.Caller;
import io.camelkubeflow.trainer.api.TrainJob;
import io.camelkubeflow.trainer.support.ApiRetry;
import io.camelkubeflow.trainer.support.InvalidOptionException;
import io.camelkubeflow.trainer.watch.StoredWorkloads;
import io.camelkubeflow.trainer.watch.TrainJobWaitTimeoutException;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBindingBuilder;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBuilder;
import io.fabric8.kubernetes.api.model.rbac.PolicyRuleBuilder;
import io.fabric8.kubernetes.api.model.rbac.RoleBindingBuilder;
import io.fabric8.kubernetes.api.model.rbac.RoleBuilder;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.camel.Exchange;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * authorizeCaller: every operation acts within the rights of the typed caller on its exchange (no header names one), as the API server's RBAC
 * (here the sandbox's, evaluating the Roles and bindings below) decides; a denial names the verb, resource and
 * namespace, and nothing is written.
 */
class CallerAccessTest extends TrainerRouteTestSupport {
    private static final String TRAIN =
            "kubeflow-trainer:train?authorizeCaller=true&runtime=torch-distributed" + "&namespace=acl&pythonFile=/a.py";

    @BeforeAll
    static void alicesRights() {
        api.client()
                .resource(new RoleBuilder()
                        .withNewMetadata()
                        .withName("trainer")
                        .withNamespace("acl")
                        .endMetadata()
                        .withRules(
                                new PolicyRuleBuilder()
                                        .withApiGroups("trainer.kubeflow.org")
                                        .withResources("trainjobs")
                                        .withVerbs("create", "get", "list", "delete", "patch")
                                        .build(),
                                new PolicyRuleBuilder()
                                        .withApiGroups("")
                                        .withResources("pods/log")
                                        .withVerbs("get")
                                        .build(),
                                new PolicyRuleBuilder()
                                        .withApiGroups("")
                                        .withResources("secrets")
                                        .withVerbs("get")
                                        .withResourceNames("hf-token")
                                        .build())
                        .build())
                .create();
        api.client()
                .resource(new RoleBindingBuilder()
                        .withNewMetadata()
                        .withName("alice")
                        .withNamespace("acl")
                        .endMetadata()
                        .addNewSubject()
                        .withKind("User")
                        .withName("alice")
                        .endSubject()
                        .withNewRoleRef()
                        .withApiGroup("rbac.authorization.k8s.io")
                        .withKind("Role")
                        .withName("trainer")
                        .endRoleRef()
                        .build())
                .create();
        // carol may read the pods' logs of the namespace, and nothing of its TrainJobs
        api.client()
                .resource(new RoleBuilder()
                        .withNewMetadata()
                        .withName("log-reader")
                        .withNamespace("acl")
                        .endMetadata()
                        .withRules(new PolicyRuleBuilder()
                                .withApiGroups("")
                                .withResources("pods/log")
                                .withVerbs("get")
                                .build())
                        .build())
                .create();
        api.client()
                .resource(new RoleBindingBuilder()
                        .withNewMetadata()
                        .withName("carol")
                        .withNamespace("acl")
                        .endMetadata()
                        .addNewSubject()
                        .withKind("User")
                        .withName("carol")
                        .endSubject()
                        .withNewRoleRef()
                        .withApiGroup("rbac.authorization.k8s.io")
                        .withKind("Role")
                        .withName("log-reader")
                        .endRoleRef()
                        .build())
                .create();
    }

    private static Exchange train(String extra, String user, Map<String, Object> headers) {
        return as(user == null ? null : new Caller(user, List.of()), TRAIN + extra, headers);
    }

    /** A message with these headers sent to {@code uri} on behalf of {@code caller} (null: none). */
    private static Exchange as(Caller caller, String uri, Map<String, Object> headers) {
        api.mark();
        return template.send(uri, exchange -> {
            exchange.getMessage().setHeaders(new HashMap<>(headers));
            if (caller != null) {
                exchange.setProperty(CALLER_PROPERTY, caller);
            }
        });
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
        assertEquals(
                "caller 'bob' may not create trainjobs.trainer.kubeflow.org in namespace acl", denied.getMessage());
    }

    @Test
    void aSecretTheCallerMayNotReadCannotBeHandedToThePods() {
        assertTrue(denied(train("&env.DB=secretKeyRef:db-credentials/password", "alice", Map.of()))
                .getMessage()
                .contains("may not get secrets 'db-credentials' in namespace acl"));
        // the same through a header, and a ConfigMap reference
        assertTrue(denied(train("", "alice", Map.of(ENV, Map.of("CFG", "configMapKeyRef:settings/x"))))
                .getMessage()
                .contains("may not get configmaps 'settings' in namespace acl"));
    }

    @Test
    void theVolumesAndPullSecretsOfThePodsAreReviewedAsTheCaller() {
        assertTrue(denied(train("&volumes=pvc:other-team:/data", "alice", Map.of()))
                .getMessage()
                .contains("may not get persistentvolumeclaims 'other-team' in namespace acl"));
        assertTrue(denied(train("", "alice", Map.of(VOLUMES, List.of("configMap:settings:/etc/settings"))))
                .getMessage()
                .contains("may not get configmaps 'settings' in namespace acl"));
        assertTrue(denied(train("&imagePullSecrets=registry-pull", "alice", Map.of()))
                .getMessage()
                .contains("may not get secrets 'registry-pull' in namespace acl"));
        assertNull(
                train("&volumes=secret:hf-token:/hf,emptyDir:scratch:/scratch", "alice", Map.of())
                        .getException(),
                "a Secret the caller may read, and an emptyDir, which names nothing");
    }

    @Test
    void anotherNamespaceIsOutOfTheCallersRights() {
        assertTrue(denied(train("", "alice", Map.of(NAMESPACE, "kube-system")))
                .getMessage()
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
            Exchange byBob = as(
                    new Caller("bob", List.of()),
                    "kubeflow-trainer:" + operation + "?authorizeCaller=true",
                    Map.of(JOB_NAME, "alices-job", NAMESPACE, "acl"));
            assertInstanceOf(AccessDeniedException.class, byBob.getException(), operation);
            assertEquals(List.of(), api.writesSinceMark(), operation + " by bob wrote");
        }
        Exchange byAlice = as(
                new Caller("alice", List.of()),
                "kubeflow-trainer:get?authorizeCaller=true",
                Map.of(JOB_NAME, "alices-job", NAMESPACE, "acl"));
        assertNull(byAlice.getException());
        assertEquals("alices-job", byAlice.getMessage().getHeader(JOB_NAME));
    }

    /** The log of a job is the job's: pods/log alone tells nothing, not even whether the job exists. */
    @Test
    void aCallerWhoMayOnlyReadPodLogsIsRefusedTheSameForAJobThatExistsAndOneThatDoesNot() {
        assertNull(train("&jobName=alices-logged-job", "alice", Map.of()).getException());
        List<String> refusals = new ArrayList<>();
        for (String name : List.of("alices-logged-job", "no-such-job")) {
            Exchange byCarol = as(
                    new Caller("carol", List.of()),
                    "kubeflow-trainer:logs?authorizeCaller=true",
                    Map.of(JOB_NAME, name, NAMESPACE, "acl"));
            refusals.add(denied(byCarol).getMessage().replace(name, "<name>"));
            assertTrue(
                    api.requestsSinceMark().stream()
                            .noneMatch(r -> r.getPath().contains("/trainjobs/" + name)
                                    || r.getPath().contains("/pods")),
                    "looked the job or its pods up for carol");
        }
        assertEquals(
                "caller 'carol' may not get trainjobs.trainer.kubeflow.org '<name>' in namespace acl", refusals.get(0));
        assertEquals(refusals.get(0), refusals.get(1));
    }

    @Test
    void aCallerWithTheRightsGetsListsWaitsReadsLogsSuspendsResumesAndDeletes() {
        Caller alice = new Caller("alice", List.of());
        Exchange trained = train("&jobName=alices-positive-control", "alice", Map.of());
        assertNull(trained.getException());
        Map<String, Object> job = Map.of(JOB_NAME, "alices-positive-control", NAMESPACE, "acl");
        for (String operation : List.of("get", "wait?waitTimeout=60s", "logs", "suspend", "resume", "delete")) {
            Exchange done = as(
                    alice,
                    "kubeflow-trainer:" + operation + (operation.contains("?") ? "&" : "?") + "authorizeCaller=true",
                    job);
            assertNull(done.getException(), operation);
        }
        Exchange listed = as(alice, "kubeflow-trainer:list?authorizeCaller=true&namespace=acl", Map.of());
        assertNull(listed.getException());
    }

    /**
     * What Kueue says of a job is told only to a caller who may list the namespace's Workloads (as get and list tell
     * it): alice may get the job but not its Workload, so a wait of hers that times out says the job's own status.
     */
    @Test
    void aWaitThatTimesOutTellsKueuesWordOnlyToACallerWhoMayReadWorkloads() {
        StoredWorkloads.serveWorkloads(api.client());
        Exchange trained = train("&jobName=alices-queued&queue=team&suspend=true", "alice", Map.of());
        assertNull(trained.getException());
        StoredWorkloads workloads = new StoredWorkloads(api.client(), "acl");
        workloads.conditions(
                workloads.createFor(trainJob(trained), "team"),
                "QuotaReserved,False,Pending,insufficient unused quota for cpu");
        Map<String, Object> job = Map.of(JOB_NAME, "alices-queued", NAMESPACE, "acl");
        Exchange hers = as(
                new Caller("alice", List.of()),
                "kubeflow-trainer:wait?authorizeCaller=true" + "&waitTimeout=300ms",
                job);
        TrainJobWaitTimeoutException timedOut =
                assertInstanceOf(TrainJobWaitTimeoutException.class, hers.getException());
        assertTrue(
                !timedOut.getMessage().contains("Pending")
                        && !timedOut.getMessage().contains("quota"),
                timedOut.getMessage());
        assertTrue(!"Queued".equals(hers.getMessage().getHeader(STATUS)), "its own status, not Kueue's");
        // the app itself (no caller) is told
        Exchange apps = template.send(
                "kubeflow-trainer:wait?waitTimeout=300ms", e -> e.getMessage().setHeaders(new HashMap<>(job)));
        assertTrue(
                apps.getException().getMessage().contains("last seen Queued: Pending: insufficient unused quota"),
                apps.getException().getMessage());
    }

    @Test
    void noHeaderOfAnyNameOrCaseNamesACaller() {
        // the headers that named the caller before the caller became a typed exchange property, in any case
        for (Map<String, Object> headers : List.<Map<String, Object>>of(
                Map.of("CamelKubeflowTrainerCallerUser", "alice"),
                Map.of("camelkubeflowtrainercalleruser", "alice", "camelkubeflowtrainercallergroups", "system:masters"),
                Map.of(CALLER_PROPERTY, new Caller("alice", List.of("system:masters"))))) {
            Exchange refused = as(null, TRAIN, headers);
            assertTrue(denied(refused).getMessage().startsWith("no caller identity given"), headers.toString());
            assertTrue(api.requestsSinceMark().isEmpty(), "refused before any request, even a review");
        }
    }

    @Test
    void aPropertyThatIsNotATypedCallerIsNoCaller() {
        api.mark();
        Exchange refused = template.send(TRAIN, exchange -> exchange.setProperty(CALLER_PROPERTY, "alice"));
        assertTrue(denied(refused).getMessage().startsWith("no caller identity given"));
    }

    @Test
    void aGroupWhoseNameHoldsACommaIsOneGroupNotTwo() {
        // eve's one group is named "dev,system:masters": split on commas, it would make her a cluster admin
        Exchange refused = as(new Caller("eve", List.of("dev,system:masters")), TRAIN, Map.of());
        assertEquals(
                "caller 'eve' (groups [dev,system:masters]) may not create trainjobs.trainer.kubeflow.org in"
                        + " namespace acl",
                denied(refused).getMessage());
        // the control: the group itself, as one element, is a cluster admin
        assertNull(as(new Caller("eve", List.of("system:masters")), TRAIN, Map.of())
                .getException());
    }

    @Test
    void aNameThatIsNoTrainJobNameIsRefusedBeforeAnyRequest() {
        String traversal = "../../../../api/v1/namespaces/acl/secrets/db-credentials";
        for (String operation : List.of("get", "delete", "suspend", "resume", "logs", "wait")) {
            for (Map<String, Object> headers : List.<Map<String, Object>>of(
                    Map.of(JOB_NAME, traversal, NAMESPACE, "acl"),
                    Map.of(JOB_NAME, "alices-job", NAMESPACE, "acl/secrets"),
                    Map.of(JOB_NAME, "a".repeat(64)))) {
                Exchange refused = as(
                        new Caller("alice", List.of()),
                        "kubeflow-trainer:" + operation + "?authorizeCaller=true",
                        headers);
                InvalidOptionException invalid = assertInstanceOf(
                        InvalidOptionException.class, refused.getException(), operation + " " + headers);
                String wrongField =
                        "acl".equals(headers.get(NAMESPACE)) || !headers.containsKey(NAMESPACE) ? JOB_NAME : NAMESPACE;
                assertEquals(wrongField, invalid.getField(), operation + " " + headers);
                assertEquals(List.of(), api.requestsSinceMark(), operation + " sent a request for " + headers);
            }
        }
    }

    @Test
    void aCallerWithoutRightsLearnsNotWhetherARuntimeExists() {
        AccessDeniedException denied = denied(
                as(new Caller("bob", List.of()), TRAIN.replace("torch-distributed", "no-such-runtime"), Map.of()));
        assertEquals(
                "caller 'bob' may not create trainjobs.trainer.kubeflow.org in namespace acl", denied.getMessage());
        assertTrue(
                api.requestsSinceMark().stream().noneMatch(r -> r.getPath().contains("runtime")),
                "the runtime was looked up for a caller who may not create: " + api.requestsSinceMark());
    }

    @Test
    void aChosenNameOfTheShapeKeysAreGivenIsRefused() {
        // alice must not take the name bob's idempotency key will make (trainjob- and 12 hex digits of its hash)
        Exchange refused = train("&jobName=trainjob-0123456789ab", "alice", Map.of());
        assertEquals(
                "jobName",
                assertInstanceOf(InvalidOptionException.class, refused.getException())
                        .getField());
        assertEquals(List.of(), api.writesSinceMark());
        assertNull(
                train("&jobName=trainjob-0123456789ab-mine", "alice", Map.of()).getException());
    }

    @Test
    void aRepeatedReviewIsAnsweredFromTheKeptAnswerAndAnotherCallersIsNot() {
        Caller carol = new Caller("carol", List.of("readers"));
        as(carol, "kubeflow-trainer:list?authorizeCaller=true&namespace=acl", Map.of());
        Exchange again = as(carol, "kubeflow-trainer:list?authorizeCaller=true&namespace=acl", Map.of());
        assertInstanceOf(AccessDeniedException.class, again.getException(), "a kept denial is still a denial");
        assertTrue(
                api.requestsSinceMark().stream().noneMatch(r -> r.getPath().contains("subjectaccessreviews")),
                "the same caller and access were reviewed twice within the component's accessReviewCacheTtl");
        // the same user with other groups is another caller: asked afresh
        as(
                new Caller("carol", List.of("readers", "ml")),
                "kubeflow-trainer:list?authorizeCaller=true&namespace=acl",
                Map.of());
        assertEquals(
                1,
                api.requestsSinceMark().stream()
                        .filter(r -> r.getPath().contains("subjectaccessreviews"))
                        .count());
    }

    /**
     * A non-resource URL is asked about as one (RBAC grants it by a ClusterRole's nonResourceURLs), through the same
     * reviewer and kept answers as the resources, and neither right stands for the other.
     */
    @Test
    void aNonResourceUrlIsReviewedAsOneAndItsRightIsNoneOfTheResources() {
        api.client()
                .resource(new ClusterRoleBuilder()
                        .withNewMetadata()
                        .withName("metrics-reader")
                        .endMetadata()
                        .addNewRule()
                        .withNonResourceURLs("/metrics")
                        .withVerbs("get")
                        .endRule()
                        .build())
                .createOr(r -> r.update());
        api.client()
                .resource(new ClusterRoleBindingBuilder()
                        .withNewMetadata()
                        .withName("scraper")
                        .endMetadata()
                        .addNewSubject()
                        .withKind("User")
                        .withName("scraper")
                        .endSubject()
                        .withNewRoleRef()
                        .withApiGroup("rbac.authorization.k8s.io")
                        .withKind("ClusterRole")
                        .withName("metrics-reader")
                        .endRoleRef()
                        .build())
                .createOr(r -> r.update());
        AccessReviewer reviewer = camel.getComponent("kubeflow-trainer", KubeflowTrainerComponent.class)
                .accessReviewerFor(api.client(), ApiRetry.DEFAULT);
        Access metrics = Access.nonResourceUrl("get", "/metrics");
        Caller alice = new Caller("alice", List.of());

        reviewer.check(new Caller("scraper", List.of()), metrics);
        reviewer.check(alice, Access.trainJobs("get", "acl", null));
        AccessDeniedException denied = assertThrows(
                AccessDeniedException.class,
                () -> reviewer.check(alice, metrics),
                "alice's rights on TrainJobs are no right to the metrics");
        assertEquals("caller 'alice' may not get /metrics", denied.getMessage());
        assertThrows(
                AccessDeniedException.class,
                () -> reviewer.check(new Caller("scraper", List.of()), Access.trainJobs("get", "acl", null)),
                "the right to the metrics is none to TrainJobs");
    }

    @Test
    void withoutAuthorizeCallerTheCallerChangesNothing() {
        Exchange trained = as(
                new Caller("bob", List.of()),
                "kubeflow-trainer:train?runtime=torch-distributed" + "&namespace=acl&pythonFile=/a.py",
                Map.of(IDEMPOTENCY_KEY, "unchecked"));
        assertNull(trained.getException());
        assertTrue(api.requestsSinceMark().stream().noneMatch(r -> r.getPath().contains("subjectaccessreviews")));
    }
}
