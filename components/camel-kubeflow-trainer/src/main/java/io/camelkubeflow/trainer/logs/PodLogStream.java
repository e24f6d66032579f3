package io.camelkubeflow.trainer.logs;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.net.URLEncoder;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;

import io.fabric8.kubernetes.api.model.Status;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.http.AsyncBody;
import io.fabric8.kubernetes.client.http.HttpResponse;

/**
 * One read of a pod container's log ({@code GET .../pods/{name}/log}), as a stream of bytes
 * that the API server keeps sending while the reader works on what came before: up to {@link #PREFETCH_BYTES} are
 * taken ahead. fabric8's own log stream asks for the next bytes only once the reader has used up the last ones, so
 * reading and the reader's work on the lines took turns, and a read without follow held the whole log in one string.
 * A refusal (4xx, 5xx) is a {@link KubernetesClientException} with the API server's status, as fabric8's are.
 */
final class PodLogStream extends InputStream {
    /** How many bytes may wait for the reader before the stream stops asking the API server for more. */
    static final int PREFETCH_BYTES = 4 * 1024 * 1024;

    /**
     * What to read: the container, and the API server's log parameters (null when not given). Timestamps are asked
     * for when the read may be resumed: a follow, and the previous container's log read within one.
     */
    record Query(String container, boolean follow, boolean previous, String sinceTime, Integer tailLines,
            Integer sinceSeconds) {
        boolean timestamps() {
            return follow || previous;
        }

        String parameters() {
            StringBuilder query = new StringBuilder("?container=").append(encode(container));
            if (timestamps()) {
                query.append("&timestamps=true");
            }
            if (follow) {
                query.append("&follow=true");
            }
            if (previous) {
                query.append("&previous=true");
            }
            if (sinceTime != null) {
                query.append("&sinceTime=").append(encode(sinceTime));
            }
            if (tailLines != null) {
                query.append("&tailLines=").append(tailLines);
            }
            if (sinceSeconds != null) {
                query.append("&sinceSeconds=").append(sinceSeconds);
            }
            return query.toString();
        }

        private static String encode(String value) {
            return URLEncoder.encode(value, StandardCharsets.UTF_8);
        }
    }

    private final ArrayDeque<ByteBuffer> buffers = new ArrayDeque<>();
    private final CompletableFuture<AsyncBody> body = new CompletableFuture<>();
    private long buffered;
    /** Whether the stream waits for the reader before asking for more. */
    private boolean paused;
    private boolean done;
    private Throwable failure;
    private boolean closed;
    /** Set before a refusal's body is asked for: its bytes are the API server's Status, not log lines. */
    private volatile boolean refused;

    private PodLogStream() {
    }

    /**
     * Opens the read: answers once the API server answered with the log's first bytes to come, or throws its refusal.
     */
    static InputStream open(KubernetesClient client, String namespace, String pod, Query query) throws IOException {
        PodLogStream stream = new PodLogStream();
        String url = client.getMasterUrl().toString().replaceFirst("/?$", "/") + "api/v1/namespaces/"
                + namespace + "/pods/" + pod + "/log" + query.parameters();
        var http = client.getHttpClient();
        ByteArrayOutputStream refusal = new ByteArrayOutputStream();
        CompletableFuture<HttpResponse<AsyncBody>> response = http.consumeBytes(
                http.newHttpRequestBuilder().uri(url).build(), (chunk, asyncBody) -> {
                    // the response's status is known before its first bytes: a refusal's body is its Status
                    if (stream.refused) {
                        for (ByteBuffer buffer : chunk) {
                            byte[] bytes = new byte[buffer.remaining()];
                            buffer.get(bytes);
                            refusal.write(bytes);
                        }
                        asyncBody.consume();
                    } else {
                        stream.arrived(chunk, asyncBody);
                    }
                });
        HttpResponse<AsyncBody> answer;
        try {
            answer = response.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted while opening the log of " + pod);
        } catch (ExecutionException e) {
            throw e.getCause() instanceof IOException io ? io : new IOException(e.getCause());
        }
        if (!answer.isSuccessful()) {
            stream.refused = true;
            answer.body().consume();
            try {
                answer.body().done().get();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (ExecutionException e) {
                // the refusal's body is lost: its code still says what happened
            }
            throw refusal(client, answer.code(), refusal.toString(StandardCharsets.UTF_8), pod);
        }
        stream.body.complete(answer.body());
        answer.body().done().whenComplete((ignored, failed) -> stream.ended(failed));
        answer.body().consume();
        return stream;
    }

    private static KubernetesClientException refusal(KubernetesClient client, int code, String body, String pod) {
        Status status;
        try {
            status = client.getKubernetesSerialization().unmarshal(body, Status.class);
        } catch (RuntimeException notStatus) {
            status = null;
        }
        if (status == null || status.getCode() == null) {
            status = new Status();
            status.setCode(code);
            status.setMessage(body.isBlank() ? "HTTP " + code + " reading the log of " + pod : body);
        }
        return new KubernetesClientException(status);
    }

    private void arrived(List<ByteBuffer> chunk, AsyncBody asyncBody) {
        boolean more;
        synchronized (this) {
            for (ByteBuffer buffer : chunk) {
                buffers.add(buffer);
                buffered += buffer.remaining();
            }
            more = buffered < PREFETCH_BYTES;
            paused = !more;
            notifyAll();
        }
        // outside the lock: the HTTP client may hand over the next bytes from within this call
        if (more) {
            asyncBody.consume();
        }
    }

    private synchronized void ended(Throwable failed) {
        done = true;
        failure = failed;
        notifyAll();
    }

    @Override
    public int read() throws IOException {
        byte[] one = new byte[1];
        return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
    }

    @Override
    public int read(byte[] target, int offset, int length) throws IOException {
        if (length == 0) {
            return 0;
        }
        AsyncBody resume = null;
        int read;
        synchronized (this) {
            while (buffers.isEmpty() && !done && !closed) {
                try {
                    wait();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    close();
                    throw new InterruptedIOException("interrupted while reading a log");
                }
            }
            if (closed) {
                throw new IOException("log stream closed");
            }
            if (buffers.isEmpty()) {
                if (failure != null) {
                    throw failure instanceof IOException io ? io : new IOException(failure);
                }
                return -1;
            }
            ByteBuffer first = buffers.peek();
            read = Math.min(length, first.remaining());
            first.get(target, offset, read);
            if (!first.hasRemaining()) {
                buffers.poll();
            }
            buffered -= read;
            if (paused && buffered < PREFETCH_BYTES / 2) {
                paused = false;
                resume = body.getNow(null);
            }
        }
        if (resume != null) {
            resume.consume();
        }
        return read;
    }

    /** The bytes at hand: a reader asks to know whether the next read would wait for the API server. */
    @Override
    public synchronized int available() {
        return (int) Math.min(Integer.MAX_VALUE, buffered);
    }

    @Override
    public void close() {
        boolean unfinished;
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            unfinished = !done;
            buffers.clear();
            notifyAll();
        }
        // only a response still coming is cancelled: cancelling one that ended closes its connection, which the
        // client has pooled again by then, and the client's next request fails with "Connection was closed"
        if (unfinished) {
            body.thenAccept(AsyncBody::cancel);
        }
    }
}
