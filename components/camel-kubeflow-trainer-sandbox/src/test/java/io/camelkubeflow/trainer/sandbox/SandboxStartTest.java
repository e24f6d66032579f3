package io.camelkubeflow.trainer.sandbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The sandbox's start: it listens at once and installs the Trainer (and the objects of its manifests) on a thread of
 * its own, and no request is answered before that installation is whole, or when it failed.
 */
class SandboxStartTest {
    private static final String MANIFEST = """
            apiVersion: v1
            kind: ConfigMap
            metadata: {name: from-manifest}
            data: {team: a}
            """;

    /** A manifest that is a named pipe: the installation waits at it until the test writes it. */
    private static Path namedPipe(Path dir) throws Exception {
        Path manifest = dir.resolve("manifest.yaml");
        assertEquals(
                0, new ProcessBuilder("mkfifo", manifest.toString()).start().waitFor());
        return manifest;
    }

    @Test
    void aRequestThatComesWhileTheSandboxInstallsIsAnsweredOnceEverythingIsInstalled(@TempDir Path dir)
            throws Exception {
        Path manifest = namedPipe(dir);
        try (TrainerSandbox sandbox =
                TrainerSandbox.starting(TrainerSandbox.Options.defaults().withInstalled(List.of(manifest), "team-a"))) {
            CompletableFuture<HttpResponse<String>> answer = AdminRequests.client(sandbox)
                    .sendAsync(
                            AdminRequests.request(sandbox, "api/v1/namespaces/default/configmaps/from-manifest")
                                    .build(),
                            HttpResponse.BodyHandlers.ofString());
            // the request reached the server and is held: without the wait for the installation it is answered 404
            Eventually.until(() -> sandbox.requestsAwaitingInstall() == 1 || answer.isDone());
            assertFalse(answer.isDone(), "answered before the manifest was installed: " + answer.getNow(null));
            Files.writeString(manifest, MANIFEST);
            HttpResponse<String> found = answer.get();
            assertEquals(200, found.statusCode(), found.body());
            assertEquals(
                    "a",
                    ((Map<?, ?>) Serialization.unmarshal(found.body(), Map.class)
                                    .get("data"))
                            .get("team"));
            sandbox.awaitStarted();
            assertNotNull(sandbox.client().namespaces().withName("team-a").get());
        }
    }

    @Test
    void aWebSocketWatchOpenedWhileTheSandboxInstallsSeesTheInstalledObjectsAndLaterChanges(@TempDir Path dir)
            throws Exception {
        Path manifest = namedPipe(dir);
        try (TrainerSandbox sandbox =
                TrainerSandbox.starting(TrainerSandbox.Options.defaults().withInstalled(List.of(manifest)))) {
            BlockingQueue<String> seen = new LinkedBlockingQueue<>();
            Watcher<ConfigMap> watcher = new Watcher<>() {
                @Override
                public void eventReceived(Action action, ConfigMap map) {
                    seen.add(action + " " + map.getMetadata().getName());
                }

                @Override
                public void onClose(WatcherException cause) {
                    seen.add("closed " + cause);
                }
            };
            // the watch request waits with the others until the manifest is installed
            CompletableFuture<Watch> watch = CompletableFuture.supplyAsync(
                    () -> sandbox.client().configMaps().inNamespace("default").watch(watcher));
            Eventually.until(() -> sandbox.requestsAwaitingInstall() == 1);
            Files.writeString(manifest, MANIFEST);
            try (Watch opened = watch.get()) {
                assertEquals("ADDED from-manifest", seen.poll(30, TimeUnit.SECONDS));
                sandbox.client()
                        .configMaps()
                        .inNamespace("default")
                        .resource(new ConfigMapBuilder()
                                .withNewMetadata()
                                .withName("later")
                                .endMetadata()
                                .build())
                        .create();
                assertEquals("ADDED later", seen.poll(30, TimeUnit.SECONDS));
            }
            // an upgrade, taken after the wait for the installation (a request left unread can still be upgraded)
            assertEquals(
                    "websocket",
                    sandbox.requestsSince(0).stream()
                            .filter(r -> r.getPath().contains("watch=true"))
                            .findFirst()
                            .orElseThrow()
                            .getHeader("Upgrade"));
        }
    }

    @Test
    void aManifestTheSandboxCannotCreateFailsItsStartAndEveryRequestSaysWhy(@TempDir Path dir) throws Exception {
        Path manifest = Files.writeString(dir.resolve("apps.yaml"), """
                apiVersion: apps/v1
                kind: Deployment
                metadata: {name: web}
                """);
        try (TrainerSandbox sandbox =
                TrainerSandbox.starting(TrainerSandbox.Options.defaults().withInstalled(List.of(manifest)))) {
            IllegalArgumentException failure = assertThrows(IllegalArgumentException.class, sandbox::awaitStarted);
            assertEquals(
                    manifest + ": apps/v1 Deployment web: the sandbox does not serve that kind", failure.getMessage());
            // /version is open to anyone, as on a cluster
            HttpResponse<String> answer = AdminRequests.client(sandbox)
                    .send(
                            HttpRequest.newBuilder(URI.create(sandbox.masterUrl() + "version"))
                                    .build(),
                            HttpResponse.BodyHandlers.ofString());
            assertEquals(503, answer.statusCode());
            Map<?, ?> status = Serialization.unmarshal(answer.body(), Map.class);
            assertEquals("Status", status.get("kind"));
            assertEquals("the sandbox could not install the Trainer: " + failure.getMessage(), status.get("message"));
        }
    }
}
