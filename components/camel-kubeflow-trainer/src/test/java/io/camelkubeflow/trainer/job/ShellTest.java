package io.camelkubeflow.trainer.job;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.camelkubeflow.trainer.support.InvalidOptionException;
import java.util.List;
import org.junit.jupiter.api.Test;

class ShellTest {

    @Test
    void splitsLikeAShellWithoutExpanding() {
        assertEquals(
                List.of("python", "-u", "train.py", "--lr", "0.1"),
                Shell.split("command", "python -u train.py  --lr 0.1"));
        assertEquals(
                List.of("a b", "c'd", "e\"f", "$HOME", "g h"),
                Shell.split("args", "'a b' \"c'd\" \"e\\\"f\" '$HOME' g\\ h"));
        assertEquals(List.of("x", ""), Shell.split("args", "x ''"));
        assertEquals(List.of(), Shell.split("args", "   "));
    }

    @Test
    void escapesAtTheEndOfALineOrAQuoteStayWhatTheyAre() {
        // a backslash with nothing after it is a backslash
        assertEquals(List.of("a\\"), Shell.split("args", "a\\"));
        // inside double quotes a backslash escapes only a quote or a backslash
        assertEquals(List.of("a\\"), Shell.split("args", "\"a\\\\\""));
        assertEquals(List.of("a\\n"), Shell.split("args", "\"a\\n\""));
        assertEquals(List.of("ab", "c"), Shell.split("args", "a'b' c"));
        assertEquals(List.of("", "x"), Shell.split("args", "\"\" x"));
        // an escaped quote as the last character leaves the quote open
        assertEquals(
                "args",
                assertThrows(InvalidOptionException.class, () -> Shell.split("args", "\"a\\\""))
                        .getField());
        assertEquals(
                "args",
                assertThrows(InvalidOptionException.class, () -> Shell.split("args", "'"))
                        .getField());
    }

    @Test
    void unclosedQuotesNameTheField() {
        assertEquals(
                "command",
                assertThrows(InvalidOptionException.class, () -> Shell.split("command", "python 'train.py"))
                        .getField());
        assertEquals(
                "args",
                assertThrows(InvalidOptionException.class, () -> Shell.split("args", "\"a"))
                        .getField());
    }

    @Test
    void quotesOnlyWhatNeedsIt() {
        assertEquals("torch==2.5.0", Shell.quote("torch==2.5.0"));
        assertEquals("'numpy>=2'", Shell.quote("numpy>=2"));
        assertEquals("''", Shell.quote(""));
        assertEquals("'it'\\''s'", Shell.quote("it's"));
    }
}
