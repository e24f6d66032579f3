package io.camelkubeflow.trainer.routes;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.logging.SimpleFormatter;

/** Keeps every log record of the JVM (the app logs through JUL's root logger) as text, to scan it for secrets. */
final class LogCapture extends Handler {
    private static final LogCapture INSTANCE = new LogCapture();
    private final StringBuilder text = new StringBuilder();
    private final SimpleFormatter formatter = new SimpleFormatter();

    private LogCapture() {
    }

    /** Starts capturing (once per JVM) from now on. */
    static synchronized void install() {
        Logger root = Logger.getLogger("");
        for (Handler handler : root.getHandlers()) {
            if (handler == INSTANCE) {
                return;
            }
        }
        root.addHandler(INSTANCE);
    }

    static String text() {
        synchronized (INSTANCE.text) {
            return INSTANCE.text.toString();
        }
    }

    @Override
    public void publish(LogRecord record) {
        StringBuilder line = new StringBuilder(record.getLoggerName()).append(": ").append(formatter.formatMessage(record));
        if (record.getThrown() != null) {
            StringWriter trace = new StringWriter();
            record.getThrown().printStackTrace(new PrintWriter(trace));
            line.append('\n').append(trace);
        }
        synchronized (text) {
            text.append(line).append('\n');
        }
    }

    @Override
    public void flush() {
    }

    @Override
    public void close() {
    }
}
