package io.camelkubeflow.trainer.support;

/**
 * Text from a caller as it may stand in a message that is logged or answered: every character that would move or
 * hide what a reader sees (line breaks CR, LF, NEL, U+2028/U+2029; ESC and the other controls, DEL; bidi overrides and
 * other invisible format characters; a lone surrogate) becomes a visible escape as Java and JSON write it
 * ({@code \r}, {@code \n}, {@code \t}, {@code \u001b}), so a refused value can never forge a second log line or
 * repaint the terminal. The exceptions that quote input build their messages through it.
 */
public final class Printable {
    private Printable() {}

    /** The text with each such character escaped; other text, backslashes included, as it is. */
    public static String escape(String text) {
        if (text == null || text.codePoints().noneMatch(Printable::hidden)) {
            return text;
        }
        StringBuilder shown = new StringBuilder(text.length() + 16);
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            boolean pair = Character.isHighSurrogate(c)
                    && i + 1 < text.length()
                    && Character.isLowSurrogate(text.charAt(i + 1));
            if (pair) {
                int codePoint = text.codePointAt(i);
                if (hidden(codePoint)) {
                    shown.append(unicodeEscape(c)).append(unicodeEscape(text.charAt(i + 1)));
                } else {
                    shown.appendCodePoint(codePoint);
                }
                i++;
            } else if (hidden(c)) {
                shown.append(
                        switch (c) {
                            case '\r' -> "\\r";
                            case '\n' -> "\\n";
                            case '\t' -> "\\t";
                            case '\b' -> "\\b";
                            case '\f' -> "\\f";
                            default -> unicodeEscape(c);
                        });
            } else {
                shown.append(c);
            }
        }
        return shown.toString();
    }

    private static boolean hidden(int codePoint) {
        return switch (Character.getType(codePoint)) {
            case Character.CONTROL,
                    Character.FORMAT,
                    Character.LINE_SEPARATOR,
                    Character.PARAGRAPH_SEPARATOR,
                    Character.SURROGATE,
                    Character.UNASSIGNED,
                    Character.PRIVATE_USE -> true;
            default -> false;
        };
    }

    private static String unicodeEscape(char c) {
        return String.format("\\u%04x", (int) c);
    }
}
