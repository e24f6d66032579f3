package io.camelkubeflow.trainer.routes;

import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;
import java.util.Map;

/** Starts an OIDC provider for the app under test and has the HTTP API accept its ID tokens. */
public class OidcProviderResource implements QuarkusTestResourceLifecycleManager {
    static OidcProvider provider;

    @Override
    public Map<String, String> start() {
        provider = new OidcProvider();
        return Map.of(
                "trainer.http.oidc.issuer", provider.issuer(), "trainer.http.oidc.audience", OidcProvider.AUDIENCE);
    }

    @Override
    public void stop() {
        if (provider != null) {
            provider.close();
        }
    }
}
