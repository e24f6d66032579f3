package io.camelkubeflow.examples;

import org.apache.camel.builder.endpoint.EndpointRouteBuilder;

import static io.camelkubeflow.trainer.dsl.KubeflowTrainerEndpointBuilderFactory.kubeflowTrainer;

/**
 * Java DSL, with the component's endpoint-DSL builders (typed options, completion in the IDE): a training script
 * arrives (here on direct:retrain; in an app, a file, Kafka or S3 endpoint), runs as a TrainJob on the
 * torch-distributed runtime (torchrun, chosen from the runtime), its log is followed to the job's end, and the log is
 * sent on with the outcome.
 */
public class RetrainRoute extends EndpointRouteBuilder {
    @Override
    public void configure() {
        from(direct("retrain")).routeId("java-retrain")
                .to(kubeflowTrainer("train").runtime("torch-distributed").namespace("examples").bodyType("script")
                        .numNodes(1).env("STAGE", "dev").labels("team", "vision"))
                .log("TrainJob ${header.CamelKubeflowTrainerJobName} runs with"
                     + " ${header.CamelKubeflowTrainerLauncherChosen} (${header.CamelKubeflowTrainerLauncherReason})")
                // the log is followed while the job runs: once a job has failed, its pods are deleted, their logs too
                .to(kubeflowTrainer("logs").follow(true))
                .setProperty("log", body())
                .to(kubeflowTrainer("wait").waitTimeout("30m").throwOnFailure(false))
                .setBody(simple("${header.CamelKubeflowTrainerJobName} ended ${header.CamelKubeflowTrainerStatus}:\n"
                        + "${exchangeProperty.log}"))
                .to(log("retrained"));
    }
}
