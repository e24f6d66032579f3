package io.camelkubeflow.trainer.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.camelkubeflow.trainer.testing.DeployedAccount;
import io.camelkubeflow.trainer.testing.Eventually;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ServiceAccountBuilder;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBinding;
import io.fabric8.kubernetes.api.model.rbac.PolicyRuleBuilder;
import io.fabric8.kubernetes.api.model.rbac.RoleBindingBuilder;
import io.fabric8.kubernetes.api.model.rbac.RoleBuilder;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The packaged routes app as deploy/ runs it, on the real control plane: it acts as its ServiceAccount (deploy/'s
 * Roles, a token the API server issued), every HTTP caller is authenticated by a real TokenReview and held to their
 * own rights by real SubjectAccessReviews, and what a permitted caller asks for runs and comes back.
 */
class RoutesAppIT {
    private static RealCluster cluster;
    private static Process app;
    private static final List<String> output = new CopyOnWriteArrayList<>();
    private static URI base;
    private static final HttpClient http = HttpClient.newHttpClient();

    @TempDir
    static Path work;

    @BeforeAll
    static void start() throws Exception {
        cluster = RealCluster.start(RoutesAppIT.class);
        Path kubeconfig = work.resolve("app.kubeconfig");
        Files.writeString(
                kubeconfig,
                DeployedAccount.kubeconfig(
                        cluster.admin.getConfiguration(), cluster.installDeployedAccount(), cluster.namespace));
        Path jar = Path.of(System.getProperty("user.dir"))
                .resolve("../routes/target/quarkus-app/quarkus-run.jar")
                .normalize();
        if (!Files.isRegularFile(jar)) {
            throw new IllegalStateException(jar + " is missing: package the routes app first (the reactor's order"
                    + " does; alone: mvn -B -ntp package -DskipTests -pl routes -am)");
        }
        ProcessBuilder builder = new ProcessBuilder("java", "-Duser.home=" + work, "-jar", jar.toString())
                .directory(work.toFile())
                .redirectErrorStream(true);
        builder.environment().remove("KUBERNETES_SERVICE_HOST");
        builder.environment().put("KUBECONFIG", kubeconfig.toString());
        builder.environment().put("TRAINER_CLUSTER", "cluster");
        builder.environment().put("TRAINER_NAMESPACE", cluster.namespace);
        builder.environment().put("QUARKUS_HTTP_PORT", "0");
        app = builder.start();
        Thread reader = new Thread(() -> {
            try (BufferedReader lines =
                    new BufferedReader(new InputStreamReader(app.getInputStream(), StandardCharsets.UTF_8))) {
                lines.lines().forEach(output::add);
            } catch (IOException | UncheckedIOException ended) {
                // the app stopped (lines() wraps the stream's closing in an UncheckedIOException)
            }
        });
        reader.setDaemon(true);
        reader.start();
        Pattern listening = Pattern.compile("Listening on: (http://127\\.0\\.0\\.1:\\d+)");
        Eventually.await(
                Duration.ofSeconds(60),
                () -> output.stream().anyMatch(l -> listening.matcher(l).find()),
                () -> "the app did not start:\n" + String.join("\n", output));
        Matcher matcher = output.stream()
                .map(listening::matcher)
                .filter(Matcher::find)
                .findFirst()
                .orElseThrow();
        base = URI.create(matcher.group(1) + "/");
    }

    @AfterAll
    static void stop() throws Exception {
        if (app != null) {
            app.destroy();
            app.waitFor();
        }
        cluster.close();
    }

