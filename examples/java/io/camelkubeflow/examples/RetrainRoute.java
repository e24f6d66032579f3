package io.camelkubeflow.examples;

import org.apache.camel.builder.endpoint.EndpointRouteBuilder;

import static io.camelkubeflow.trainer.dsl.KubeflowTrainerEndpointBuilderFactory.kubeflowTrainer;

/**
 * Java DSL, with the component's endpoint-DSL builders (typed options, completion in the IDE): a training script
 * arrives (here on direct:retrain; in an app, a file, Kafka or S3 endpoint), runs as a TrainJob on the
 * torch-distributed runtime (torchrun, chosen from the runtime), is waited for, and its log tail is sent on with the
 * outcome.
 */
public class RetrainRoute extends EndpointRouteBuilder {
    @Override
    public void configure() {
        from(direct("retrain")).routeId("java-retrain")
                .to(kubeflowTrainer("train").runtime("torch-distributed").namespace("examples").bodyType("script")
                        .numNodes(1).env("STAGE", "dev").labels("team", "vision"))
                .log("TrainJob ${header.CamelKubeflowTrainerJobName} runs with"
                     + " ${header.CamelKubeflowTrainerLauncherChosen} (${header.CamelKubeflowTrainerLauncherReason})")
                .to(kubeflowTrainer("wait").waitTimeout("30m").throwOnFailure(false))
                .to(kubeflowTrainer("logs").tailLines(20))
                .setBody(simple("${header.CamelKubeflowTrainerJobName} ended ${header.CamelKubeflowTrainerStatus}:\n${body}"))
                .to(log("retrained"));
    }
}
