package io.camelkubeflow.trainer;

import io.camelkubeflow.trainer.support.Printable;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import org.apache.camel.AsyncCallback;
import org.apache.camel.Exchange;

/**
 * What an endpoint's producers are doing, for the dev console: exchanges in flight (a train's create, a wait, a
 * follow of logs: each holds its exchange until it ends), exchanges done and failed, and the last failure. Only counts
 * and the failure's type and message, escaped: the component's exceptions never quote a secret.
 */
final class ExchangeActivity {
    /** The longest failure message kept; a validation message quoting a long value is cut here. */
    static final int MESSAGE_LIMIT = 500;

    private final AtomicInteger inFlight = new AtomicInteger();
    private final LongAdder done = new LongAdder();
    private final LongAdder failed = new LongAdder();
    private volatile Failure lastFailure;

    /** The last failed exchange's exception: when, its class, its message (escaped, cut at MESSAGE_LIMIT). */
    record Failure(Instant at, String type, String message) {}

    /** Counts the exchange in flight until the returned callback is called, which then calls {@code callback}. */
    AsyncCallback started(Exchange exchange, AsyncCallback callback) {
        inFlight.incrementAndGet();
        return doneSync -> {
            // before the exchange continues: whoever the route answers sees the counts of its own exchange already
            ended(exchange);
            callback.done(doneSync);
        };
    }

    private void ended(Exchange exchange) {
        Exception failure = exchange.getException();
        if (failure != null) {
            failed.increment();
            String message = Printable.escape(failure.getMessage());
            if (message != null && message.length() > MESSAGE_LIMIT) {
                message = message.substring(0, MESSAGE_LIMIT) + "...";
            }
            lastFailure = new Failure(Instant.now(), failure.getClass().getName(), message);
        }
        done.increment();
        inFlight.decrementAndGet();
    }

    int inFlight() {
        return inFlight.get();
    }

    long done() {
        return done.sum();
    }

    long failed() {
        return failed.sum();
    }

    /** Null when no exchange failed. */
    Failure lastFailure() {
        return lastFailure;
    }
}
