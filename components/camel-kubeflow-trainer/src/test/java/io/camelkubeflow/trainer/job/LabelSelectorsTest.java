package io.camelkubeflow.trainer.job;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.camelkubeflow.trainer.support.InvalidOptionException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class LabelSelectorsTest {
    @ParameterizedTest
    @ValueSource(
            strings = {
                "",
                " ",
                "team=vision",
                "team==vision",
                "team!=vision",
                "team=",
                "gpu",
                "!gpu",
                "example.com/team=vision",
                "team in (a,b)",
                "team notin (a, b)",
                "team=vision, !gpu ,tier in (a,b),app.kubernetes.io/managed-by=camel-kubeflow-trainer"
            })
    void selectorsTheApiServerAcceptsPass(String selector) {
        LabelSelectors.check("labelSelector", selector);
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "team=vi sion",
                "team=a=b",
                "team in (a,b",
                "team in a,b)",
                "team in ((a))",
                "!team in (a)",
                "-team=x",
                "team=-x",
                "team=xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
                "a/b/c=x",
                "team>1",
                "team in (a b)",
                "team=vision,,gpu",
                "team=vision&gpu=1",
                "tier in ()",
                "tier notin ( )",
                // white space to Java's trim() or \\s, but part of a key or value to the API server's lexer
                "\u0001team=x",
                "\u2003",
                "team=x\u000b",
                "team=x\f",
                "tier in (a,\u001fb)"
            })
    void othersAreRefusedNamingTheField(String selector) {
        InvalidOptionException refused =
                assertThrows(InvalidOptionException.class, () -> LabelSelectors.check("labelSelector", selector));
        assertEquals("labelSelector", refused.getField());
        assertTrue(refused.getMessage().startsWith("Invalid 'labelSelector': '"), refused.getMessage());
    }

    @Test
    void theMessageNamesTheFaultyPartAndTheForms() {
        InvalidOptionException refused = assertThrows(
                InvalidOptionException.class, () -> LabelSelectors.check("labelSelector", "team=vision,tier in a"));
        assertEquals(
                "Invalid 'labelSelector': 'tier in a' is not a label selector requirement; write requirements"
                        + " separated by commas: key=value, key!=value, key in (a,b), key notin (a,b), key or !key"
                        + " (e.g. team=vision,!gpu)",
                refused.getMessage());
    }
}
