package io.camelkubeflow.trainer.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.camelkubeflow.trainer.KubeflowTrainerComponent;
import io.camelkubeflow.trainer.KubeflowTrainerConstants;
import io.camelkubeflow.trainer.access.AccessDeniedException;
import io.camelkubeflow.trainer.access.Caller;
import io.camelkubeflow.trainer.testing.Eventually;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.rbac.RoleBindingBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.apache.camel.CamelContext;
import org.apache.camel.Exchange;
import org.apache.camel.ProducerTemplate;
import org.apache.camel.impl.DefaultCamelContext;
import org.apache.camel.support.DefaultExchange;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The component as deploy/ installs it, under the real RBAC authorizer: its ServiceAccount, bound to deploy/'s Role
 * and ClusterRole, authenticated by a token the API server issued (TokenRequest) and checked by the API server
 * (TokenReview), does every operation a route needs and nothing beyond; with {@code authorizeCaller}, each caller is
 * held to their own rights by real SubjectAccessReviews.
 */
class RbacIT {
    private static RealCluster cluster;
    private static KubernetesClient asDeployed;
    private static CamelContext camel;
    private static ProducerTemplate template;

    @TempDir
    static Path project;

    @BeforeAll
    static void start() throws Exception {
        cluster = RealCluster.start(RbacIT.class);
        String token = cluster.installDeployedAccount();
        Config admin = cluster.admin.getConfiguration();
        asDeployed = new KubernetesClientBuilder()
                .withConfig(new ConfigBuilder(Config.empty())
                        .withMasterUrl(admin.getMasterUrl())
                        .withCaCertData(admin.getCaCertData())
                        .withOauthToken(token)
                        .withNamespace(cluster.namespace)
                        .build())
                .build();
        camel = new DefaultCamelContext();
        KubeflowTrainerComponent component = camel.getComponent("kubeflow-trainer", KubeflowTrainerComponent.class);
        component.setKubernetesClient(asDeployed);
        // every decision asked afresh, so a right granted mid-test counts at once (the default keeps answers 10 s)
        component.setAccessReviewCacheTtl(0);
        camel.start();
        template = camel.createProducerTemplate();
        Files.writeString(project.resolve("train.py"), "print('trained as deployed')\n");
    }

    @AfterAll
    static void stop() {
        camel.stop();
        asDeployed.close();
        cluster.close();
    }

    private static Exchange send(String uri, Exchange from, Caller caller) {
        Exchange exchange = from == null ? new DefaultExchange(camel) : from.copy();
        if (caller != null) {
            exchange.setProperty(KubeflowTrainerConstants.CALLER_PROPERTY, caller);
        }
        return template.send(uri, exchange);
    }

    @Test
    @Timeout(240)
    void deploysRolesLetTheComponentDoEveryOperationOfARoute() {
        Exchange trained = send(
                "kubeflow-trainer:train?runtime=torch-distributed&numNodes=2&workspace=" + project
                        + "&pythonFile=train.py&namespace=" + cluster.namespace,
                null,
                null);
        assertNull(trained.getException());
        Exchange logs = send("kubeflow-trainer:logs?follow=true&logStep=all", trained, null);
        assertNull(logs.getException());
        assertEquals(
                2,
                logs.getMessage()
                        .getBody(String.class)
                        .lines()
                        .filter(l -> l.contains("trained as deployed"))
                        .count(),
                logs.getMessage().getBody(String.class));
        Exchange done = send("kubeflow-trainer:wait?waitFor=Complete&waitTimeout=120s", trained, null);
        assertEquals("Complete", done.getMessage().getHeader(KubeflowTrainerConstants.STATUS));
        Exchange events = send("kubeflow-trainer:events", trained, null);
        assertNull(events.getException());
        assertTrue(!events.getMessage().getBody(List.class).isEmpty(), "the job's events");
        for (String operation : List.of("get", "suspend", "resume", "delete")) {
            Exchange managed = send("kubeflow-trainer:" + operation, trained, null);
            assertNull(managed.getException(), operation);
        }
        Exchange runtimes = send("kubeflow-trainer:runtimes?namespace=" + cluster.namespace, null, null);
        assertNull(runtimes.getException());
        Exchange runtime =
                send("kubeflow-trainer:runtimes?runtime=torch-distributed&namespace=" + cluster.namespace, null, null);
        assertNull(runtime.getException());
        Exchange listed = send("kubeflow-trainer:list?namespace=" + cluster.namespace, null, null);
        assertNull(listed.getException());
    }

