package io.camelkubeflow.trainer.job;

import io.camelkubeflow.trainer.support.InvalidOptionException;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/** Quoting for bash scripts the component writes, and word splitting for commands given as one string. */
public final class Shell {
    private static final Pattern SAFE_WORD = Pattern.compile("[A-Za-z0-9_./=:,+@%^-]+");

    private Shell() {}

    /**
     * Quotes one word so bash passes it on byte for byte: a word of plain characters stays bare, anything else goes
     * in single quotes, inside which bash expands nothing ({@code $}, backticks, {@code \}, globs and newlines are
     * literal); a single quote itself is written as {@code '\''}.
     */
    public static String quote(String word) {
        if (!word.isEmpty() && SAFE_WORD.matcher(word).matches()) {
            return word;
        }
        return "'" + word.replace("'", "'\\''") + "'";
    }

    public static String join(List<String> words) {
        return words.stream().map(Shell::quote).collect(Collectors.joining(" "));
    }

    /**
     * Splits a command line as a POSIX shell would split words, without expanding anything: whitespace separates,
     * single quotes keep everything, double quotes keep everything but {@code \"} and {@code \\}, a backslash
     * outside quotes escapes the next character.
     */
    public static List<String> split(String field, String line) {
        List<String> words = new ArrayList<>();
        StringBuilder word = new StringBuilder();
        boolean inWord = false;
        int i = 0;
        while (i < line.length()) {
            char c = line.charAt(i);
            if (c == '\'') {
                int end = line.indexOf('\'', i + 1);
                if (end < 0) {
                    throw new InvalidOptionException(
                            field,
                            "unclosed single quote in [" + line
                                    + "]; close the quote, or give the words as a list (a JSON array, a List header)");
                }
                word.append(line, i + 1, end);
                inWord = true;
                i = end + 1;
            } else if (c == '"') {
                i++;
                while (i < line.length() && line.charAt(i) != '"') {
                    char d = line.charAt(i);
                    if (d == '\\'
                            && i + 1 < line.length()
                            && (line.charAt(i + 1) == '"' || line.charAt(i + 1) == '\\')) {
                        d = line.charAt(++i);
                    }
                    word.append(d);
                    i++;
                }
                if (i >= line.length()) {
                    throw new InvalidOptionException(
                            field,
                            "unclosed double quote in [" + line
                                    + "]; close the quote, or give the words as a list (a JSON array, a List header)");
                }
                inWord = true;
                i++;
            } else if (c == '\\' && i + 1 < line.length()) {
                word.append(line.charAt(i + 1));
                inWord = true;
                i += 2;
            } else if (Character.isWhitespace(c)) {
                if (inWord) {
                    words.add(word.toString());
                    word.setLength(0);
                    inWord = false;
                }
                i++;
            } else {
                word.append(c);
                inWord = true;
                i++;
            }
        }
        if (inWord) {
            words.add(word.toString());
        }
        return words;
    }
}
