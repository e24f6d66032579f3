package io.camelkubeflow.trainer;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.Architectures.layeredArchitecture;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/** The layers of ARCHITECTURE.md: each package uses only those below it, and the domain knows nothing of Camel. */
class LayeringTest {
    private static final JavaClasses MAIN = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("io.camelkubeflow.trainer");

    @Test
    void packagesPointOnlyDown() {
        layeredArchitecture()
                .consideringOnlyDependenciesInLayers()
                .layer("EndpointDsl")
                .definedBy("io.camelkubeflow.trainer.dsl..")
                .layer("Camel")
                .definedBy("io.camelkubeflow.trainer")
                .layer("Logs")
                .definedBy("io.camelkubeflow.trainer.logs..")
                .layer("Watch")
                .definedBy("io.camelkubeflow.trainer.watch..")
                .layer("Job")
                .definedBy("io.camelkubeflow.trainer.job..")
                .layer("Workspace")
                .definedBy("io.camelkubeflow.trainer.workspace..")
                .layer("Runtime")
                .definedBy("io.camelkubeflow.trainer.runtime..")
                .layer("Access")
                .definedBy("io.camelkubeflow.trainer.access..")
                .layer("Api")
                .definedBy("io.camelkubeflow.trainer.api..")
                .layer("Support")
                .definedBy("io.camelkubeflow.trainer.support..")
                .whereLayer("EndpointDsl")
                .mayNotBeAccessedByAnyLayer()
                .whereLayer("Camel")
                .mayOnlyBeAccessedByLayers("EndpointDsl")
                .whereLayer("Logs")
                .mayOnlyBeAccessedByLayers("Camel", "EndpointDsl")
                .whereLayer("Watch")
                .mayOnlyBeAccessedByLayers("Logs", "Camel", "EndpointDsl")
                .whereLayer("Job")
                .mayOnlyBeAccessedByLayers("Watch", "Logs", "Camel", "EndpointDsl")
                .whereLayer("Workspace")
                .mayOnlyBeAccessedByLayers("Job", "Watch", "Logs", "Camel", "EndpointDsl")
                .whereLayer("Runtime")
                .mayOnlyBeAccessedByLayers("Job", "Watch", "Logs", "Camel", "EndpointDsl")
                .whereLayer("Access")
                .mayOnlyBeAccessedByLayers("Job", "Watch", "Logs", "Camel", "EndpointDsl")
                .whereLayer("Api")
                .mayOnlyBeAccessedByLayers("Access", "Runtime", "Job", "Watch", "Logs", "Camel", "EndpointDsl")
                .whereLayer("Support")
                .mayOnlyBeAccessedByLayers(
                        "Api", "Access", "Runtime", "Workspace", "Job", "Watch", "Logs", "Camel", "EndpointDsl")
                .check(MAIN);
    }

    @Test
    void theDomainKnowsNothingOfCamel() {
        noClasses()
                .that()
                .resideInAnyPackage(
                        "io.camelkubeflow.trainer.api..",
                        "io.camelkubeflow.trainer.access..",
                        "io.camelkubeflow.trainer.runtime..",
                        "io.camelkubeflow.trainer.job..",
                        "io.camelkubeflow.trainer.watch..",
                        "io.camelkubeflow.trainer.logs..",
                        "io.camelkubeflow.trainer.support..")
                .should()
                .dependOnClassesThat()
                .resideInAPackage("org.apache.camel..")
                .check(MAIN);
    }

    @Test
    void noPackageCycles() {
        slices().matching("io.camelkubeflow.trainer.(*)..")
                .should()
                .beFreeOfCycles()
                .check(MAIN);
    }
}