    @Test
    void theDeployedAccountCanDoNothingBeyondItsRoles() {
        KubernetesClientException denied = assertThrows(
                KubernetesClientException.class,
                () -> asDeployed.secrets().inNamespace(cluster.namespace).list());
        assertEquals(403, denied.getCode());
        denied = assertThrows(
                KubernetesClientException.class,
                () -> asDeployed
                        .configMaps()
                        .inNamespace("default")
                        .resource(new ConfigMapBuilder()
                                .withNewMetadata()
                                .withName("x")
                                .endMetadata()
                                .build())
                        .create());
        assertEquals(403, denied.getCode());
    }

    @Test
    @Timeout(120)
    void withAuthorizeCallerACallerActsOnlyWithinTheirOwnRights() throws Exception {
        Caller alice = new Caller("alice@example.com", List.of("data-science"));
        String train = "kubeflow-trainer:train?authorizeCaller=true&runtime=torch-distributed&command=python3 -c"
                + " \"print(1)\"&namespace=" + cluster.namespace;
        long mark = cluster.auditMark();
        Exchange refused = send(train, null, alice);
        AccessDeniedException denied = assertInstanceOf(AccessDeniedException.class, refused.getException());
        assertTrue(denied.getMessage().contains("alice@example.com"), denied.getMessage());
        String app = "system:serviceaccount:" + cluster.namespace + ":" + RealCluster.DEPLOYED_ACCOUNT;
        assertEquals(List.of(), cluster.writesSince(mark, app), "nothing is written for a caller who may not");

        // the group is given the rights in this namespace: the same request goes through
        cluster.admin
                .rbac()
                .roleBindings()
                .inNamespace(cluster.namespace)
                .resource(new RoleBindingBuilder()
                        .withNewMetadata()
                        .withName("data-science-edit")
                        .endMetadata()
                        .withNewRoleRef()
                        .withApiGroup("rbac.authorization.k8s.io")
                        .withKind("Role")
                        .withName(RealCluster.DEPLOYED_ACCOUNT)
                        .endRoleRef()
                        .addNewSubject()
                        .withKind("Group")
                        .withName("data-science")
                        .withApiGroup("rbac.authorization.k8s.io")
                        .endSubject()
                        .build())
                .create();
        // the API server's RBAC authorizer sees the new binding through its informer, a moment later
        Exchange[] allowed = new Exchange[1];
        Eventually.await(
                Duration.ofSeconds(10),
                () -> (allowed[0] = send(train, null, alice)).getException() == null,
                () -> String.valueOf(allowed[0].getException()));
        String created = "create trainjobs/" + allowed[0].getMessage().getHeader(KubeflowTrainerConstants.JOB_NAME)
                + " by " + app + " (201)";
        assertTrue(
                cluster.writesSince(mark, app).contains(created),
                "the audit log shows the app's writes: " + cluster.writesSince(mark, app));
        Exchange waited =
                send("kubeflow-trainer:wait?authorizeCaller=true&waitFor=Complete&waitTimeout=90s", allowed[0], alice);
        assertNull(waited.getException());

        // another caller of the same app, in no bound group, still may not read it
        Exchange other = send(
                "kubeflow-trainer:get?authorizeCaller=true",
                allowed[0],
                new Caller("mallory@example.com", List.of("interns")));
        assertInstanceOf(AccessDeniedException.class, other.getException());
    }
}
