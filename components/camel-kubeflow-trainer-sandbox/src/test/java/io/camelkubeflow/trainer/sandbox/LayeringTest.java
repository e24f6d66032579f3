package io.camelkubeflow.trainer.sandbox;

import static com.tngtech.archunit.library.Architectures.layeredArchitecture;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/**
 * The sandbox's packages (ARCHITECTURE.md, "Inside the sandbox"): each uses only those below it (the entry points,
 * then the controller and kubelet emulation, then the HTTP front, then the store), and none is in a cycle.
 */
class LayeringTest {
    private static final JavaClasses MAIN = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("io.camelkubeflow.trainer.sandbox");

    @Test
    void packagesPointOnlyDown() {
        layeredArchitecture()
                .consideringOnlyDependenciesInLayers()
                .layer("Sandbox")
                .definedBy("io.camelkubeflow.trainer.sandbox")
                .layer("Cluster")
                .definedBy("io.camelkubeflow.trainer.sandbox.cluster..")
                .layer("Http")
                .definedBy("io.camelkubeflow.trainer.sandbox.http..")
                .layer("Store")
                .definedBy("io.camelkubeflow.trainer.sandbox.store..")
                .whereLayer("Sandbox")
                .mayNotBeAccessedByAnyLayer()
                .whereLayer("Cluster")
                .mayOnlyBeAccessedByLayers("Sandbox")
                .whereLayer("Http")
                .mayOnlyBeAccessedByLayers("Cluster", "Sandbox")
                .whereLayer("Store")
                .mayOnlyBeAccessedByLayers("Http", "Cluster", "Sandbox")
                .check(MAIN);
    }

    @Test
    void noPackageCycles() {
        // every package its own slice, the top one included
        slices().matching("io.camelkubeflow.trainer.(**)")
                .should()
                .beFreeOfCycles()
                .check(MAIN);
    }
}
