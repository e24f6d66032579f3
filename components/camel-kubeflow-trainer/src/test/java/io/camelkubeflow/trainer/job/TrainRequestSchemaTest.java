package io.camelkubeflow.trainer.job;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.camelkubeflow.trainer.runtime.Launcher;
import io.camelkubeflow.trainer.support.InvalidOptionException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The train request's JSON Schema is what the validator runs: a message the schema refuses is refused, naming the field
 * as written, with what is wrong and the fix from the schema; the same request built as the component's layers build it
 * (options, headers) is refused the same way.
 */
class TrainRequestSchemaTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    /** Requests the schema once let through and the app refused (issue 38), and the field each names. */
    @ParameterizedTest(name = "{0}")
    @CsvSource(
            delimiter = '|',
            value = {
                "{\"command\": \"python -u train.py\", \"script\": \"print(1)\"} | command/pythonFile/script | more than one payload",
                "{\"imageEntrypoint\": true, \"image\": \"repo/app:1\", \"pythonFile\": \"/a.py\"} | imageEntrypoint/pythonFile | own entrypoint",
                "{\"script\": \"print(1)\", \"numNodes\": 0} | numNodes | give a whole number of at least 1",
                "{\"script\": \"print(1)\", \"cpu\": \"lots\"} | cpu | is not a Kubernetes quantity",
                "{\"script\": \"print(1)\\u0000\"} | script | NUL character",
                "{\"script\": \"print(1)\", \"scriptFileName\": \"..\"} | scriptFileName | is not a plain file name",
                "{\"script\": \"print(1)\", \"labels\": {\"team\": \"a b\"}} | labels.team | is not a label value",
                "{\"script\": \"print(1)\", \"env\": {\"PET_NNODES\": \"2\"}} | env.PET_NNODES | PET_*",
                "{\"script\": \"print(1)\", \"namespace\": \"ML\"} | namespace | is not an RFC 1123 label",
                "{\"script\": \"print(1)\", \"launcher\": \"TORCHRUN\"} | launcher | is not a launcher"
            })
    void aMessageTheSchemaRefusesIsRefusedNamingItsField(String message, String field, String words) throws Exception {
        InvalidOptionException refused =
                TrainRequestSchema.refusal(JSON.readTree(message)).orElseThrow();
        assertEquals(field, refused.getField());
        assertTrue(refused.getMessage().contains(words), refused.getMessage());
    }

    @Test
    void theSameRequestFromAnyLayerGetsTheSameRefusal() throws Exception {
        InvalidOptionException asMessage = TrainRequestSchema.refusal(
                        JSON.readTree("{\"script\": \"print(1)\", \"numNodes\": 0}"))
                .orElseThrow();
        TrainRequest fromOptions =
                new TrainRequest().runtime("torch-distributed").script("print(1)");
        TrainField.NUM_NODES.apply(fromOptions, 0, "numNodes");
        InvalidOptionException asRequest =
                assertThrows(InvalidOptionException.class, () -> TrainRequestValidator.validate(fromOptions));
        assertEquals(asMessage.getMessage(), asRequest.getMessage());
    }

    @Test
    void aMessageOfTheContractIsAcceptedAndNullIsLeavingAFieldOut() throws Exception {
        assertEquals(
                Optional.empty(),
                TrainRequestSchema.refusal(JSON.readTree(
                        "{\"script\": \"print(1)\", \"command\": null, \"numNodes\": 2, \"cpu\": \"500m\", \"labels\":"
                                + " {\"example.com/team\": \"vision\"}, \"env\": {\"LR\": \"0.1\"}}")));
        assertEquals(
                Optional.empty(),
                TrainRequestSchema.refusal(
                        JSON.readTree("{\"command\": [\"python\", \"-u\", \"train.py\"], \"args\": \"--lr 0.1\"}")));
    }

    /** A quoted value never repeats free text (an env value may be a credential), only where it is. */
    @Test
    void aRefusalOfFreeTextDoesNotRepeatIt() throws Exception {
        InvalidOptionException refused = TrainRequestSchema.refusal(
                        JSON.readTree("{\"script\": \"print(1)\", \"env\": {\"TOKEN\": \"hf_secret\\u0000\"}}"))
                .orElseThrow();
        assertEquals("env.TOKEN", refused.getField());
        assertTrue(!refused.getMessage().contains("hf_secret"), refused.getMessage());
    }

    @Test
    void theSchemasSharedFormsAreWhatTheOtherReadersUse() {
        assertTrue(TrainRequestValidator.isQualifiedName("example.com/team"));
        assertTrue(!TrainRequestValidator.isQualifiedName("-team"));
        assertTrue(TrainRequestValidator.isLabelValue(""));
        assertTrue(!TrainRequestValidator.isLabelValue("a".repeat(64)));
        assertTrue(TrainRequestValidator.isQuantity("1.5Gi"));
        assertTrue(!TrainRequestValidator.isQuantity("-1"));
    }

    /** The schema names the launchers the component has, as the component names them: the two cannot drift apart. */
    @Test
    void theSchemasLaunchersAreTheComponentsAndEachIsAccepted() throws Exception {
        JsonNode schema = JSON.readTree(TrainRequestSchema.class.getResourceAsStream("train-request.schema.json"));
        List<String> named = new ArrayList<>();
        schema.at("/properties/launcher/enum").forEach(value -> named.add(value.isNull() ? null : value.asText()));
        List<String> launchers = new ArrayList<>(
                Arrays.stream(Launcher.values()).map(Launcher::optionValue).toList());
        launchers.add(null);
        assertEquals(launchers, named);
        for (Launcher launcher : Launcher.values()) {
            assertTrue(
                    TrainRequestSchema.refusal(JSON.readTree(
                                    "{\"script\": \"print(1)\", \"launcher\": \"" + launcher.optionValue() + "\"}"))
                            .isEmpty(),
                    launcher.optionValue());
        }
    }

    @Test
    void everyPlainFieldIsInTheFormTheSchemaChecksUnderItsName() {
        for (TrainField field : TrainField.values()) {
            if (!field.isPlain()) {
                continue;
            }
            TrainRequest request = new TrainRequest();
            Object value = TrainRequestTest.sample(field, "value");
            field.apply(request, value, field.fieldName());
            ObjectNode form =
                    field.inMessages() ? TrainRequestSchema.jsonForm(request) : TrainRequestSchema.routeForm(request);
            assertEquals(new ObjectMapper().valueToTree(value), form.get(field.fieldName()), field.fieldName());
        }
    }
}
