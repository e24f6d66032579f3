package io.camelkubeflow.trainer.quarkus.it;

import java.util.Map;
import org.apache.camel.builder.RouteBuilder;

/** Starts one TrainJob when the app is up, on whichever cluster the extension gave the client. */
public class TrainOnceRoute extends RouteBuilder {
    /** The label the job carries, by which the test finds it. */
    public static final String LABEL = "example.com/integration-test";

    @Override
    public void configure() {
        from("timer:train-once?repeatCount=1")
                .setHeader("CamelKubeflowTrainerLabels", constant(Map.of(LABEL, "train-once")))
                .to("kubeflow-trainer:train?runtime=torch-distributed&pythonFile=/app/train.py")
                .log("TrainJob ${header.CamelKubeflowTrainerJobName} created");
    }
}
