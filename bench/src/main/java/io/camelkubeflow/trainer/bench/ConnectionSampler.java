package io.camelkubeflow.trainer.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Samples, every 20 ms, how many TCP connections to a local port are established (from /proc/net/tcp and tcp6, the
 * server side of each connection), and keeps the peak above the first sample: the connections a phase opened beyond
 * those already open (idle pooled ones of earlier phases). Linux only; elsewhere it answers -1.
 */
final class ConnectionSampler implements AutoCloseable {
    private final String portHex;
    private final AtomicInteger peak = new AtomicInteger(-1);
    private volatile int baseline = -1;
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread thread = new Thread(r, "connection-sampler");
        thread.setDaemon(true);
        return thread;
    });

    ConnectionSampler(int port) {
        this.portHex = String.format(Locale.ROOT, "%04X", port);
        sample();
        timer.scheduleAtFixedRate(this::sample, 20, 20, TimeUnit.MILLISECONDS);
    }

    /** The most connections open at once beyond those open when sampling began. */
    int peakAdded() {
        return peak.get() < 0 ? -1 : Math.max(0, peak.get() - baseline);
    }

    private void sample() {
        int established = count(Path.of("/proc/net/tcp")) + count(Path.of("/proc/net/tcp6"));
        if (baseline < 0) {
            baseline = established;
        }
        peak.accumulateAndGet(established, Math::max);
    }

    private int count(Path table) {
        try {
            List<String> lines = Files.readAllLines(table);
            int count = 0;
            for (String line : lines.subList(1, lines.size())) {
                String[] cells = line.trim().split("\\s+");
                // local_address is ip:port in hex; state 01 is ESTABLISHED
                if (cells.length > 3 && cells[1].endsWith(":" + portHex) && "01".equals(cells[3])) {
                    count++;
                }
            }
            return count;
        } catch (IOException e) {
            return 0;
        }
    }

    @Override
    public void close() {
        timer.shutdownNow();
    }
}
