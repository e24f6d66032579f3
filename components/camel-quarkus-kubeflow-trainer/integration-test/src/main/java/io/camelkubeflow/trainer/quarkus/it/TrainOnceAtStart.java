package io.camelkubeflow.trainer.quarkus.it;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import java.util.Map;
import org.apache.camel.Exchange;
import org.apache.camel.ProducerTemplate;
import org.apache.camel.spi.CamelEvent.CamelContextStartedEvent;
import org.jboss.logging.Logger;

/**
 * Starts one TrainJob once Camel is up, on whichever cluster the extension gave the client. Camel Quarkus hands
 * Camel's events to CDI observers, so the app needs no consumer extension (timer, direct) beside the component's.
 */
@ApplicationScoped
public class TrainOnceAtStart {
    /** The label the job carries, by which the test finds it. */
    public static final String LABEL = "example.com/integration-test";

    private static final Logger LOG = Logger.getLogger(TrainOnceAtStart.class);

    void train(@Observes CamelContextStartedEvent started, ProducerTemplate producer) {
        Exchange trained = producer.request(
                "kubeflow-trainer:train?runtime=torch-distributed&pythonFile=/app/train.py",
                exchange -> exchange.getMessage().setHeader("CamelKubeflowTrainerLabels", Map.of(LABEL, "train-once")));
        if (trained.getException() != null) {
            LOG.error("The TrainJob was not created", trained.getException());
            return;
        }
        LOG.infof("TrainJob %s created", trained.getMessage().getHeader("CamelKubeflowTrainerJobName"));
    }
}
