package io.camelkubeflow.trainer.job;

import java.util.regex.Pattern;

import com.code_intelligence.jazzer.junit.FuzzTest;
import com.code_intelligence.jazzer.mutation.annotation.NotNull;
import io.camelkubeflow.trainer.support.InvalidOptionException;
import org.junit.jupiter.params.provider.ValueSource;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

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
    private static final String REQUIREMENT = SPACE + "*(?:!" + SPACE + "*" + KEY
            + "|" + KEY + "(?:" + SPACE + "*(?:==|=|!=)" + SPACE + "*" + VALUE
            + "|" + SPACE + "+(?:in|notin)" + SPACE + "*\\(" + SPACE + "*" + VALUE + SPACE + "*"
            + "(?:," + SPACE + "*" + VALUE + SPACE + "*)*\\))?)" + SPACE + "*";
    /**
     * The label selector grammar of the Kubernetes documentation (k8s.io/apimachinery labels.Parse), limited to the
     * operators a TrainJob selector uses: requirements separated by commas, each {@code key}, {@code !key},
     * {@code key=value}, {@code key==value}, {@code key!=value}, {@code key in (v1,v2)} or {@code key notin (v1,v2)};
     * a key an optional DNS-1123 subdomain prefix and '/' before a name of at most 63 characters, a value at most 63.
     * White space alone is the empty selector.
     */
    private static final Pattern KUBERNETES_SELECTOR =
            Pattern.compile(SPACE + "*|" + REQUIREMENT + "(?:," + REQUIREMENT + ")*");

    @ValueSource(strings = {"team=vision", "team==vision,!gpu", "tier in (a,b),app.kubernetes.io/name notin (x)",
            "example.com/team!=", "gpu", " gpu\t", "team in ()", "a/b/c=x", "team=vision,,gpu", "\u0001team=x",
            "\u2003", "team=x\u000b", "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"})
    @FuzzTest(maxDuration = "90s")
    void aSelectorIsRefusedOrOneTheApiServerAccepts(@NotNull String selector) {
        try {
            LabelSelectors.check("labelSelector", selector);
        } catch (InvalidOptionException refused) {
            assertEquals("labelSelector", refused.getField(), refused.getMessage());
            return;
        }
        assertTrue(KUBERNETES_SELECTOR.matcher(selector).matches(),
                "accepted, but the API server refuses it: '" + selector + "'");
    }
}
