package io.camelkubeflow.trainer.logs;

import io.fabric8.kubernetes.api.model.Status;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.http.AsyncBody;
import io.fabric8.kubernetes.client.http.HttpResponse;
import io.fabric8.kubernetes.client.utils.URLUtils;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.URLEncoder;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * One read of a pod container's log ({@code GET .../pods/{name}/log}) as lines, without a thread of its own: the HTTP
 * client hands over bytes as they come, the reader takes the complete lines at hand and, when there are none, leaves a
 * task to be run when more bytes come. The API server keeps sending while the reader works on what came before, up to
 * {@link #PREFETCH_BYTES} ahead; beyond that the stream stops asking for more until the reader catches up.
 * A refusal (4xx, 5xx) is a {@link KubernetesClientException} with the API server's status, as fabric8's are.
 */
final class PodLogStream {
    /** How many bytes may wait for the reader before the stream stops asking the API server for more. */
    static final int PREFETCH_BYTES = 4 * 1024 * 1024;

    /**
     * What to read: the container, and the API server's log parameters (null when not given). Timestamps are asked
     * for when the read may be resumed: a follow, and the previous container's log read within one.
     */
    record Query(
            String container,
            boolean follow,
            boolean previous,
            String sinceTime,
            Integer tailLines,
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

    /**
     * Lines taken from the stream: their texts; when the query asked for timestamps, each line's timestamp as the
     * kubelet wrote it (null for a line that came without one; one String for a run of lines with the same time),
     * else null; and whether more may be at hand already (the take stopped at its limit).
     */
    record Lines(List<String> texts, List<String> stamps, boolean more) {
        static final Lines NONE = new Lines(List.of(), null, false);
    }

    /** The longest timestamp the kubelet writes before a line: RFC 3339 with nanoseconds and a zone offset. */
    private static final int MAX_STAMP = 35;

    /** Bytes come in here, under the lock. */
    private final ArrayDeque<ByteBuffer> buffers = new ArrayDeque<>();
    /** Bytes the reader took from {@link #buffers} and has not cut into lines yet: the reader's own. */
    private final ArrayDeque<ByteBuffer> taking = new ArrayDeque<>();

    private final CompletableFuture<AsyncBody> body = new CompletableFuture<>();
    /** The start of a line whose end has not come yet: the reader's own. */
    private byte[] partial = new byte[0];

    private int partialLength;
    private long buffered;
    /** Whether the stream waits for the reader before asking for more. */
    private boolean paused;

    private boolean done;
    private Throwable failure;
    private boolean closed;
    /** Run once when bytes come or the stream ends: the reader found nothing to take. */
    private Runnable waiting;
    /** Set before a refusal's body is asked for: its bytes are the API server's Status, not log lines. */
    private volatile boolean refused;
    /** Whether each line comes after its timestamp (the query asked for them). */
    private final boolean timestamps;
    /** The last timestamp cut from a line, as text and as its bytes: the reader's own. */
    private String lastStamp;

    private final byte[] lastStampBytes = new byte[MAX_STAMP];

    private PodLogStream(boolean timestamps) {
        this.timestamps = timestamps;
    }

    /** Opens the read: completes once the API server answered with the log to come, or fails with its refusal. */
    static CompletableFuture<PodLogStream> open(KubernetesClient client, String namespace, String pod, Query query) {
        PodLogStream stream = new PodLogStream(query.timestamps());
        String url = URLUtils.join(
                        client.getMasterUrl().toString(), "api", "v1", "namespaces", namespace, "pods", pod, "log")
                + query.parameters();
        var http = client.getHttpClient();
        ByteArrayOutputStream refusal = new ByteArrayOutputStream();
        CompletableFuture<HttpResponse<AsyncBody>> response =
                http.consumeBytes(http.newHttpRequestBuilder().uri(url).build(), (chunk, asyncBody) -> {
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
        return response.thenCompose(answer -> {
            if (!answer.isSuccessful()) {
                stream.refused = true;
                answer.body().consume();
                // the refusal's body may be lost: its code still says what happened
                return answer.body().done().handle((ignored, lost) -> {
                    throw refusal(client, answer.code(), refusal.toString(StandardCharsets.UTF_8), pod);
                });
            }
            stream.body.complete(answer.body());
            answer.body().done().whenComplete((ignored, failed) -> stream.ended(failed));
            answer.body().consume();
            return CompletableFuture.completedFuture(stream);
        });
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
        Runnable wake;
        synchronized (this) {
            if (closed) {
                // the reader is gone: what still comes before the cancellation takes effect is dropped
                return;
            }
            for (ByteBuffer buffer : chunk) {
                buffers.add(buffer);
                buffered += buffer.remaining();
            }
            more = buffered < PREFETCH_BYTES;
            paused = !more;
            wake = waiting;
            waiting = null;
        }
        // outside the lock: the HTTP client may hand over the next bytes from within this call
        if (more) {
            asyncBody.consume();
        }
        if (wake != null) {
            wake.run();
        }
    }

    private void ended(Throwable failed) {
        Runnable wake;
        synchronized (this) {
            done = true;
            failure = failed;
            wake = waiting;
            waiting = null;
        }
        if (wake != null) {
            wake.run();
        }
    }

    /**
     * Takes up to {@code max} complete lines at hand, without their line ends; once the stream has ended, its last
     * line even without an end. Takes nothing when no line is complete yet: see {@link #whenMore}. Called by one reader
     * at a time; the lines are cut outside the lock, so the HTTP client never waits for them to hand over more bytes.
     */
    Lines take(int max) {
        synchronized (this) {
            if (closed) {
                return Lines.NONE;
            }
            taking.addAll(buffers);
            buffers.clear();
        }
        List<String> lines = new ArrayList<>();
        List<String> stamps = timestamps ? new ArrayList<>() : null;
        long consumed = 0;
        while (lines.size() < max && !taking.isEmpty()) {
            ByteBuffer buffer = taking.peek();
            int start = buffer.position();
            int end = buffer.limit();
            int newline = -1;
            for (int i = start; i < end; i++) {
                if (buffer.get(i) == '\n') {
                    newline = i;
                    break;
                }
            }
            int taken = (newline < 0 ? end : newline + 1) - start;
            if (newline < 0) {
                keepPartial(buffer, start, end - start);
            } else if (partialLength == 0 && buffer.hasArray()) {
                cut(buffer.array(), buffer.arrayOffset() + start, newline - start, lines, stamps);
            } else {
                keepPartial(buffer, start, newline - start);
                cut(partial, 0, partialLength, lines, stamps);
                partialLength = 0;
            }
            buffer.position(start + taken);
            consumed += taken;
            if (!buffer.hasRemaining()) {
                taking.poll();
            }
        }
        AsyncBody resume = null;
        synchronized (this) {
            if (taking.isEmpty() && buffers.isEmpty() && done && partialLength > 0 && lines.size() < max) {
                cut(partial, 0, partialLength, lines, stamps);
                partialLength = 0;
            }
            buffered -= consumed;
            if (paused && buffered < PREFETCH_BYTES / 2) {
                paused = false;
                resume = body.getNow(null);
            }
        }
        if (resume != null) {
            resume.consume();
        }
        return new Lines(lines, stamps, lines.size() == max);
    }

    private void keepPartial(ByteBuffer buffer, int from, int length) {
        if (partialLength + length > partial.length) {
            partial = Arrays.copyOf(partial, Math.max(partialLength + length, partial.length * 2));
        }
        buffer.get(from, partial, partialLength, length);
        partialLength += length;
    }

    /**
     * Adds a line without its line end ({@code \n}, or {@code \r\n}) to {@code texts}; when lines come after their
     * timestamps, without it, and the timestamp to {@code stamps}. Each line is decoded once, and a timestamp only when
     * it differs from the last one (the lines a container writes at once share one).
     */
    private void cut(byte[] bytes, int offset, int length, List<String> texts, List<String> stamps) {
        if (length > 0 && bytes[offset + length - 1] == '\r') {
            length--;
        }
        if (stamps != null) {
            int stamp = stampLength(bytes, offset, length);
            if (stamp < 0) {
                stamps.add(null);
            } else {
                if (lastStamp == null
                        || lastStamp.length() != stamp
                        || !Arrays.equals(bytes, offset, offset + stamp, lastStampBytes, 0, stamp)) {
                    System.arraycopy(bytes, offset, lastStampBytes, 0, stamp);
                    lastStamp = new String(bytes, offset, stamp, StandardCharsets.US_ASCII);
                }
                stamps.add(lastStamp);
                offset += stamp + 1;
                length -= stamp + 1;
            }
        }
        texts.add(new String(bytes, offset, length, StandardCharsets.UTF_8));
    }

    /**
     * How long the timestamp the API server put before a line is (up to the space after it), or -1 when the line does
     * not start with one: a date and a time, {@code 2006-01-02T15:04:05...}; it is parsed only when a read resumes.
     */
    private static int stampLength(byte[] bytes, int offset, int length) {
        if (length < 21 || bytes[offset + 4] != '-' || bytes[offset + 10] != 'T') {
            return -1;
        }
        for (int i = 0; i <= Math.min(MAX_STAMP, length - 1); i++) {
            if (bytes[offset + i] == ' ') {
                return i >= 20 ? i : -1;
            }
        }
        return -1;
    }

    /**
     * When nothing is left to take and the stream goes on, runs {@code task} once bytes come or the stream ends (on the
     * HTTP client's thread) and answers true; else answers false at once: take again.
     */
    synchronized boolean whenMore(Runnable task) {
        if (buffers.isEmpty() && !done && !closed) {
            waiting = task;
            return true;
        }
        return false;
    }

    /** Whether everything was taken from a stream that ended (or was closed). */
    synchronized boolean finished() {
        return closed || done && buffers.isEmpty() && taking.isEmpty() && partialLength == 0;
    }

    /** Why the stream ended early (the connection broke, it was closed), or null when the log ended. */
    synchronized IOException failure() {
        if (closed) {
            return new IOException("log stream closed");
        }
        if (failure == null) {
            return null;
        }
        return failure instanceof IOException io ? io : new IOException(failure);
    }

    /** Ends the read; a reader waiting for more is run and finds the stream finished. */
    void close() {
        boolean unfinished;
        Runnable wake;
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            unfinished = !done;
            buffers.clear();
            wake = waiting;
            waiting = null;
        }
        // only a response still coming is cancelled: cancelling one that ended closes its connection, which the
        // client has pooled again by then, and the client's next request fails with "Connection was closed"
        if (unfinished) {
            body.thenAccept(AsyncBody::cancel);
        }
        if (wake != null) {
            wake.run();
        }
    }
}
