package io.camelkubeflow.trainer.routes;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** The kubeconfig a packaged app started by a test reads: one cluster, the app's token, the app's namespace. */
final class AppKubeconfig {
    private AppKubeconfig() {
    }

    /** Writes {@code dir}/kubeconfig for the API server at {@code server} and answers its path. */
    static Path write(Path dir, String server, String namespace) throws IOException {
        return Files.writeString(dir.resolve("kubeconfig"), """
                apiVersion: v1
                kind: Config
                clusters: [{name: cluster, cluster: {server: "%s"}}]
                users: [{name: app, user: {token: app-token}}]
                contexts: [{name: app, context: {cluster: cluster, user: app, namespace: %s}}]
                current-context: app
                """.formatted(server, namespace));
    }
}
