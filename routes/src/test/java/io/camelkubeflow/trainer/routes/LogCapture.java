package io.camelkubeflow.trainer.routes;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.logging.SimpleFormatter;
import org.jboss.logmanager.ExtLogRecord;

/**
 * Keeps every log record of the JVM (the app logs through JUL's root logger) as text, to scan it for secrets, and
 * each record's MDC (JBoss LogManager's records carry a copy), to check the fields log pipelines select by.
 */
final class LogCapture extends Handler {
    private static final LogCapture INSTANCE = new LogCapture();
    private final StringBuilder text = new StringBuilder();
    private final List<Map.Entry<String, Map<String, String>>> mdcByMessage = new CopyOnWriteArrayList<>();
    private final SimpleFormatter formatter = new SimpleFormatter();

    private LogCapture() {}

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

    /** The MDC of each captured line whose message contains the text, in order. */
    static List<Map<String, String>> mdcOfLinesContaining(String text) {
        return INSTANCE.mdcByMessage.stream()
                .filter(entry -> entry.getKey().contains(text))
                .map(Map.Entry::getValue)
                .toList();
    }

    @Override
    public void publish(LogRecord record) {
        String message = formatter.formatMessage(record);
        mdcByMessage.add(Map.entry(message, record instanceof ExtLogRecord ext ? ext.getMdcCopy() : Map.of()));
        StringBuilder line =
                new StringBuilder(record.getLoggerName()).append(": ").append(message);
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
    public void flush() {}

    @Override
    public void close() {}
}
