package io.camelkubeflow.trainer.kamelets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The files users take as they are (the Kamelets, which {@code camel run --local-kamelet-dir} reads from the source
 * tree; the examples' {@code camel.jbang.dependencies}; deploy/'s image) name this project's artifacts at the version
 * the build makes, written out: no placeholder, no older release. docs/releasing.md says how a version bump rewrites
 * them.
 */
class WrittenVersionsTest {
    private static final String PROJECT_VERSION = System.getProperty("project.version");
    private static final Path ROOT = Path.of("../..");
    /** Where this project's artifacts are named with a version: a Maven coordinate, a Kamelet's catalog version, the image. */
    private static final Pattern VERSIONED = Pattern.compile("io\\.camelkubeflow:[a-z-]+:([^\\s,\"']+)"
            + "|camel\\.apache\\.org/catalog\\.version: \"?([^\\s\"]+)"
            + "|image: camel-kubeflow-trainer-routes:([^\\s\"@]+)");

    @Test
    void everyVersionWrittenInTheKameletsExamplesAndManifestsIsTheProjects() throws IOException {
        assertTrue(PROJECT_VERSION != null && !PROJECT_VERSION.isBlank(), "surefire passes project.version");
        List<String> found = new ArrayList<>();
        List<String> wrong = new ArrayList<>();
        for (Path file : files()) {
            Matcher versioned = VERSIONED.matcher(Files.readString(file));
            while (versioned.find()) {
                String version = versioned.group(1) != null
                        ? versioned.group(1)
                        : versioned.group(2) != null ? versioned.group(2) : versioned.group(3);
                String where = ROOT.relativize(file) + ": " + versioned.group();
                found.add(where);
                if (!version.equals(PROJECT_VERSION)) {
                    wrong.add(where);
                }
            }
        }
        assertEquals(
                List.of(),
                wrong,
                "not the project's version " + PROJECT_VERSION
                        + " (docs/releasing.md, 'Bump the version', rewrites them)");
        // the two Kamelets (catalog version and dependency each), both examples' properties, the image: the pattern
        // still finds what it is for
        assertTrue(found.size() >= 8, "found only " + found);
    }

    private static List<Path> files() throws IOException {
        List<Path> files = new ArrayList<>();
        for (String dir : List.of(
                "components/camel-kubeflow-trainer-kamelets/src/main/resources/kamelets", "examples", "deploy")) {
            try (Stream<Path> walk = Files.walk(ROOT.resolve(dir))) {
                walk.filter(Files::isRegularFile)
                        .filter(f -> f.toString().matches(".*\\.(yaml|yml|properties|java)$"))
                        .sorted()
                        .forEach(files::add);
            }
        }
        return files;
    }
}
