package io.camelkubeflow.trainer;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.camelkubeflow.trainer.job.InitializerSetting;
import io.camelkubeflow.trainer.job.InitializerStep;
import io.camelkubeflow.trainer.job.TrainField;
import io.camelkubeflow.trainer.job.TrainFieldKind;
import io.camelkubeflow.trainer.support.TrainJobMdc;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.camel.spi.Metadata;
import org.junit.jupiter.api.Test;

/**
 * The train-field table is the one declaration of a train option: each field must have its endpoint option and its
 * header in the generated catalog, a documented header constant, and both rows in the reference doc; and every train
 * option of the catalog must be a field of the table (or one of the few that only say how to read the message).
 */
class TrainFieldTest {
    /** Train options that are not request fields: how the body is read. */
    private static final Set<String> NOT_FIELDS = Set.of("bodyType");

    private final Map<?, ?> catalog =
            read("src/generated/resources/META-INF/io/camelkubeflow/trainer/kubeflow-trainer.json");
    private final String adoc = text("src/main/docs/kubeflow-trainer-component.adoc");

    @Test
    void everyFieldHasItsOptionHeaderConstantAndDocs() throws Exception {
        Map<?, ?> options = (Map<?, ?>) catalog.get("properties");
        Map<?, ?> headers = (Map<?, ?>) catalog.get("headers");
        List<String> missing = new ArrayList<>();
        for (TrainField field : TrainField.values()) {
            String header = KubeflowTrainerConstants.header(field);
            if (!options.containsKey(field.fieldName())) {
                missing.add(field + ": no endpoint option '" + field.fieldName() + "' (KubeflowTrainerConfiguration)");
            }
            if (!headers.containsKey(header)) {
                missing.add(field + ": no header " + header + " (KubeflowTrainerConstants)");
            }
            if (!documentedConstant(header)) {
                missing.add(field + ": no @Metadata constant with the value " + header);
            }
            for (String row : List.of(field.fieldName(), header)) {
                if (!adoc.contains("\n| " + row + " |")) {
                    missing.add(field + ": the adoc has no row for " + row);
                }
            }
        }
        assertEquals(
                List.of(),
                missing,
                "after adding an option or header, rebuild and run"
                        + " python3 components/camel-kubeflow-trainer/update-doc-tables.py");
    }

    @Test
    void everyTrainOptionIsAField() {
        List<String> strays = new ArrayList<>();
        ((Map<?, ?>) catalog.get("properties")).forEach((name, option) -> {
            String label = String.valueOf(((Map<?, ?>) option).get("label"));
            if (List.of(label.split(",")).contains("train")
                    && TrainField.named((String) name) == null
                    && !NOT_FIELDS.contains(name)) {
                strays.add((String) name);
            }
        });
        assertEquals(List.of(), strays, "train options missing from io.camelkubeflow.trainer.job.TrainField");
    }

    /**
     * A typed initializer setting's field (its entry's {@code initializer} and {@code setting}) takes the kind of value
     * its {@link InitializerSetting} reads: patterns a list, a node count a whole number, the rest text.
     */
    @Test
    void anInitializerSettingsFieldTakesTheKindItsSettingReads() {
        List<String> wrong = new ArrayList<>();
        int settings = 0;
        for (InitializerStep step : InitializerStep.values()) {
            for (InitializerSetting setting : InitializerSetting.values()) {
                TrainField field = TrainField.named(setting.field(step));
                if (field == null) {
                    continue;
                }
                settings++;
                TrainFieldKind kind = switch (setting.form()) {
                    case PATTERNS -> TrainFieldKind.LIST;
                    case NODES -> TrainFieldKind.INTEGER;
                    default -> TrainFieldKind.TEXT;
                };
                if (field.kind() != kind || field.isPlain()) {
                    wrong.add(field + " is " + field.kind() + (field.isPlain() ? ", plain" : "") + ", not " + kind);
                }
            }
        }
        assertEquals(List.of(), wrong);
        assertEquals(21, settings, "the dataset's 14 settings and the model's 7");
    }

    /** The MDC's keys name a job as the headers do. */
    @Test
    void theMdcKeysAreTheHeaders() {
        assertEquals(KubeflowTrainerConstants.NAMESPACE, TrainJobMdc.NAMESPACE);
        assertEquals(KubeflowTrainerConstants.JOB_NAME, TrainJobMdc.JOB_NAME);
    }

    private static boolean documentedConstant(String value) throws IllegalAccessException {
        for (Field constant : KubeflowTrainerConstants.class.getFields()) {
            if (Modifier.isStatic(constant.getModifiers())
                    && value.equals(constant.get(null))
                    && constant.isAnnotationPresent(Metadata.class)) {
                return true;
            }
        }
        return false;
    }

    private static Map<?, ?> read(String path) {
        try {
            return new ObjectMapper().readValue(Path.of(path).toFile(), Map.class);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private static String text(String path) {
        try {
            return Files.readString(Path.of(path));
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
