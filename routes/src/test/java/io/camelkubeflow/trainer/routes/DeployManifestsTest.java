package io.camelkubeflow.trainer.routes;

import static io.camelkubeflow.trainer.routes.HttpRoutesTest.JSON;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.introspect.Annotated;
import com.fasterxml.jackson.databind.introspect.JacksonAnnotationIntrospector;
import io.camelkubeflow.trainer.testing.BoundedProcess;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.HTTPGetAction;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceAccount;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBinding;
import io.fabric8.kubernetes.api.model.rbac.Role;
import io.fabric8.kubernetes.api.model.rbac.RoleBinding;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * deploy/ as kubectl renders it ({@code kubectl kustomize}, the same as {@code kubectl apply -k} sends): every object
 * read strictly into its Kubernetes model type (a misspelt or misplaced field fails, naming it), the pod under the
 * restricted Pod Security Standard, its probes on the app's health endpoints, the NetworkPolicy on its pods; and
 * deploy/monitoring (the ServiceMonitor with its token, the metrics reader's ClusterRole and binding, the Grafana
 * dashboard's ConfigMap).
 */
class DeployManifestsTest {
    private static final Map<String, Class<? extends HasMetadata>> KINDS = Map.of(
            "ServiceAccount",
            ServiceAccount.class,
            "Role",
            Role.class,
            "ClusterRole",
            ClusterRole.class,
            "RoleBinding",
            RoleBinding.class,
            "ClusterRoleBinding",
            ClusterRoleBinding.class,
            "ConfigMap",
            ConfigMap.class,
            "Service",
            Service.class,
            "Deployment",
            Deployment.class,
            "NetworkPolicy",
            NetworkPolicy.class,
            "PodDisruptionBudget",
            PodDisruptionBudget.class);
    /** Fails on any field the Kubernetes type does not have, instead of keeping it aside as the models do. */
    private static final ObjectMapper STRICT = new ObjectMapper()
            .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .setAnnotationIntrospector(new JacksonAnnotationIntrospector() {
                @Override
                public Boolean hasAnySetter(Annotated annotated) {
                    return Boolean.FALSE;
                }
            });

    private static final Map<String, HasMetadata> OBJECTS = new LinkedHashMap<>();

    /**
     * deploy/monitoring: the ServiceMonitor (its fields as the Prometheus Operator's v1 API names them), the metrics
     * reader's RBAC and the dashboard.
     */
    private static final Map<String, Object> MONITORING = new LinkedHashMap<>();

    /**
     * The fields of monitoring.coreos.com/v1 ServiceMonitor that deploy/monitoring sets, read strictly (fabric8 has no
     * model of it without the OpenShift client): a misspelt or misplaced one fails.
     */
    record ServiceMonitor(String apiVersion, String kind, ObjectMeta metadata, ServiceMonitorSpec spec) {}

    record ServiceMonitorSpec(LabelSelector selector, List<ServiceMonitorEndpoint> endpoints) {}

    record ServiceMonitorEndpoint(String port, String path, String interval, String bearerTokenFile) {}

    /** Where a pod's own ServiceAccount token is mounted (the kubelet's projected volume). */
    private static final String SERVICE_ACCOUNT_TOKEN = "/var/run/secrets/kubernetes.io/serviceaccount/token";

    @BeforeAll
    static void render() throws Exception {
        List<String> violations = new ArrayList<>();
        for (String document : kustomize("../deploy")) {
            if (document.isBlank()) {
                continue;
            }
            Map<?, ?> object = Serialization.unmarshal(document, Map.class);
            String kind = String.valueOf(object.get("kind"));
            Class<? extends HasMetadata> type = KINDS.get(kind);
            if (type == null) {
                violations.add("a " + kind + " this test does not know; add its type to KINDS");
                continue;
            }
            try {
                HasMetadata typed = STRICT.convertValue(object, type);
                OBJECTS.put(kind + "/" + typed.getMetadata().getName(), typed);
            } catch (IllegalArgumentException e) {
                violations.add(kind + ": " + e.getMessage());
            }
        }
        for (String document : kustomize("../deploy/monitoring")) {
            Map<?, ?> object = Serialization.unmarshal(document, Map.class);
            try {
                if ("ServiceMonitor".equals(object.get("kind"))) {
                    ServiceMonitor monitor = STRICT.convertValue(object, ServiceMonitor.class);
                    MONITORING.put("ServiceMonitor/" + monitor.metadata().getName(), monitor);
                } else if (KINDS.containsKey(String.valueOf(object.get("kind")))) {
                    HasMetadata typed = STRICT.convertValue(object, KINDS.get(String.valueOf(object.get("kind"))));
                    MONITORING.put(typed.getKind() + "/" + typed.getMetadata().getName(), typed);
                } else {
                    violations.add("a monitoring " + object.get("kind") + " this test does not know");
                }
            } catch (IllegalArgumentException e) {
                violations.add("monitoring " + object.get("kind") + ": " + e.getMessage());
            }
        }
        assertEquals(List.of(), violations);
    }

    /** The documents kubectl renders of a kustomization, as {@code kubectl apply -k} sends them. */
    private static List<String> kustomize(String dir) throws Exception {
        BoundedProcess.Result kubectl =
                BoundedProcess.run(Duration.ofSeconds(60), List.of("kubectl", "kustomize", dir));
        assertEquals(0, kubectl.exitCode(), "kubectl kustomize " + dir + " failed:\n" + kubectl.printed());
        String rendered = kubectl.output();
        return List.of(rendered.split("(?m)^---$")).stream()
                .filter(document -> !document.isBlank())
                .toList();
    }

    /**
     * The ServiceMonitor scrapes the app's Service on its http port with the Prometheus's own ServiceAccount token,
     * and deploy/monitoring grants an account the one right the app asks of a scraper; no pod annotation invites a
     * scrape job of annotated pods (which would send its token to any pod annotated so).
     */
    @Test
    void prometheusScrapesTheAppsMetricsWithItsOwnTokenAllowedToReadThem() throws IOException {
        Container app =
                deployment().getSpec().getTemplate().getSpec().getContainers().get(0);
        Map<String, String> annotations =
                deployment().getSpec().getTemplate().getMetadata().getAnnotations();
        assertTrue(
                annotations == null || annotations.keySet().stream().noneMatch(k -> k.startsWith("prometheus.io/")),
                "scrape annotations: " + annotations);

        ServiceMonitor monitor = (ServiceMonitor) MONITORING.get("ServiceMonitor/camel-kubeflow-trainer");
        assertEquals("monitoring.coreos.com/v1", monitor.apiVersion());
        assertEquals("kubeflow-jobs", monitor.metadata().getNamespace(), "beside the Service it selects");
        Service service = (Service) OBJECTS.get("Service/camel-kubeflow-trainer");
        assertTrue(
                service.getMetadata()
                        .getLabels()
                        .entrySet()
                        .containsAll(monitor.spec().selector().getMatchLabels().entrySet()),
                "it selects no Service of the app");
        ServiceMonitorEndpoint endpoint = monitor.spec().endpoints().get(0);
        assertEquals(1, monitor.spec().endpoints().size());
        assertTrue(
                service.getSpec().getPorts().stream()
                        .anyMatch(port -> port.getName().equals(endpoint.port())
                                && port.getTargetPort()
                                        .getStrVal()
                                        .equals(app.getPorts().get(0).getName())),
                "the Service has no port " + endpoint.port() + " to the app's http port");
        assertEquals("/q/metrics", endpoint.path());
        assertEquals(SERVICE_ACCOUNT_TOKEN, endpoint.bearerTokenFile(), "the scrape carries no token");

        ClusterRole reader = (ClusterRole) MONITORING.get("ClusterRole/camel-kubeflow-trainer-metrics-reader");
        assertEquals(1, reader.getRules().size());
        assertEquals(
                List.of(HttpAuthentication.READ_METRICS.path()),
                reader.getRules().get(0).getNonResourceURLs());
        assertEquals(
                List.of(HttpAuthentication.READ_METRICS.verb()),
                reader.getRules().get(0).getVerbs());
        ClusterRoleBinding binding =
                (ClusterRoleBinding) MONITORING.get("ClusterRoleBinding/camel-kubeflow-trainer-metrics-reader");
        assertEquals("ClusterRole", binding.getRoleRef().getKind());
        assertEquals(reader.getMetadata().getName(), binding.getRoleRef().getName());
        assertEquals(
                List.of("ServiceAccount"),
                binding.getSubjects().stream().map(s -> s.getKind()).toList());
        assertEquals("monitoring", binding.getSubjects().get(0).getNamespace(), "kustomize moved Prometheus's account");

        ConfigMap dashboard = (ConfigMap) MONITORING.get("ConfigMap/camel-kubeflow-trainer-dashboard");
        assertEquals("1", dashboard.getMetadata().getLabels().get("grafana_dashboard"), "Grafana's sidecar label");
        String json = Files.readString(Path.of("../deploy/monitoring/grafana-dashboard.json"));
        assertEquals(json, dashboard.getData().get("grafana-dashboard.json"));
        assertEquals("camel-kubeflow-trainer", JSON.readTree(json).path("uid").asText());
    }

    private static Deployment deployment() {
        return (Deployment) OBJECTS.get("Deployment/camel-kubeflow-trainer");
    }

    @Test
    void everyObjectIsInTheNamespaceKustomizeSetsOrClusterWide() {
        Set<String> clusterWide = Set.of("ClusterRole", "ClusterRoleBinding");
        OBJECTS.forEach((name, object) -> assertEquals(
                clusterWide.contains(object.getKind()) ? null : "kubeflow-jobs",
                object.getMetadata().getNamespace(),
                name));
        assertTrue(
                OBJECTS.keySet()
                        .containsAll(List.of(
                                "Deployment/camel-kubeflow-trainer",
                                "NetworkPolicy/camel-kubeflow-trainer",
                                "Service/camel-kubeflow-trainer")),
                OBJECTS.keySet().toString());
    }

    @Test
    void thePodMeetsTheRestrictedPodSecurityStandard() {
        PodSpec pod = deployment().getSpec().getTemplate().getSpec();
        assertEquals(true, pod.getSecurityContext().getRunAsNonRoot());
        assertEquals(
                "RuntimeDefault", pod.getSecurityContext().getSeccompProfile().getType());
        for (Container container : pod.getContainers()) {
            var security = container.getSecurityContext();
            assertEquals(false, security.getAllowPrivilegeEscalation(), container.getName());
            assertEquals(List.of("ALL"), security.getCapabilities().getDrop(), container.getName());
            assertEquals(true, security.getReadOnlyRootFilesystem(), container.getName());
            assertTrue(
                    security.getSeccompProfile() == null
                            || "RuntimeDefault"
                                    .equals(security.getSeccompProfile().getType()),
                    container.getName());
            assertEquals("IfNotPresent", container.getImagePullPolicy(), container.getName());
            assertTrue(
                    container.getResources().getRequests().containsKey("memory")
                            && container.getResources().getLimits().containsKey("memory"),
                    container.getName());
        }
    }

    @Test
    void theProbesAskTheAppsHealthEndpointsOnItsHttpPort() {
        Container app =
                deployment().getSpec().getTemplate().getSpec().getContainers().get(0);
        Map<String, HTTPGetAction> probes = Map.of(
                "startup",
                app.getStartupProbe().getHttpGet(),
                "liveness",
                app.getLivenessProbe().getHttpGet(),
                "readiness",
                app.getReadinessProbe().getHttpGet());
        assertEquals("/q/health/started", probes.get("startup").getPath());
        assertEquals("/q/health/live", probes.get("liveness").getPath());
        assertEquals("/q/health/ready", probes.get("readiness").getPath());
        probes.values().forEach(probe -> assertEquals("http", probe.getPort().getStrVal()));
        assertEquals("http", app.getPorts().get(0).getName());
        assertEquals(8080, app.getPorts().get(0).getContainerPort());
    }

    /** The app reviews callers' tokens (TokenReview) and their rights, the metrics' included (SubjectAccessReview). */
    @Test
    void theAppsAccountMayReviewTokensAndAccess() {
        ClusterRole role = (ClusterRole) OBJECTS.get("ClusterRole/camel-kubeflow-trainer");
        for (String[] review : List.of(
                new String[] {"authentication.k8s.io", "tokenreviews"},
                new String[] {"authorization.k8s.io", "subjectaccessreviews"})) {
            assertTrue(
                    role.getRules().stream()
                            .anyMatch(rule -> rule.getApiGroups().contains(review[0])
                                    && rule.getResources().contains(review[1])
                                    && rule.getVerbs().contains("create")),
                    "the app may not create " + review[1]);
        }
        ClusterRoleBinding binding = (ClusterRoleBinding) OBJECTS.get("ClusterRoleBinding/camel-kubeflow-trainer");
        assertEquals(role.getMetadata().getName(), binding.getRoleRef().getName());
        assertEquals(
                deployment().getSpec().getTemplate().getSpec().getServiceAccountName(),
                binding.getSubjects().get(0).getName());
    }

    @Test
    void theNetworkPolicySelectsTheAppsPodsAndLetsOnlyItsHttpPortIn() {
        NetworkPolicy policy = (NetworkPolicy) OBJECTS.get("NetworkPolicy/camel-kubeflow-trainer");
        Map<String, String> podLabels =
                deployment().getSpec().getTemplate().getMetadata().getLabels();
        assertTrue(
                podLabels
                        .entrySet()
                        .containsAll(policy.getSpec()
                                .getPodSelector()
                                .getMatchLabels()
                                .entrySet()),
                "the policy selects no pod of the app");
        assertEquals(List.of("Ingress", "Egress"), policy.getSpec().getPolicyTypes());
        assertEquals(1, policy.getSpec().getIngress().size());
        assertEquals(
                List.of(8080),
                policy.getSpec().getIngress().get(0).getPorts().stream()
                        .map(port -> port.getPort().getIntVal())
                        .toList());
        assertTrue(
                policy.getSpec().getIngress().get(0).getFrom().stream()
                        .allMatch(peer -> peer.getNamespaceSelector() != null),
                "ingress from anything but labelled namespaces");
    }

    @Test
    void twoReplicasElectTheEventRoutesLeaderWithALeaseAndADrainLeavesOne() {
        Deployment deployment = deployment();
        assertTrue(deployment.getSpec().getReplicas() >= 2, "one replica is no high availability");
        Container app =
                deployment.getSpec().getTemplate().getSpec().getContainers().get(0);
        assertEquals(
                "metadata.name",
                app.getEnv().stream()
                        .filter(e -> e.getName().equals("POD_NAME"))
                        .findFirst()
                        .orElseThrow()
                        .getValueFrom()
                        .getFieldRef()
                        .getFieldPath(),
                "the pod's name for the election");
        String properties = ((ConfigMap) OBJECTS.get("ConfigMap/camel-kubeflow-trainer"))
                .getData()
                .get("application.properties");
        assertTrue(properties.contains("trainer.ha.cluster-service=kubernetes"), properties);
        Role role = (Role) OBJECTS.get("Role/camel-kubeflow-trainer");
        assertTrue(
                role.getRules().stream()
                        .anyMatch(rule -> rule.getApiGroups().contains("coordination.k8s.io")
                                && rule.getResources().contains("leases")),
                "no Lease rule in the Role");
        PodDisruptionBudget budget = (PodDisruptionBudget) OBJECTS.get("PodDisruptionBudget/camel-kubeflow-trainer");
        assertEquals(1, budget.getSpec().getMinAvailable().getIntVal());
        assertTrue(
                deployment
                        .getSpec()
                        .getTemplate()
                        .getMetadata()
                        .getLabels()
                        .entrySet()
                        .containsAll(
                                budget.getSpec().getSelector().getMatchLabels().entrySet()),
                "the budget selects no pod");
    }

    @Test
    void aMisspeltFieldIsCaught() throws IOException {
        IllegalArgumentException misspelt = Assertions.assertThrows(
                IllegalArgumentException.class,
                () -> STRICT.convertValue(Serialization.unmarshal("""
                        apiVersion: apps/v1
                        kind: Deployment
                        metadata: {name: x}
                        spec: {template: {spec: {containers: [{name: a, image: i, readinesProbe: {}}]}}}
                        """, Map.class), Deployment.class));
        assertTrue(misspelt.getMessage().contains("readinesProbe"), misspelt.getMessage());
    }
}
