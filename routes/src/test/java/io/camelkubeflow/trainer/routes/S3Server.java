package io.camelkubeflow.trainer.routes;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.UUID;
import org.eclipse.jetty.util.component.AbstractLifeCycle;
import org.gaul.s3proxy.AuthenticationType;
import org.gaul.s3proxy.S3Proxy;
import org.jclouds.ContextBuilder;
import org.jclouds.blobstore.BlobStoreContext;
import org.jclouds.blobstore.options.ListContainerOptions;

/** A real S3 API (S3Proxy) on loopback, storing objects in memory, started in this JVM. */
final class S3Server implements AutoCloseable {
    static final String ACCESS_KEY = "AKIA"
            + UUID.randomUUID().toString().replace("-", "").substring(0, 16).toUpperCase();
    static final String SECRET_KEY = UUID.randomUUID() + "/" + UUID.randomUUID();
    private final S3Proxy proxy;
    private final BlobStoreContext store;

    S3Server() throws Exception {
        store = ContextBuilder.newBuilder("transient")
                .credentials(ACCESS_KEY, SECRET_KEY)
                .overrides(new Properties())
                .build(BlobStoreContext.class);
        proxy = S3Proxy.builder()
                .blobStore(store.getBlobStore())
                .endpoint(URI.create("http://127.0.0.1:0"))
                .awsAuthentication(AuthenticationType.AWS_V2_OR_V4, ACCESS_KEY, SECRET_KEY)
                .build();
        proxy.start();
        while (!AbstractLifeCycle.STARTED.equals(proxy.getState())) {
            Thread.sleep(10);
        }
    }

    String endpoint() {
        return "http://127.0.0.1:" + proxy.getPort();
    }

    void createBucket(String bucket) {
        store.getBlobStore().createContainerInLocation(null, bucket);
    }

    void put(String bucket, String key, String content) {
        store.getBlobStore()
                .putBlob(
                        bucket,
                        store.getBlobStore().blobBuilder(key).payload(content).build());
    }

    void put(String bucket, String key, byte[] content) {
        store.getBlobStore()
                .putBlob(
                        bucket,
                        store.getBlobStore().blobBuilder(key).payload(content).build());
    }

    /** The keys of a bucket under a prefix. */
    List<String> keys(String bucket, String prefix) {
        List<String> keys = new ArrayList<>();
        for (var item : store.getBlobStore()
                .list(bucket, ListContainerOptions.Builder.prefix(prefix).recursive())) {
            keys.add(item.getName());
        }
        return keys;
    }

    String get(String bucket, String key) throws Exception {
        var blob = store.getBlobStore().getBlob(bucket, key);
        if (blob == null) {
            return null;
        }
        try (var in = blob.getPayload().openStream()) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    @Override
    public void close() throws Exception {
        proxy.stop();
        store.close();
    }
}
