package io.camelkubeflow.trainer.testing;

import java.time.Duration;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/** Waits for something asynchronous to become true, failing with what was seen instead once the time is up. */
public final class Eventually {
    private Eventually() {}

    public static void await(Duration timeout, BooleanSupplier condition, Supplier<String> failure)
            throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError(failure.get());
            }
            Thread.sleep(20);
        }
    }
}
