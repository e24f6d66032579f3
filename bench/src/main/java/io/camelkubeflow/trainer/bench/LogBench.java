package io.camelkubeflow.trainer.bench;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

import io.camelkubeflow.trainer.KubeflowTrainerComponent;
import io.camelkubeflow.trainer.KubeflowTrainerConstants;
import io.camelkubeflow.trainer.api.TrainJob;
import io.camelkubeflow.trainer.api.TrainJobPhase;
import io.camelkubeflow.trainer.sandbox.TrainJobControllerEmulation;
import io.camelkubeflow.trainer.sandbox.TrainerSandbox;
import io.fabric8.kubernetes.api.model.Pod;
import org.apache.camel.CamelContext;
import org.apache.camel.Exchange;
import org.apache.camel.builder.RouteBuilder;
import org.apache.camel.impl.DefaultCamelContext;

/**
 * Log follow throughput: a finished job's trainer pod holds a log of at least 100 MB; a route follows it
 * ({@code kubeflow-trainer:logs?follow=true}) and sends it on in chunks of 1,000 lines to another route that counts
 * them. Figures: MB/s and lines/s, from the send to the end of the read.
 */
final class LogBench implements AutoCloseable {
    private final TrainerSandbox sandbox = TrainerSandbox.start(TrainerSandbox.Options.defaults()
            .withController(Duration.ofMillis(10), Duration.ofMillis(100)));
    private final CamelContext camel = new DefaultCamelContext();
    private final AtomicLong linesSeen = new AtomicLong();

    LogBench() throws Exception {
        sandbox.createNamespace("logs");
        camel.getComponent("kubeflow-trainer", KubeflowTrainerComponent.class).setKubernetesClient(sandbox.client());
        camel.addRoutes(new RouteBuilder() {
            @Override
            public void configure() {
                from("direct:follow").to("kubeflow-trainer:logs?follow=true&logDestination=direct:lines"
                        + "&logChunkLines=1000&maxLogBytes=1048576");
                from("direct:lines").process(e -> linesSeen.addAndGet(
                        e.getMessage().getBody(String.class).chars().filter(c -> c == '\n').count() + 1));
            }
        });
        camel.start();
    }

    /** Follows a log of {@code megabytes} MB; answers {MB/s, lines/s, MB, lines}. */
    double[] follow(int megabytes) throws Exception {
        var template = camel.createProducerTemplate();
        Exchange trained = template.send("kubeflow-trainer:train?runtime=torch-distributed&namespace=logs"
                + "&pythonFile=/app/train.py", e -> e.getMessage().setHeader(KubeflowTrainerConstants.ANNOTATIONS,
                        java.util.Map.of(TrainJobControllerEmulation.LOG_LINES_ANNOTATION, "1")));
        String name = trained.getMessage().getHeader(KubeflowTrainerConstants.JOB_NAME, String.class);
        template.send("kubeflow-trainer:wait?namespace=logs", e -> e.getMessage()
                .setHeader(KubeflowTrainerConstants.JOB_NAME, name));
        TrainJob job = sandbox.client().resources(TrainJob.class).inNamespace("logs").withName(name).get();
        if (TrainJobPhase.of(job) != TrainJobPhase.COMPLETE) {
            throw new IllegalStateException("the log job did not complete");
        }
        Pod pod = sandbox.client().pods().inNamespace("logs")
                .withLabel(TrainJobControllerEmulation.JOBSET_NAME_LABEL, name).list().getItems().get(0);
        String line = "step=%08d loss=0.%08d lr=0.0003 tokens/s=12345.6 grad_norm=1.234 "
                + "some more training output to make a realistic line";
        long bytes = 0;
        long lines = 0;
        while (bytes < megabytes * 1024L * 1024L) {
            String text = String.format(line, lines, lines);
            sandbox.podLogs().append("logs", pod.getMetadata().getName(), text);
            bytes += text.length() + 1;
            lines++;
        }
        linesSeen.set(0);
        long started = System.nanoTime();
        Exchange followed = template.send("direct:follow", e -> {
            e.getMessage().setHeader(KubeflowTrainerConstants.JOB_NAME, name);
            e.getMessage().setHeader(KubeflowTrainerConstants.NAMESPACE, "logs");
        });
        double seconds = (System.nanoTime() - started) / 1e9;
        if (followed.getException() != null) {
            throw followed.getException();
        }
        if (linesSeen.get() < lines) {
            throw new IllegalStateException("only " + linesSeen.get() + " of " + lines + " lines arrived");
        }
        double megabytesRead = bytes / (1024.0 * 1024.0);
        return new double[] {megabytesRead / seconds, linesSeen.get() / seconds, megabytesRead, linesSeen.get()};
    }

    @Override
    public void close() throws Exception {
        camel.close();
        sandbox.close();
    }
}
