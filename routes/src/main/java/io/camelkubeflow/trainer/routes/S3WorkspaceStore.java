package io.camelkubeflow.trainer.routes;

import io.camelkubeflow.trainer.support.InvalidOptionException;
import io.camelkubeflow.trainer.workspace.Workspace;
import io.camelkubeflow.trainer.workspace.WorkspaceFetcher;
import io.camelkubeflow.trainer.workspace.WorkspaceStore;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.inject.Named;
import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;
import org.apache.camel.CamelContext;
import org.apache.camel.component.aws2.s3.AWS2S3Component;
import org.apache.camel.component.aws2.s3.AWS2S3Configuration;
import org.apache.camel.component.aws2.s3.client.AWS2S3ClientFactory;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.S3Configuration;
import software.amazon.awssdk.services.s3.S3ServiceClientConfiguration;
import software.amazon.awssdk.services.s3.model.NoSuchKeyException;
import software.amazon.awssdk.services.s3.presigner.S3Presigner;

/**
 * Workspaces too large for a ConfigMap, kept in S3 ({@code trainer.workspaces.bucket}, under
 * {@code trainer.workspaces.prefix}, as {@code <sha256>.tar.gz}) with the S3 settings the app's aws2-s3 routes use
 * ({@code camel.component.aws2-s3.*}). An archive is uploaded once (a HEAD finds it afterwards); the pods get a
 * presigned GET URL of that one object, valid for a day: it carries the access key's id and a signature, never the
 * secret key. Expire the prefix with a bucket lifecycle rule. Used when
 * {@code camel.component.kubeflow-trainer.workspace-store=#s3WorkspaceStore}. As the component's
 * {@code workspace-fetcher} it also fetches the project archives requests name as {@code s3://bucket/key} (those the
 * request policy's workspace sources allow).
 */
@ApplicationScoped
@Named("s3WorkspaceStore")
public class S3WorkspaceStore implements WorkspaceStore, WorkspaceFetcher {
    @Inject
    CamelContext camel;

    @ConfigProperty(name = "trainer.workspaces.bucket")
    String bucket;

    @ConfigProperty(name = "trainer.workspaces.prefix")
    String prefix;

    private S3Client s3;
    private S3Presigner presigner;

    /**
     * The S3 client exactly as the aws2-s3 routes build theirs (Camel's own factory), and a presigner with its
     * credentials, region and endpoint.
     */
    private synchronized void connect() {
        if (s3 != null) {
            return;
        }
        AWS2S3Configuration settings =
                camel.getComponent("aws2-s3", AWS2S3Component.class).getConfiguration();
        s3 = AWS2S3ClientFactory.getS3Client(settings);
        S3ServiceClientConfiguration client = s3.serviceClientConfiguration();
        S3Presigner.Builder signer = S3Presigner.builder()
                .credentialsProvider(client.credentialsProvider())
                .region(client.region())
                .serviceConfiguration(S3Configuration.builder()
                        .pathStyleAccessEnabled(settings.isForcePathStyle())
                        .build());
        client.endpointOverride().ifPresent(signer::endpointOverride);
        presigner = signer.build();
    }

    private String key(Workspace workspace) {
        return prefix + workspace.digest() + ".tar.gz";
    }

    @Override
    public boolean store(Workspace workspace) {
        connect();
        try {
            s3.headObject(head -> head.bucket(bucket).key(key(workspace)));
            return false;
        } catch (NoSuchKeyException e) {
            s3.putObject(
                    put -> put.bucket(bucket).key(key(workspace)).contentType("application/gzip"),
                    RequestBody.fromBytes(workspace.archive()));
            return true;
        }
    }

    @Override
    public URI readUrl(Workspace workspace, Duration validity) {
        connect();
        try {
            return presigner
                    .presignGetObject(get -> get.signatureDuration(validity)
                            .getObjectRequest(object -> object.bucket(bucket).key(key(workspace))))
                    .url()
                    .toURI();
        } catch (URISyntaxException e) {
            throw new IllegalStateException("S3 signed a URL that is no URI", e);
        }
    }

    @Override
    public boolean fetches(String location) {
        return location.startsWith("s3://");
    }

    @Override
    public byte[] fetch(String location, long maxBytes, String field) {
        connect();
        String path = location.substring("s3://".length());
        int slash = path.indexOf('/');
        if (slash <= 0 || slash == path.length() - 1) {
            throw new InvalidOptionException(field, "'" + location + "' is not s3://<bucket>/<key>");
        }
        String objectBucket = path.substring(0, slash);
        String key = path.substring(slash + 1);
        long size;
        try {
            size = s3.headObject(head -> head.bucket(objectBucket).key(key)).contentLength();
        } catch (NoSuchKeyException e) {
            throw new InvalidOptionException(field, "'" + location + "' does not exist");
        }
        if (size > maxBytes) {
            throw new InvalidOptionException(
                    field, "'" + location + "' is " + size + " bytes, over the " + maxBytes + " a workspace may have");
        }
        return s3.getObjectAsBytes(get -> get.bucket(objectBucket).key(key)).asByteArray();
    }

    @PreDestroy
    synchronized void close() {
        if (s3 != null) {
            s3.close();
            presigner.close();
        }
    }
}
