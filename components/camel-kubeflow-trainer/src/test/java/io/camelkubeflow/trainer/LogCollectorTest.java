package io.camelkubeflow.trainer;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The body's byte budget counts what the lines take in UTF-8. */
class LogCollectorTest {
    @Test
    void aLineIsCountedInTheBytesUtf8EncodesItIn() {
        for (String text : List.of(
                "",
                "plain ascii",
                "caf\u00e9",
                "\u20ac 12",
                "emoji \uD83D\uDE80 done",
                "lone \uD83D surrogate",
                "lone \uDE80 low",
                "\uD83D",
                "mixed \u00e9\u20ac\uD83D\uDE80x")) {
            assertEquals(text.getBytes(StandardCharsets.UTF_8).length, LogCollector.utf8Length(text), text);
        }
    }

    @Test
    void theBodyKeepsTheNewestLinesThatFitTheBudget() {
        // each line is 5 bytes in UTF-8 ("\u00e9" takes 2) plus its newline: two fit in 12 bytes, three do not
        LogCollector collector = collected(12, "a\u00e9bc", "d\u00e9ef", "g\u00e9hi");
        assertEquals("d\u00e9ef\ng\u00e9hi\n", collector.body());
        assertEquals(true, collector.truncated());
        assertEquals(3, collector.lines());
    }

    @Test
    void linesWhoseCharsFitButWhoseBytesDoNotAreDroppedOldestFirst() {
        // two lines are 10 chars with their newlines but 12 bytes: in 11 bytes only the newest fits
        LogCollector collector = collected(11, "d\u00e9ef", "g\u00e9hi");
        assertEquals("g\u00e9hi\n", collector.body());
        assertEquals(true, collector.truncated());
        assertEquals(2, collector.lines());
    }

    @Test
    void aLogThatFitsIsWholeAndNotTruncated() {
        LogCollector collector = collected(12, "d\u00e9ef", "g\u00e9hi");
        assertEquals("d\u00e9ef\ng\u00e9hi\n", collector.body());
        assertEquals(false, collector.truncated());
    }

    /** A collector with this body budget, no destination, that was given these lines of node 0. */
    private static LogCollector collected(long maxBytes, String... lines) {
        LogCollector collector = new LogCollector(false, maxBytes, null, null, 1, null);
        for (String line : lines) {
            collector.line("node-0", line);
        }
        return collector;
    }
}
