package io.camelkubeflow.trainer.routes;

import static io.camelkubeflow.trainer.KubeflowTrainerConstants.*;

import io.camelkubeflow.trainer.access.AccessDeniedException;
import io.camelkubeflow.trainer.api.TrainJob;
import io.camelkubeflow.trainer.job.PolicyViolationException;
import io.camelkubeflow.trainer.support.InvalidOptionException;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.camel.Exchange;
import org.apache.camel.Predicate;
import org.apache.camel.builder.RouteBuilder;
import org.apache.camel.component.aws2.s3.AWS2S3Constants;
import org.apache.camel.model.ProcessorDefinition;
import org.apache.camel.support.processor.idempotent.MemoryIdempotentRepository;
import org.eclipse.microprofile.config.ConfigProvider;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * S3 upload -> retrain. A new Python script under trainer.s3.script-prefix becomes a TrainJob running it (staged into
 * the pods); a project archive (zip, tar, tar.gz) under trainer.s3.workspace-prefix becomes a TrainJob running in it as
 * its manifest says ({@link WorkspaceUpload}); a new object under trainer.s3.dataset-prefix becomes a TrainJob on trainer.s3.dataset-runtime with the
 * object's s3:// URI as the dataset initializer's storageUri. When the job ends, a JSON report is written next to the
 * object as {@code <key>.trainjob.json}. Objects are left in place; each version (key and ETag) trains once, and a
 * version seen again (after a restart) adopts its TrainJob. With trainer.s3.caller-user, each upload is authorized as
 * that user too (see {@link EntryPointCaller}). Runs only with trainer.s3.enabled=true.
 */
@ApplicationScoped
public class S3Routes extends RouteBuilder {
    static final String REPORT_SUFFIX = ".trainjob.json";
    private static final String SOURCE =
            "&labels." + KafkaRoutes.SOURCE_LABEL + "=s3&idempotencyScope=s3" + "&policy=#trainRequestPolicy";

    @Inject
    TrainJobStatusView statusView;

    @ConfigProperty(name = "trainer.s3.enabled")
    boolean enabled;

    @Override
    public void configure() {
        if (!enabled) {
            // not merely stopped: aws2-s3 refuses to create an endpoint without credentials, which would stop the app
            return;
        }
        // the config as Camel Quarkus also has it at build time, when it runs configure() without injection to generate
        // the OpenAPI document
        EntryPointCaller caller = EntryPointCaller.of(ConfigProvider.getConfig(), "s3");
        // an upload the request policy (or the configured caller's rights) refuses, or one that is no valid request (a
        // hostile archive, a manifest field of the wrong type), trains nothing: its report says why
        onException(PolicyViolationException.class, AccessDeniedException.class, InvalidOptionException.class)
                .handled(true)
                .bean("refusalDetails", "nameAsWritten")
                .process(S3Routes::refusal)
                .marshal()
                .json()
                .setHeader(AWS2S3Constants.KEY, simple("${exchangeProperty.uploadKey}" + REPORT_SUFFIX))
                .to("aws2-s3://{{trainer.s3.bucket}}");

        newObjects(
                        "s3-script",
                        "{{trainer.s3.script-prefix}}",
                        "",
                        header(AWS2S3Constants.KEY).endsWith(".py"),
                        caller)
                .to("kubeflow-trainer:train?runtime={{trainer.runtime}}&namespace={{trainer.namespace}}&bodyType=script"
                        + "&jobNamePrefix=s3" + SOURCE + caller.authorizeOption())
                .wireTap("direct:s3-report");

        newObjects(
                        "s3-workspace",
                        "{{trainer.s3.workspace-prefix}}",
                        "",
                        header(AWS2S3Constants.KEY).regex(".*\\.(zip|tar\\.gz|tgz|tar)$"),
                        caller)
                .bean("workspaceUpload")
                .to("kubeflow-trainer:train?runtime={{trainer.runtime}}&namespace={{trainer.namespace}}"
                        + "&bodyType=workspace&jobNamePrefix=s3" + SOURCE + caller.authorizeOption())
                .wireTap("direct:s3-report");

        newObjects(
                        "s3-dataset",
                        "{{trainer.s3.dataset-prefix}}",
                        "&includeBody=false",
                        header(AWS2S3Constants.KEY).not().endsWith(REPORT_SUFFIX),
                        caller)
                .setHeader(DATASET_URI, simple("s3://${header.CamelAwsS3BucketName}/${header.CamelAwsS3Key}"))
                .to("kubeflow-trainer:train?runtime={{trainer.s3.dataset-runtime}}&namespace={{trainer.namespace}}"
                        + "&bodyType=ignore&jobNamePrefix=s3" + SOURCE + caller.authorizeOption())
                .wireTap("direct:s3-report");

        from("direct:s3-report")
                .routeId("s3-report")
                .setProperty("object", simple("s3://${header.CamelAwsS3BucketName}/${header.CamelAwsS3Key}"))
                .setProperty("reportKey", simple("${header.CamelAwsS3Key}" + REPORT_SUFFIX))
                .to(
                        "kubeflow-trainer:wait?namespace={{trainer.namespace}}&throwOnFailure=false&waitTimeout={{trainer.wait-timeout}}")
                .process(this::report)
                .marshal()
                .json()
                .removeHeaders("CamelAwsS3*")
                .setHeader(AWS2S3Constants.KEY, exchangeProperty("reportKey"))
                .to("aws2-s3://{{trainer.s3.bucket}}");
    }

    /**
     * Each new version (key and ETag) of an object under a prefix that the filter accepts, once, as the configured
     * caller, without any kubeflow-trainer header the object's metadata could have set.
     */
    private ProcessorDefinition<?> newObjects(
            String routeId, String prefix, String options, Predicate accepted, EntryPointCaller caller) {
        return from("aws2-s3://{{trainer.s3.bucket}}?prefix=" + prefix + "&deleteAfterRead=false"
                        + "&delay={{trainer.s3.poll-millis}}" + options)
                .routeId(routeId)
                .filter(accepted)
                .idempotentConsumer(
                        simple("${header.CamelAwsS3Key}@${header.CamelAwsS3ETag}"),
                        MemoryIdempotentRepository.memoryIdempotentRepository(10_000))
                .removeHeaders("CamelKubeflowTrainer*")
                .setProperty("uploadKey", header(AWS2S3Constants.KEY))
                .process(caller);
    }

    private static void refusal(Exchange exchange) {
        Exception refusal = exchange.getProperty(Exchange.EXCEPTION_CAUGHT, Exception.class);
        Map<String, Object> report = new LinkedHashMap<>();
        report.put(
                "object",
                "s3://" + exchange.getMessage().getHeader(AWS2S3Constants.BUCKET_NAME) + "/"
                        + exchange.getProperty("uploadKey"));
        report.put("status", "Refused");
        RefusalDetails.addTo(report, refusal);
        report.put("message", refusal.getMessage());
        exchange.getMessage().removeHeaders("CamelAwsS3*");
        exchange.getMessage().setBody(report);
    }

    private void report(Exchange exchange) {
        Map<String, Object> report =
                new LinkedHashMap<>(statusView.summary(exchange.getMessage().getBody(TrainJob.class)));
        report.put("object", exchange.getProperty("object"));
        report.put("launcher", exchange.getMessage().getHeader(LAUNCHER_CHOSEN));
        exchange.getMessage().setBody(report);
    }
}
