package io.camelkubeflow.trainer.job;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.code_intelligence.jazzer.junit.FuzzTest;
import com.code_intelligence.jazzer.mutation.annotation.NotNull;
import io.camelkubeflow.trainer.support.InvalidOptionException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Any text either is refused by {@link LabelSelectors} naming the field, or is a selector the API server's grammar
 * accepts: {@link LabelSelectors} may refuse more than the API server (an empty value set), never less.
 */
class LabelSelectorsFuzzTest {
    /** The API server's lexer skips these between tokens; nothing else is white space to it. */
    private static final String SPACE = "[ \\t\\r\\n]";

    private static final String NAME = "[A-Za-z0-9](?:[-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?";
    /** A DNS-1123 subdomain of at most 253 characters, then '/'. */
    private static final String PREFIX =
            "(?=[^/]{1,253}/)[a-z0-9](?:[-a-z0-9]*[a-z0-9])?(?:\\.[a-z0-9](?:[-a-z0-9]*[a-z0-9])?)*/";

    private static final String KEY = "(?:" + PREFIX + ")?" + NAME;
    private static final String VALUE = "(?:" + NAME + ")?";
    /**
     * The label selector grammar of the Kubernetes documentation (k8s.io/apimachinery labels.Parse), limited to the
     * operators a TrainJob selector uses: requirements separated by commas, each {@code key}, {@code !key},
     * {@code key=value}, {@code key==value}, {@code key!=value}, {@code key in (v1,v2)} or {@code key notin (v1,v2)};
     * a key an optional DNS-1123 subdomain prefix and '/' before a name of at most 63 characters, a value at most 63.
     * White space alone is the empty selector. One requirement at a time, and a set's values one at a time: a single
     * pattern repeating a group per requirement recurses once per repetition in java.util.regex, and a selector of a
     * few hundred requirements overflowed the fuzzer's stack (the component had accepted it rightly).
     */
    private static final Pattern REQUIREMENT = Pattern.compile(SPACE + "*(?:!" + SPACE + "*" + KEY
            + "|" + KEY + "(?:" + SPACE + "*(?:==|=|!=)" + SPACE + "*" + VALUE
            + "|" + SPACE + "+(?:in|notin)" + SPACE + "*\\(([^()]*)\\))?)" + SPACE + "*");

    private static final Pattern SET_VALUE = Pattern.compile(SPACE + "*" + VALUE + SPACE + "*");
    private static final Pattern EMPTY = Pattern.compile(SPACE + "*");

    /** Whether the API server's grammar accepts the selector. */
    private static boolean kubernetesAccepts(String selector) {
        if (EMPTY.matcher(selector).matches()) {
            return true;
        }
        // a comma inside a set's parentheses (one a ')' follows before any '(') separates its values, any other
        // separates requirements
        String[] requirements = selector.split(",(?![^()]*\\))", -1);
        for (String requirement : requirements) {
            Matcher matcher = REQUIREMENT.matcher(requirement);
            if (!matcher.matches()) {
                return false;
            }
            if (matcher.group(1) != null) {
                for (String value : matcher.group(1).split(",", -1)) {
                    if (!SET_VALUE.matcher(value).matches()) {
                        return false;
                    }
                }
            }
        }
        return true;
    }

    @ValueSource(
            strings = {
                "team=vision",
                "team==vision,!gpu",
                "tier in (a,b),app.kubernetes.io/name notin (x)",
                "example.com/team!=",
                "gpu",
                " gpu\t",
                "team in ()",
                "a/b/c=x",
                "team=vision,,gpu",
                "\u0001team=x",
                "\u2003",
                "team=x\u000b",
                "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
            })
    @FuzzTest(maxDuration = "90s")
    void aSelectorIsRefusedOrOneTheApiServerAccepts(@NotNull String selector) {
        try {
            LabelSelectors.check("labelSelector", selector);
        } catch (InvalidOptionException refused) {
            assertEquals("labelSelector", refused.getField(), refused.getMessage());
            return;
        }
        assertTrue(kubernetesAccepts(selector), "accepted, but the API server refuses it: '" + selector + "'");
    }
}
