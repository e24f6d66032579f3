package io.camelkubeflow.trainer.runtime;

import io.camelkubeflow.trainer.support.InvalidOptionException;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * A user rule "image glob = launcher", e.g. {@code registry.example.com/*deepspeed*=mpirun}. {@code *} matches any
 * run of characters (slashes included) and {@code ?} one character; the rest is literal.
 */
public record ImageRule(String glob, Launcher launcher, Pattern pattern) {

    public static ImageRule of(String glob, Launcher launcher) {
        return new ImageRule(glob, launcher, globPattern(glob));
    }

    public boolean matches(String image) {
        return image != null && pattern.matcher(image).matches();
    }

    /** Parses a comma-separated list of {@code glob=launcher} rules, in order of precedence. */
    public static List<ImageRule> parseList(String field, String text) {
        List<ImageRule> rules = new ArrayList<>();
        if (text == null || text.isBlank()) {
            return rules;
        }
        for (String entry : text.split(",")) {
            String trimmed = entry.trim();
            if (trimmed.isEmpty()) {
                continue;
            }
            int eq = trimmed.lastIndexOf('=');
            if (eq <= 0 || eq == trimmed.length() - 1) {
                throw new InvalidOptionException(
                        field,
                        "rule '" + trimmed
                                + "' is not of the form <image-glob>=<launcher>; write e.g. registry.example.com/*deepspeed*=mpirun");
            }
            rules.add(of(
                    trimmed.substring(0, eq).trim(),
                    Launcher.parse(field, trimmed.substring(eq + 1).trim())));
        }
        return rules;
    }

    /** An image glob as a pattern: {@code *} any run of characters, {@code ?} one, the rest literal. */
    public static Pattern globPattern(String glob) {
        StringBuilder regex = new StringBuilder();
        StringBuilder literal = new StringBuilder();
        for (char c : glob.toCharArray()) {
            if (c == '*' || c == '?') {
                if (!literal.isEmpty()) {
                    regex.append(Pattern.quote(literal.toString()));
                    literal.setLength(0);
                }
                regex.append(c == '*' ? ".*" : ".");
            } else {
                literal.append(c);
            }
        }
        if (!literal.isEmpty()) {
            regex.append(Pattern.quote(literal.toString()));
        }
        return Pattern.compile(regex.toString());
    }

    @Override
    public String toString() {
        return glob + "=" + launcher.optionValue();
    }
}
