package io.camelkubeflow.trainer.kaoto;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import java.io.IOException;
import java.nio.file.FileSystem;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;

/**
 * The build's step (exec-maven-plugin, process-classes): the Kaoto catalog from Kaoto's published one, the component's
 * catalog JSON in its jar and the Kamelets in theirs. Arguments: the {@code @kaoto/camel-catalog} version, its
 * integrity, the definitions' names (comma-separated), the npm download directory, the component's jar, the Kamelets'
 * jar (either may be a classes directory, as in a reactor build that packages nothing), the output directory.
 */
public final class KaotoCatalogBuild {
    static final String COMPONENT_JSON = "META-INF/io/camelkubeflow/trainer/kubeflow-trainer.json";
    static final String KAMELETS = "kamelets";

    private KaotoCatalogBuild() {}

    public static void main(String[] args) throws Exception {
        if (args.length != 7) {
            throw new IllegalArgumentException("expected: version integrity definitions npmDirectory componentJar"
                    + " kameletsJar outputDirectory; got " + Arrays.toString(args));
        }
        KaotoPackage base = KaotoPackage.fetch(args[0], args[1], Path.of(args[3]));
        List<String> definitions =
                Arrays.stream(args[2].split(",")).map(String::trim).toList();
        Path output = Path.of(args[6]);
        new KaotoCatalog(base, componentJson(Path.of(args[4])), kamelets(Path.of(args[5]))).write(definitions, output);
        System.out.println("Kaoto catalog: " + output.resolve("index.json").toUri());
    }

    static ObjectNode componentJson(Path jar) throws IOException {
        try (Root root = Root.of(jar)) {
            return (ObjectNode) new ObjectMapper().readTree(Files.readAllBytes(root.path.resolve(COMPONENT_JSON)));
        }
    }

    /** Every {@code kamelets/*.kamelet.yaml}, by file name. */
    static List<JsonNode> kamelets(Path jar) throws IOException {
        List<JsonNode> kamelets = new ArrayList<>();
        YAMLMapper yaml = new YAMLMapper();
        try (Root root = Root.of(jar);
                Stream<Path> files = Files.list(root.path.resolve(KAMELETS))) {
            for (Path file : files.filter(f -> f.getFileName().toString().endsWith(".kamelet.yaml"))
                    .sorted()
                    .toList()) {
                kamelets.add(yaml.readTree(Files.readAllBytes(file)));
            }
        }
        if (kamelets.isEmpty()) {
            throw new IOException("no " + KAMELETS + "/*.kamelet.yaml in " + jar);
        }
        return kamelets;
    }

    /** A jar's content, or a classes directory. */
    private record Root(Path path, FileSystem jar) implements AutoCloseable {
        static Root of(Path jarOrDirectory) throws IOException {
            if (Files.isDirectory(jarOrDirectory)) {
                return new Root(jarOrDirectory, null);
            }
            FileSystem jar = FileSystems.newFileSystem(jarOrDirectory);
            return new Root(jar.getPath("/"), jar);
        }

        @Override
        public void close() throws IOException {
            if (jar != null) {
                jar.close();
            }
        }
    }
}
