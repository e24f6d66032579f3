package io.camelkubeflow.trainer.job;

import io.camelkubeflow.trainer.support.InvalidOptionException;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Checks a label selector as the API server parses one ({@code team=vision,!gpu,tier in (a,b)}), so that a caller's
 * mistake is refused naming its field and the fix instead of reaching the API server as a 400 without either.
 */
public final class LabelSelectors {
    /**
     * What the API server's lexer skips between tokens: ' ', tab, CR and LF only. Any other character (a control
     * character, a Unicode space) is part of a key or value there, which its rules then refuse.
     */
    private static final String SPACE = "[ \\t\\r\\n]";

    private static final Pattern SET =
            Pattern.compile("(!?)([^ \\t\\r\\n]+)" + SPACE + "+(in|notin)" + SPACE + "*\\(([^()]*)\\)");
    private static final Pattern EQUALITY =
            Pattern.compile("([^=! \\t\\r\\n]+)" + SPACE + "*(==|=|!=)" + SPACE + "*([^=! \\t\\r\\n]*)");
    private static final Pattern EXISTS = Pattern.compile("!?([^=! \\t\\r\\n(),]+)");
    private static final Pattern AROUND = Pattern.compile("^" + SPACE + "+|" + SPACE + "+$");
    private static final String FORMS = "write requirements separated by commas: key=value, key!=value,"
            + " key in (a,b), key notin (a,b), key or !key (e.g. team=vision,!gpu)";

    private LabelSelectors() {}

    /** @throws InvalidOptionException naming {@code field} when {@code selector} is not one the API server accepts */
    public static void check(String field, String selector) {
        if (strip(selector).isEmpty()) {
            return;
        }
        for (String requirement : requirements(field, selector)) {
            Matcher set = SET.matcher(requirement);
            Matcher equality = EQUALITY.matcher(requirement);
            Matcher exists = EXISTS.matcher(requirement);
            if (set.matches() && set.group(1).isEmpty()) {
                key(field, set.group(2));
                if (strip(set.group(4)).isEmpty()) {
                    throw new InvalidOptionException(
                            field,
                            "'" + requirement + "' has no values; give at least" + " one, e.g. " + set.group(2) + " "
                                    + set.group(3) + " (a,b)");
                }
                for (String value : set.group(4).split(",", -1)) {
                    value(field, strip(value));
                }
            } else if (equality.matches()) {
                key(field, equality.group(1));
                value(field, equality.group(3));
            } else if (exists.matches()) {
                key(field, exists.group(1));
            } else {
                throw new InvalidOptionException(
                        field, "'" + requirement + "' is not a label selector requirement; " + FORMS);
            }
        }
    }

    /** The requirements, split at the commas outside parentheses. */
    private static List<String> requirements(String field, String selector) {
        List<String> requirements = new ArrayList<>();
        int depth = 0;
        int start = 0;
        for (int i = 0; i < selector.length(); i++) {
            char c = selector.charAt(i);
            depth += c == '(' ? 1 : c == ')' ? -1 : 0;
            if (depth < 0 || depth > 1) {
                throw new InvalidOptionException(field, "'" + selector + "' has unbalanced parentheses; " + FORMS);
            }
            if (c == ',' && depth == 0) {
                requirements.add(strip(selector.substring(start, i)));
                start = i + 1;
            }
        }
        if (depth != 0) {
            throw new InvalidOptionException(field, "'" + selector + "' has unbalanced parentheses; " + FORMS);
        }
        requirements.add(strip(selector.substring(start)));
        return requirements;
    }

    /** The text without the white space the API server skips around it (not {@code trim()}'s control characters). */
    private static String strip(String text) {
        return AROUND.matcher(text).replaceAll("");
    }

    private static void key(String field, String key) {
        if (!TrainRequestValidator.isQualifiedName(key)) {
            throw new InvalidOptionException(
                    field,
                    "'" + key + "' is not a label key: an optional DNS prefix and"
                            + " '/', then at most 63 letters, digits, '-', '_' or '.', starting and ending with a letter or"
                            + " digit");
        }
    }

    private static void value(String field, String value) {
        if (!TrainRequestValidator.isLabelValue(value)) {
            throw new InvalidOptionException(
                    field,
                    "'" + value + "' is not a label value: at most 63 letters,"
                            + " digits, '-', '_' or '.', starting and ending with a letter or digit");
        }
    }
}
