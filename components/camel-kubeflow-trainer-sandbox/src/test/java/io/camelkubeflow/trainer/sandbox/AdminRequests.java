package io.camelkubeflow.trainer.sandbox;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import javax.net.ssl.HttpsURLConnection;

/** Requests of the sandbox's admin made by hand, as kubectl sends them with the kubeconfig's token and authority. */
public final class AdminRequests {
    private AdminRequests() {}

    /** A request for a path of the sandbox's API ("api/v1/..."), with the admin's bearer token. */
    public static HttpRequest.Builder request(TrainerSandbox sandbox, String path) {
        return HttpRequest.newBuilder(URI.create(sandbox.masterUrl() + path)).header("Authorization", bearer(sandbox));
    }

    /** An HTTP client that trusts the sandbox's certificate. */
    public static HttpClient client(TrainerSandbox sandbox) {
        return HttpClient.newBuilder().sslContext(sandbox.sslContext()).build();
    }

    /** A connection to a path of the sandbox's API, with the admin's bearer token. */
    public static HttpsURLConnection connection(TrainerSandbox sandbox, String path) throws IOException {
        HttpsURLConnection connection = (HttpsURLConnection)
                URI.create(sandbox.masterUrl() + path).toURL().openConnection();
        connection.setSSLSocketFactory(sandbox.sslContext().getSocketFactory());
        connection.setRequestProperty("Authorization", bearer(sandbox));
        return connection;
    }

    private static String bearer(TrainerSandbox sandbox) {
        return "Bearer " + sandbox.client().getConfiguration().getOauthToken();
    }
}
