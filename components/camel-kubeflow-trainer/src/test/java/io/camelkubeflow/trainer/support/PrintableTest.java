package io.camelkubeflow.trainer.support;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** What a refusal may quote of its input: no character that moves, hides or repaints what a log reader sees. */
class PrintableTest {
    /** A character that ends a line or changes a terminal, by any definition a log reader or terminal may use. */
    static boolean unsafe(String message) {
        return message.codePoints()
                .anyMatch(c -> Character.isISOControl(c)
                        || c == 0x2028
                        || c == 0x2029
                        || Character.getType(c) == Character.FORMAT
                        || Character.getType(c) == Character.SURROGATE);
    }

    @Test
    void lineBreaksAndControlsBecomeVisibleEscapes() {
        assertEquals(
                "x\\r\\n2026-01-01 INFO forged\\u001b[2K.py",
                Printable.escape("x\r\n2026-01-01 INFO forged\u001b[2K.py"));
        assertEquals(
                "a\\u0000b\\u007fc\\u0085d\\u2028e\\u2029f\\tg",
                Printable.escape("a\u0000b\u007fc\u0085d\u2028e\u2029f\tg"));
        // a bidi override reorders what a reader sees; a lone surrogate is no character at all
        assertEquals("evil\\u202egnp.py \\ud800", Printable.escape("evil\u202egnp.py \ud800"));
    }

    @Test
    void otherTextIsKeptAsItIsAndEscapingTwiceChangesNothing() {
        String text = "naïve 数据 \uD83D\uDE80 C:\\path 'quoted'";
        assertSame(text, Printable.escape(text));
        String once = Printable.escape("a\r\nb\u001b");
        assertEquals(once, Printable.escape(once));
        assertTrue(!unsafe(once));
    }

    @Test
    void aRefusalNeverCarriesRawInputInItsFieldOrMessage() {
        InvalidOptionException refused = new InvalidOptionException("labels.a\nb", "'v\r\nINFO forged' is bad");
        assertEquals("Invalid 'labels.a\\nb': 'v\\r\\nINFO forged' is bad", refused.getMessage());
        assertEquals("labels.a\\nb", refused.getField());
        assertEquals("Invalid 'x': 'v\\r\\nINFO forged' is bad", refused.as("x").getMessage());
    }
}
