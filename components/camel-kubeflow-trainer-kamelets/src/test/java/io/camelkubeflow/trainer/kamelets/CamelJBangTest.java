package io.camelkubeflow.trainer.kamelets;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.TimeUnit;
import org.apache.camel.CamelContext;
import org.apache.camel.builder.NotifyBuilder;
import org.apache.camel.main.KameletMain;
import org.junit.jupiter.api.Test;

/**
 * The YAML example and the Pipe run as Camel JBang runs them ({@code camel run *} in their folders): with its runner,
 * KameletMain, loading each folder's files as they are, and their application.properties, whose
 * {@code masterUrl=sandbox} puts the component on a local sandbox it starts itself: no cluster, no Java. KameletMain
 * would download what {@code camel.jbang.dependencies} names; here those jars are on the test's classpath.
 */
class CamelJBangTest {
    private static final String EXAMPLES = "file:../../examples/";

    @Test
    void theYamlExampleAndThePipeRunAsCamelRunRunsThemOnTheSandbox() throws Exception {
        KameletMain main = new KameletMain("camel-jbang-test");
        main.setDownload(false);
        main.setPropertyPlaceholderLocations(
                EXAMPLES + "yaml/application.properties," + EXAMPLES + "kamelet/application.properties");
        main.addInitialProperty(
                "camel.main.routesIncludePattern",
                EXAMPLES + "yaml/train-wait-report.camel.yaml," + EXAMPLES + "kamelet/trainjob-events-pipe.yaml,"
                        + EXAMPLES + "kamelet/trigger.camel.yaml");
        // the Kamelets from this project's jar (on the classpath, as camel.jbang.dependencies puts it), not a download
        // of Apache's Kamelet catalog
        main.addInitialProperty("camel.component.kamelet.location", "classpath:kamelets");
        main.start();
        try {
            CamelContext camel = main.getCamelContext();
            // fired by the YAML example's own timer: the MPI job on the sandbox, waited for, reported
            NotifyBuilder reported = new NotifyBuilder(camel)
                    .fromRoute("yaml-train-trigger")
                    .filter(camel.resolveLanguage("simple").createPredicate("${body} contains ': Complete ('"))
                    .whenDone(1)
                    .create();
            // fired by the trigger: the labelled job's Created, Running and Complete, through the Kamelet Pipe
            NotifyBuilder printed = new NotifyBuilder(camel)
                    .fromRoute("trainjob-events-print")
                    .filter(camel.resolveLanguage("simple")
                            .createPredicate(
                                    "${header.CamelCloudEventType} == 'io.camelkubeflow.trainer.trainjob.complete'"))
                    .whenDone(1)
                    .create();
            assertTrue(reported.matches(60, TimeUnit.SECONDS), "the YAML example did not report a Complete job");
            assertTrue(printed.matches(60, TimeUnit.SECONDS), "the Pipe did not pass on the job's completion");
        } finally {
            main.stop();
        }
    }
}
