package io.camelkubeflow.trainer.routes;

import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;
import java.util.Map;

/** Starts a real S3 server (S3Proxy) for the app under test, with its bucket, and turns the S3 routes on. */
public class S3ServerResource implements QuarkusTestResourceLifecycleManager {
    static final String BUCKET = "training";
    static S3Server s3;
    /** Who the S3 routes act as: S3RoutesTest binds the group the rights to train. */
    static final String CALLER = "system:serviceaccount:default:s3-uploads";

    static final String CALLER_GROUP = "s3-uploaders";

    @Override
    public Map<String, String> start() {
        // before the app starts, so its whole log can be scanned for the credentials
        LogCapture.install();
        try {
            s3 = new S3Server();
        } catch (Exception e) {
            throw new IllegalStateException("the in-process S3 server did not start", e);
        }
        s3.createBucket(BUCKET);
        // AWS SDK 2.30+ sends flexible-checksum headers S3Proxy does not implement (501); real S3 needs no such setting
        System.setProperty("aws.requestChecksumCalculation", "WHEN_REQUIRED");
        System.setProperty("aws.responseChecksumValidation", "WHEN_REQUIRED");
        return Map.of(
                "trainer.s3.enabled",
                "true",
                "trainer.s3.bucket",
                BUCKET,
                "trainer.s3.poll-millis",
                "200",
                "trainer.s3.caller-user",
                CALLER,
                "trainer.s3.caller-groups",
                CALLER_GROUP,
                "camel.component.aws2-s3.override-endpoint",
                "true",
                "camel.component.aws2-s3.uri-endpoint-override",
                s3.endpoint(),
                "camel.component.aws2-s3.force-path-style",
                "true",
                "camel.component.aws2-s3.access-key",
                S3Server.ACCESS_KEY,
                "camel.component.aws2-s3.secret-key",
                S3Server.SECRET_KEY);
    }

    @Override
    public void stop() {
        if (s3 != null) {
            try {
                s3.close();
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }
    }
}
