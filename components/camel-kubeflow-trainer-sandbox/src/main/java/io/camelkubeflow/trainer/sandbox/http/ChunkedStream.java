package io.camelkubeflow.trainer.sandbox.http;

import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServerResponse;
import java.util.Iterator;

/**
 * A streamed response written from any thread; ends once. It is chunked from its first write on; an answer sent
 * whole in one small piece goes with a Content-Length instead, as Go's HTTP server sends a short handler output.
 */
final class ChunkedStream {
    /** What Go's HTTP server holds back before it starts chunking a response (net/http's bufferBeforeChunking). */
    private static final int UNCHUNKED_BYTES = 2048;

    private final HttpServerResponse http;
    private boolean ended;

    ChunkedStream(HttpServerResponse http) {
        this.http = http;
    }

    /** Writes {@code text}; false once the stream has ended or its connection is gone. */
    boolean write(String text) {
        return write(Buffer.buffer(text));
    }

    /** Writes {@code bytes}; false once the stream has ended or its connection is gone. */
    synchronized boolean write(Buffer bytes) {
        if (ended || http.closed() || http.ended()) {
            return false;
        }
        if (!http.headWritten()) {
            http.setChunked(true);
        }
        http.write(bytes);
        return true;
    }

    /**
     * Sends {@code chunks} and ends the stream (or, {@code thenBreak}, breaks its connection, as a failing network
     * would), taking the next chunk only when the connection's write queue has room: the client's reading paces the
     * sender, and an answer is never held whole. Called on the response's event loop (the request handler), where
     * its drain handler runs too.
     */
    void send(Iterator<Buffer> chunks, boolean thenBreak) {
        if (!http.headWritten() && !chunks.hasNext() && !thenBreak) {
            end();
            return;
        }
        if (!http.headWritten() && chunks.hasNext()) {
            Buffer first = chunks.next();
            if (!chunks.hasNext() && first.length() <= UNCHUNKED_BYTES && !thenBreak) {
                synchronized (this) {
                    ended = true;
                    http.end(first);
                }
                return;
            }
            write(first);
        }
        while (chunks.hasNext()) {
            if (!write(chunks.next())) {
                return;
            }
            if (http.writeQueueFull()) {
                http.drainHandler(v -> send(chunks, thenBreak));
                return;
            }
        }
        if (thenBreak) {
            synchronized (this) {
                ended = true;
                // HTTP/1.1: the connection closes before the last chunk
                http.reset();
            }
        } else {
            end();
        }
    }

    synchronized void end() {
        if (!ended) {
            ended = true;
            if (!http.closed() && !http.ended()) {
                http.end();
            }
        }
    }

    void onClose(Runnable action) {
        http.closeHandler(v -> action.run());
    }
}