    private static HttpResponse<String> call(String method, String path, String token, String body) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(base.resolve(path))
                .timeout(Duration.ofSeconds(60))
                .method(
                        method,
                        body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body))
                .header("Content-Type", "application/json");
        if (token != null) {
            request.header("Authorization", "Bearer " + token);
        }
        return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    @Timeout(240)
    void aPipelineAccountTrainsWithinItsOwnRightsAndReadsTheResult() throws Exception {
        cluster.admin
                .serviceAccounts()
                .inNamespace(cluster.namespace)
                .resource(new ServiceAccountBuilder()
                        .withNewMetadata()
                        .withName("pipeline")
                        .endMetadata()
                        .build())
                .create();
        String pipeline = cluster.token("pipeline");
        String request = "{\"script\": \"print('trained over http')\", \"numNodes\": 2}";

        HttpResponse<String> denied = call("POST", "trainjobs", pipeline, request);
        assertEquals(403, denied.statusCode(), denied.body());
        assertTrue(denied.body().contains("system:serviceaccount:" + cluster.namespace + ":pipeline"), denied.body());

        // docs/security.md's Role for a pipeline: create and read TrainJobs, read their logs
        cluster.admin
                .rbac()
                .roles()
                .inNamespace(cluster.namespace)
                .resource(new RoleBuilder()
                        .withNewMetadata()
                        .withName("pipeline")
                        .endMetadata()
                        .addToRules(new PolicyRuleBuilder()
                                .withApiGroups("trainer.kubeflow.org")
                                .withResources("trainjobs")
                                .withVerbs("create", "get")
                                .build())
                        .addToRules(new PolicyRuleBuilder()
                                .withApiGroups("")
                                .withResources("pods/log")
                                .withVerbs("get")
                                .build())
                        .build())
                .create();
        cluster.admin
                .rbac()
                .roleBindings()
                .inNamespace(cluster.namespace)
                .resource(new RoleBindingBuilder()
                        .withNewMetadata()
                        .withName("pipeline")
                        .endMetadata()
                        .withNewRoleRef()
                        .withApiGroup("rbac.authorization.k8s.io")
                        .withKind("Role")
                        .withName("pipeline")
                        .endRoleRef()
                        .addNewSubject()
                        .withKind("ServiceAccount")
                        .withName("pipeline")
                        .withNamespace(cluster.namespace)
                        .endSubject()
                        .build())
                .create();
        // the app keeps an access review's answer 10 s; the API server's authorizer sees the binding a moment later
        AtomicReference<HttpResponse<String>> created = new AtomicReference<>();
        Eventually.await(
                Duration.ofSeconds(30),
                () -> until(created, () -> call("POST", "trainjobs", pipeline, request), 201, null),
                () -> created.get().statusCode() + " " + created.get().body());
        String name = created.get().body().replaceAll("(?s).*\"name\"\\s*:\\s*\"([^\"]+)\".*", "$1");

        AtomicReference<HttpResponse<String>> status = new AtomicReference<>();
        Eventually.await(
                Duration.ofSeconds(120),
                () -> until(status, () -> call("GET", "trainjobs/" + name, pipeline, null), 200, "\"Complete\""),
                () -> status.get().statusCode() + " " + status.get().body());
        HttpResponse<String> logs = call("GET", "trainjobs/" + name + "/logs?step=all", pipeline, null);
        assertEquals(200, logs.statusCode(), logs.body());
        assertEquals(
                2,
                logs.body().lines().filter(l -> l.contains("trained over http")).count(),
                logs.body());

        // a right the pipeline was not given: deleting
        HttpResponse<String> delete = call("DELETE", "trainjobs/" + name, pipeline, null);
        assertEquals(403, delete.statusCode(), delete.body());
    }

    /**
     * Sends, keeps the response in {@code last}, and says whether it has the status and holds {@code text}; a miss
     * pauses 200 ms first, so that the polling stays well inside the app's rate limit for one caller (20 a second).
     */
    private static boolean until(
            AtomicReference<HttpResponse<String>> last, Callable<HttpResponse<String>> send, int status, String text) {
        try {
            last.set(send.call());
            boolean met = last.get().statusCode() == status
                    && (text == null || last.get().body().contains(text));
            if (!met) {
                Thread.sleep(200);
            }
            return met;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * /q/metrics on the real control plane: an account bound to deploy/monitoring's ClusterRole (as Prometheus's is)
     * reads the meters, by a real TokenReview and a real SubjectAccessReview of the non-resource URL /metrics; an
     * account without that right is refused 403, a request without a token 401.
     */
    @Test
    @Timeout(120)
    void anAccountBoundToTheMetricsReaderReadsTheMetricsAndOthersAreRefused() throws Exception {
        for (String account : List.of("prometheus", "onlooker")) {
            cluster.admin
                    .serviceAccounts()
                    .inNamespace(cluster.namespace)
                    .resource(new ServiceAccountBuilder()
                            .withNewMetadata()
                            .withName(account)
                            .endMetadata()
                            .build())
                    .create();
        }
        Path manifests = Path.of(System.getProperty("user.dir"))
                .resolve("../deploy/monitoring/metrics-reader.yaml")
                .normalize();
        try (InputStream in = Files.newInputStream(manifests)) {
            for (HasMetadata item : cluster.admin.load(in).items()) {
                if (item instanceof ClusterRoleBinding binding) {
                    // bound to this namespace's stand-in for Prometheus's account, under a name of this namespace
                    binding.getMetadata().setName(binding.getMetadata().getName() + "-" + cluster.namespace);
                    binding.getSubjects().forEach(s -> {
                        s.setName("prometheus");
                        s.setNamespace(cluster.namespace);
                    });
                }
                cluster.admin.resource(item).serverSideApply();
            }
        }

        HttpResponse<String> none = call("GET", "q/metrics", null, null);
        assertEquals(401, none.statusCode(), none.body());
        HttpResponse<String> onlooker = call("GET", "q/metrics", cluster.token("onlooker"), null);
        assertEquals(403, onlooker.statusCode(), onlooker.body());
        assertTrue(onlooker.body().contains("may not get /metrics"), onlooker.body());
        String prometheus = cluster.token("prometheus");
        AtomicReference<HttpResponse<String>> scraped = new AtomicReference<>();
        Eventually.await(
                Duration.ofSeconds(30),
                () -> until(scraped, () -> call("GET", "q/metrics", prometheus, null), 200, "kubeflow_trainer_"),
                () -> scraped.get().statusCode() + " " + scraped.get().body());
    }

    @Test
    void aTokenTheApiServerDoesNotAcceptIs401() throws Exception {
        HttpResponse<String> forged = call("GET", "trainjobs", "eyJhbGciOiJSUzI1NiJ9.e30.forged", null);
        assertEquals(401, forged.statusCode(), forged.body());
        HttpResponse<String> none = call("GET", "trainjobs", null, null);
        assertEquals(401, none.statusCode(), none.body());
    }
}
