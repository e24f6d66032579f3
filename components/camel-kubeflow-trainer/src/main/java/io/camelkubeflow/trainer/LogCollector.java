package io.camelkubeflow.trainer;

import static io.camelkubeflow.trainer.KubeflowTrainerConstants.*;

import io.camelkubeflow.trainer.api.TrainJobRef;
import io.camelkubeflow.trainer.logs.LineBatch;
import io.camelkubeflow.trainer.logs.LogSink;
import io.camelkubeflow.trainer.logs.LogStep;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import org.apache.camel.Exchange;
import org.apache.camel.ProducerTemplate;
import org.apache.camel.RuntimeCamelException;

/**
 * Gathers log lines for the message body, keeping at most {@code maxBytes} (the newest lines: the end of a log says
 * most about how a job ended), and sends them on in chunks to a destination endpoint when one is set.
 */
final class LogCollector implements LogSink {
    private final boolean prefixSteps;
    private final long maxBytes;
    private final ProducerTemplate destination;
    private final String destinationUri;
    /** The chunks sent to the destination; null without one. */
    private final LineBatch chunks;

    private final TrainJobRef job;
    /**
     * The newest lines, as long as their chars (with line ends) fit {@code maxBytes}: a line takes at least as many
     * bytes in UTF-8 as it has chars, so an older line beyond that can never be in the body. Their exact size is
     * measured once, for what is left when the body is made: measuring every line as it came was a quarter of the
     * reader's time in the bench's log reads (JFR).
     */
    private final Deque<String> kept = new ArrayDeque<>();

    private long keptChars;
    /** Whether the kept lines fit {@code maxBytes} in UTF-8 as they are: body() and truncated() measure them once. */
    private boolean fitted;

    private long lines;
    private boolean truncated;

    LogCollector(
            boolean prefixSteps,
            long maxBytes,
            ProducerTemplate destination,
            String destinationUri,
            int chunkLines,
            TrainJobRef job) {
        this.prefixSteps = prefixSteps;
        this.maxBytes = maxBytes;
        this.destination = destination;
        this.destinationUri = destinationUri;
        this.chunks = destinationUri == null ? null : new LineBatch(chunkLines, this::send);
        this.job = job;
    }

    @Override
    public void line(String step, String text) {
        lines++;
        String line = prefixSteps ? LogStep.prefixed(step, text) : text;
        kept.addLast(line);
        fitted = false;
        keptChars += line.length() + 1;
        while (keptChars > maxBytes && !kept.isEmpty()) {
            keptChars -= kept.removeFirst().length() + 1;
            truncated = true;
        }
        if (chunks != null) {
            chunks.add(step, line);
        }
    }

    /** Sends what is left of the last chunk. */
    void flush() {
        if (chunks != null) {
            chunks.flush();
        }
    }

    private void send(String step, List<String> chunk) {
        String body = String.join("\n", chunk);
        Exchange sent = destination.send(destinationUri, exchange -> {
            exchange.getMessage().setBody(body);
            TrainJobHeaders.identity(exchange.getMessage(), job);
            exchange.getMessage().setHeader(LOG_STEP, step);
        });
        if (sent.getException() != null) {
            // a destination that refuses lines fails the read: going on would drop lines without a word
            throw new RuntimeCamelException(
                    "logDestination " + destinationUri + " failed on a log chunk of " + job + ": "
                            + sent.getException().getMessage(),
                    sent.getException());
        }
    }

    /**
     * The bytes of the text in UTF-8, as {@code getBytes(UTF_8).length} counts them, without encoding it (a copy of
     * every line was a log read's second cost).
     */
    static long utf8Length(String text) {
        long bytes = 0;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c < 0x80) {
                bytes++;
            } else if (c < 0x800) {
                bytes += 2;
            } else if (Character.isHighSurrogate(c)
                    && i + 1 < text.length()
                    && Character.isLowSurrogate(text.charAt(i + 1))) {
                bytes += 4;
                i++;
            } else {
                // an unpaired surrogate is encoded as '?'
                bytes += Character.isSurrogate(c) ? 1 : 3;
            }
        }
        return bytes;
    }

    /** The newest lines whose UTF-8 bytes (with line ends) fit {@code maxBytes}, each ending with a line end. */
    String body() {
        fitBytes();
        StringBuilder body = new StringBuilder((int) Math.min(Integer.MAX_VALUE - 8, keptChars));
        kept.forEach(line -> body.append(line).append('\n'));
        return body.toString();
    }

    /** Drops the oldest kept lines until the rest fit {@code maxBytes} in UTF-8. */
    private void fitBytes() {
        if (fitted) {
            return;
        }
        fitted = true;
        long bytes = 0;
        int fitting = 0;
        for (var newestFirst = kept.descendingIterator(); newestFirst.hasNext(); fitting++) {
            bytes += utf8Length(newestFirst.next()) + 1;
            if (bytes > maxBytes) {
                break;
            }
        }
        while (kept.size() > fitting) {
            keptChars -= kept.removeFirst().length() + 1;
            truncated = true;
        }
    }

    long lines() {
        return lines;
    }

    boolean truncated() {
        fitBytes();
        return truncated;
    }
}
