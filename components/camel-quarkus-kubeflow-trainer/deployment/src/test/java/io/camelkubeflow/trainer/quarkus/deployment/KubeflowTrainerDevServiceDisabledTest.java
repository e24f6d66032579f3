package io.camelkubeflow.trainer.quarkus.deployment;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import io.quarkus.test.QuarkusUnitTest;
import java.util.List;
import org.eclipse.microprofile.config.ConfigProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** quarkus.kubeflow-trainer.devservices.enabled=false: no cluster is configured, and still no Dev Service starts. */
class KubeflowTrainerDevServiceDisabledTest {
    @RegisterExtension
    static final QuarkusUnitTest QUARKUS = new QuarkusUnitTest()
            .withApplicationRoot(app -> app.addClass(DevServicesSeen.class))
            .overrideConfigKey("quarkus.kubeflow-trainer.devservices.enabled", "false")
            .overrideConfigKey("quarkus.kubernetes-client.devservices.enabled", "false")
            // Quarkus (3.31, 3.33) logs an ERROR ("Cannot apply manifests ...") whenever its own Dev Service does not
            // run
            .overrideConfigKey(KubeflowTrainerDevServiceTest.QUARKUS_MANIFESTS_LOG, "OFF")
            .addBuildChainCustomizer(DevServicesSeen.CUSTOMIZER);

    @Test
    void noDevServiceStarts() throws Exception {
        assertEquals(List.of(), DevServicesSeen.features(), "Dev Services the build asked for");
        assertFalse(
                ConfigProvider.getConfig()
                        .getOptionalValue("quarkus.kubeflow-trainer.kubeconfig", String.class)
                        .isPresent(),
                "no sandbox's kubeconfig given to the app");
    }
}
