package io.camelkubeflow.trainer.release;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import java.util.zip.ZipInputStream;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Element;
import org.w3c.dom.Node;

/**
 * The bundle the release profile makes for Maven Central's Publisher Portal, made as docs/releasing.md makes it: a copy
 * of the sources (no tests), its version set to the release's with {@code versions:set} and the documented command
 * for the Kamelets, examples and manifests, then {@code -Prelease deploy -DskipUpload=true} with Maven 3.9 (what
 * central-publishing-maven-plugin needs). Signed with a throwaway key from {@code MAVEN_GPG_KEY} when gpg is there to
 * make one (it is on the project's machines), so the signing path is the one checked. The bundle is then read as the
 * Portal's validation reads it: every published artifact and nothing else, each file with its checksums and signature,
 * each pom with the metadata Central requires, each jar with the licence.
 */
class ReleaseBundleTest {
    private static final String GROUP = "io/camelkubeflow/";
    /** The published artifacts and their packaging: the parents as poms, the rest as jars. */
    private static final Map<String, String> PUBLISHED = new TreeMap<>(Map.of(
            "camel-kubeflow-trainer-parent", "pom",
            "camel-kubeflow-trainer-sandbox", "jar",
            "camel-kubeflow-trainer", "jar",
            "camel-kubeflow-trainer-kamelets", "jar",
            "camel-quarkus-kubeflow-trainer-parent", "pom",
            "camel-quarkus-kubeflow-trainer", "jar",
            "camel-quarkus-kubeflow-trainer-deployment", "jar"));
    /**
     * The modules built beside them: ones that are not published (this one; the codegen module the component's build
     * runs) show the exclusion works. Not bench, whose storm needs the component's and the routes app's test jars,
     * which a copy without tests cannot make.
     */
    private static final String MODULES = ".,components/camel-kubeflow-trainer-sandbox,"
            + "components/camel-kubeflow-trainer-codegen,components/camel-kubeflow-trainer,"
            + "components/camel-kubeflow-trainer-kamelets,components/camel-quarkus-kubeflow-trainer,"
            + "components/camel-quarkus-kubeflow-trainer/runtime,components/camel-quarkus-kubeflow-trainer/deployment,"
            + "release-check";

    static final Path ROOT = Path.of(System.getProperty("project.root"));
    static final String RELEASE = System.getProperty("project.version").replace("-SNAPSHOT", "");
    static Path copy;
    static Path log;
    static boolean signed;
    static Map<String, byte[]> bundle = new TreeMap<>();

    @BeforeAll
    static void buildTheBundleAsTheReleaseDocSays() throws Exception {
        Path work = Path.of(System.getProperty("work.dir"));
        deleteTree(work);
        copy = work.resolve("src");
        copySources(copy);
        log = work.resolve("release-build.log");
        Map<String, String> env = new TreeMap<>();
        Path gnupg = work.resolve("gnupg");
        signed = throwawayKey(gnupg, env);

        String old = System.getProperty("project.version");
        maven(env, "versions:set", "-DnewVersion=" + RELEASE, "-DgenerateBackupPoms=false");
        // docs/releasing.md, 'Bump the version': the same command
        run(
                env,
                List.of(
                        "bash",
                        "-c",
                        "grep -rlF \"$OLD\" components/camel-kubeflow-trainer-kamelets/src/main/resources"
                                + " examples deploy | xargs sed -i \"s/$OLD/$NEW/g\""),
                Map.of("OLD", old, "NEW", RELEASE));
        maven(
                env,
                "-Prelease",
                "deploy",
                "-DskipUpload=true",
                "-Dmaven.test.skip=true",
                "-DskipFuzz=true",
                "-Dmaven.install.skip=true",
                "-pl",
                MODULES);

        Path zip = copy.resolve("target/central-publishing/central-bundle.zip");
        assertTrue(Files.isRegularFile(zip), "no bundle; the build's log: " + log);
        try (ZipFile file = new ZipFile(zip.toFile())) {
            for (ZipEntry entry : file.stream().filter(e -> !e.isDirectory()).toList()) {
                try (InputStream in = file.getInputStream(entry)) {
                    bundle.put(entry.getName(), in.readAllBytes());
                }
            }
        }
    }

    @Test
    void everyPublishedArtifactIsThereWithItsPomJarSourcesAndJavadocAndNothingElse() {
        Set<String> expected = new TreeSet<>();
        PUBLISHED.forEach((artifact, packaging) -> {
            List<String> kinds =
                    packaging.equals("pom") ? List.of(".pom") : List.of(".pom", ".jar", "-sources.jar", "-javadoc.jar");
            for (String kind : kinds) {
                String file = GROUP + artifact + "/" + RELEASE + "/" + artifact + "-" + RELEASE + kind;
                expected.add(file);
                for (String suffix : signed ? List.of(".md5", ".sha1", ".asc") : List.of(".md5", ".sha1")) {
                    expected.add(file + suffix);
                }
            }
        });
        Set<String> found = new TreeSet<>(bundle.keySet());
        // sha256 and sha512 are optional; the plugin adds them, which Central accepts
        found.removeIf(name -> name.endsWith(".sha256") || name.endsWith(".sha512"));
        Set<String> missing = new TreeSet<>(expected);
        missing.removeAll(found);
        Set<String> more = new TreeSet<>(found);
        more.removeAll(expected);
        assertEquals(Set.of(), missing, "missing from the bundle");
        assertEquals(Set.of(), more, "in the bundle, not expected");
    }

    /** A module added to the build is published (and then in PUBLISHED) or says it is not: {@code unpublished}. */
    @Test
    void everyModuleOfTheBuildIsPublishedOrSaysItIsNot() throws IOException {
        Map<String, String> packaging = new TreeMap<>();
        for (String module : modules(ROOT, "")) {
            Element pom = pom(Files.readAllBytes(ROOT.resolve(module).resolve("pom.xml")));
            if (!"true".equals(text(pom, "properties/unpublished"))) {
                packaging.put(text(pom, "artifactId"), text(pom, "packaging") == null ? "jar" : text(pom, "packaging"));
            }
        }
        assertEquals(PUBLISHED, packaging);
    }

    @Test
    void everyChecksumIsTheFilesAndEverySignatureVerifies() throws Exception {
        for (String name : List.copyOf(bundle.keySet())) {
            for (String algorithm : List.of("MD5", "SHA-1", "SHA-256", "SHA-512")) {
                String suffix = "." + algorithm.toLowerCase().replace("-", "");
                if (name.endsWith(suffix)) {
                    byte[] file = bundle.get(name.substring(0, name.length() - suffix.length()));
                    assertNotNull(file, name + " has no file beside it");
                    assertEquals(
                            HexFormat.of().formatHex(digest(algorithm, file)),
                            new String(bundle.get(name), StandardCharsets.US_ASCII).trim(),
                            name);
                }
            }
        }
        if (signed) {
            Path dir = Files.createTempDirectory(copy.getParent(), "verify");
            for (String name :
                    bundle.keySet().stream().filter(n -> n.endsWith(".asc")).toList()) {
                Path signature = dir.resolve(Path.of(name).getFileName());
                Path file = dir.resolve(
                        Path.of(name.substring(0, name.length() - 4)).getFileName());
                Files.write(signature, bundle.get(name));
                Files.write(file, bundle.get(name.substring(0, name.length() - 4)));
                run(
                        Map.of("GNUPGHOME", copy.getParent().resolve("gnupg").toString()),
                        List.of("gpg", "--batch", "--verify", signature.toString(), file.toString()),
                        Map.of());
            }
        } else {
            assertTrue(readLog().contains("Not signed: no GPG key given"), "the unsigned build says so");
        }
    }

    @Test
    void everyPomHasTheMetadataCentralRequiresAndTheReleaseVersion() throws Exception {
        Map<String, Element> poms = new TreeMap<>();
        for (String artifact : PUBLISHED.keySet()) {
            byte[] pom = bundle.get(GROUP + artifact + "/" + RELEASE + "/" + artifact + "-" + RELEASE + ".pom");
            assertNotNull(pom, artifact);
            assertFalse(new String(pom, StandardCharsets.UTF_8).contains("SNAPSHOT"), artifact + " names a SNAPSHOT");
            poms.put(artifact, pom(pom));
        }
        List<String> missing = new ArrayList<>();
        poms.forEach((artifact, pom) -> {
            Element parent = child(pom, "parent");
            String version = text(pom, "version") != null ? text(pom, "version") : text(parent, "version");
            if (!RELEASE.equals(version)) {
                missing.add(artifact + ": version " + version);
            }
            // Central: each pom names itself and says what it is; the rest may come from a parent it also holds
            for (String own : List.of("name", "description")) {
                if (blank(text(pom, own))) {
                    missing.add(artifact + ": " + own);
                }
            }
            for (String inherited : List.of(
                    "url",
                    "licenses/license/name",
                    "licenses/license/url",
                    "developers/developer/name",
                    "scm/url",
                    "scm/connection",
                    "scm/developerConnection")) {
                if (blank(inheritedText(pom, inherited, poms))) {
                    missing.add(artifact + ": " + inherited);
                }
            }
            String licence = inheritedText(pom, "licenses/license/name", poms);
            if (licence != null && !licence.equals("Apache-2.0")) {
                missing.add(artifact + ": licence " + licence);
            }
        });
        assertEquals(List.of(), missing);
    }

    @Test
    void everyJarCarriesTheLicenceAndNoticeAndTheKameletsNameTheReleasedComponent() throws IOException {
        byte[] licence = Files.readAllBytes(ROOT.resolve("LICENSE"));
        byte[] notice = Files.readAllBytes(ROOT.resolve("NOTICE"));
        for (String artifact : PUBLISHED.keySet().stream()
                .filter(a -> PUBLISHED.get(a).equals("jar"))
                .toList()) {
            Map<String, byte[]> jar =
                    entries(bundle.get(GROUP + artifact + "/" + RELEASE + "/" + artifact + "-" + RELEASE + ".jar"));
            assertArrayEquals(licence, jar.get("META-INF/LICENSE"), artifact + ": META-INF/LICENSE");
            assertArrayEquals(notice, jar.get("META-INF/NOTICE"), artifact + ": META-INF/NOTICE");
            Map<String, byte[]> sources = entries(
                    bundle.get(GROUP + artifact + "/" + RELEASE + "/" + artifact + "-" + RELEASE + "-sources.jar"));
            // the module's sources: its Java, or for a module without Java (the Kamelets, the extension's runtime) its
            // resources; not only what every jar holds
            assertTrue(
                    sources.keySet().stream()
                            .anyMatch(n -> !n.endsWith("/")
                                    && !n.startsWith("META-INF/maven/")
                                    && !List.of("META-INF/MANIFEST.MF", "META-INF/LICENSE", "META-INF/NOTICE")
                                            .contains(n)),
                    artifact + ": its sources jar holds no source");
            if (artifact.endsWith("-kamelets")) {
                List<String> kamelets = jar.keySet().stream()
                        .filter(n -> n.endsWith(".kamelet.yaml"))
                        .toList();
                assertEquals(2, kamelets.size(), kamelets.toString());
                for (String kamelet : kamelets) {
                    String yaml = new String(jar.get(kamelet), StandardCharsets.UTF_8);
                    assertTrue(
                            yaml.contains("camel.apache.org/catalog.version: \"" + RELEASE + "\"")
                                    && yaml.contains("mvn:io.camelkubeflow:camel-kubeflow-trainer:" + RELEASE + "\""),
                            kamelet + " does not name the release " + RELEASE);
                }
            }
        }
    }

    /** The build's files without tests: every module's pom (the reactor is whole), the published modules' sources. */
    private static void copySources(Path target) throws IOException {
        Files.createDirectories(target.resolve(".mvn"));
        for (String file : List.of("LICENSE", "NOTICE")) {
            Files.copy(ROOT.resolve(file), target.resolve(file));
        }
        for (String module : modules(ROOT, "")) {
            Path pom = target.resolve(module).resolve("pom.xml");
            Files.createDirectories(pom.getParent());
            Files.copy(ROOT.resolve(module).resolve("pom.xml"), pom, StandardCopyOption.REPLACE_EXISTING);
        }
        for (String dir : List.of("components", "examples", "deploy")) {
            try (Stream<Path> walk = Files.walk(ROOT.resolve(dir))) {
                for (Path from : walk.toList()) {
                    String relative = ROOT.relativize(from).toString().replace('\\', '/');
                    if (relative.matches("(.*/)?(target|src/test)(/.*)?")) {
                        continue;
                    }
                    Path to = target.resolve(relative);
                    if (Files.isDirectory(from)) {
                        Files.createDirectories(to);
                    } else {
                        Files.copy(from, to, StandardCopyOption.REPLACE_EXISTING);
                    }
                }
            }
        }
    }

    /** The reactor's modules below {@code dir} (relative to the root, "" for the root itself), the root first. */
    private static List<String> modules(Path root, String dir) throws IOException {
        List<String> modules = new ArrayList<>(List.of(dir));
        Element pom = pom(Files.readAllBytes(root.resolve(dir).resolve("pom.xml")));
        Element list = child(pom, "modules");
        for (Node node = list == null ? null : list.getFirstChild(); node != null; node = node.getNextSibling()) {
            if (node instanceof Element module) {
                String path = dir.isEmpty()
                        ? module.getTextContent().trim()
                        : dir + "/" + module.getTextContent().trim();
                modules.addAll(modules(root, Path.of(path).normalize().toString()));
            }
        }
        return modules;
    }

    private static Element pom(byte[] xml) {
        try {
            return DocumentBuilderFactory.newInstance()
                    .newDocumentBuilder()
                    .parse(new ByteArrayInputStream(xml))
                    .getDocumentElement();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /** A key made for this run only, in its own GnuPG home, handed to the build as MAVEN_GPG_KEY; false without gpg. */
    private static boolean throwawayKey(Path gnupg, Map<String, String> env) throws Exception {
        try {
            new ProcessBuilder("gpg", "--version")
                    .redirectErrorStream(true)
                    .start()
                    .waitFor();
        } catch (IOException noGpg) {
            return false;
        }
        Files.createDirectories(
                gnupg, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        Map<String, String> home = Map.of("GNUPGHOME", gnupg.toString());
        run(
                home,
                List.of(
                        "gpg",
                        "--batch",
                        "--pinentry-mode",
                        "loopback",
                        "--passphrase",
                        "release-check",
                        "--quick-gen-key",
                        "Release check <release-check@camelkubeflow.invalid>",
                        "rsa2048",
                        "sign",
                        "1d"),
                Map.of());
        Path key = gnupg.resolve("secret.asc");
        run(
                home,
                List.of(
                        "gpg",
                        "--batch",
                        "--pinentry-mode",
                        "loopback",
                        "--passphrase",
                        "release-check",
                        "--armor",
                        "--output",
                        key.toString(),
                        "--export-secret-keys"),
                Map.of());
        // the agent gpg started for the key is not needed any more (the build signs with BouncyCastle)
        run(home, List.of("gpgconf", "--kill", "gpg-agent"), Map.of());
        env.put("MAVEN_GPG_KEY", Files.readString(key));
        env.put("MAVEN_GPG_PASSPHRASE", "release-check");
        return true;
    }

    private static void maven(Map<String, String> env, String... args) throws Exception {
        // unpacked by the dependency plugin, the script may have lost its execute bit: run by sh
        List<String> command = new ArrayList<>(List.of(
                "sh",
                Path.of(System.getProperty("release.maven.home"), "bin", "mvn").toString(),
                "-B",
                "-ntp",
                "-Dmaven.repo.local=" + System.getProperty("maven.repo.local")));
        command.addAll(List.of(args));
        run(env, command, Map.of());
    }

    private static void run(Map<String, String> env, List<String> command, Map<String, String> more) throws Exception {
        ProcessBuilder builder = new ProcessBuilder(command)
                .directory(copy.toFile())
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
        // the outer Maven's own settings are not the copy's
        builder.environment()
                .keySet()
                .removeAll(Set.of("MAVEN_ARGS", "MAVEN_BASEDIR", "MAVEN_PROJECTBASEDIR", "MAVEN_CMD_LINE_ARGS"));
        builder.environment().put("JAVA_HOME", System.getProperty("java.home"));
        builder.environment().putAll(env);
        builder.environment().putAll(more);
        Process process = builder.start();
        if (!process.waitFor(15, TimeUnit.MINUTES)) {
            process.destroyForcibly();
        }
        assertEquals(0, process.exitValue(), String.join(" ", command) + " failed:\n" + tail(readLog()));
    }

    private static String readLog() {
        try {
            return Files.readString(log);
        } catch (IOException e) {
            return e.toString();
        }
    }

    private static String tail(String text) {
        return text.substring(Math.max(0, text.length() - 6000));
    }

    private static Map<String, byte[]> entries(byte[] jar) throws IOException {
        assertNotNull(jar);
        Map<String, byte[]> entries = new TreeMap<>();
        try (ZipInputStream in = new ZipInputStream(new ByteArrayInputStream(jar))) {
            for (ZipEntry entry = in.getNextEntry(); entry != null; entry = in.getNextEntry()) {
                entries.put(entry.getName(), in.readAllBytes());
            }
        }
        return entries;
    }

    /** A pom's value, or its parent's (within the bundle) when it has none: what Central's validation reads. */
    private static String inheritedText(Element pom, String path, Map<String, Element> poms) {
        for (Element at = pom; at != null; ) {
            String value = text(at, path);
            if (value != null) {
                return value;
            }
            String parent = text(child(at, "parent"), "artifactId");
            at = parent == null ? null : poms.get(parent);
        }
        return null;
    }

    private static String text(Element element, String path) {
        Element at = element;
        for (String name : path.split("/")) {
            at = child(at, name);
        }
        return at == null ? null : at.getTextContent().trim();
    }

    private static Element child(Element element, String name) {
        if (element == null) {
            return null;
        }
        for (Node node = element.getFirstChild(); node != null; node = node.getNextSibling()) {
            if (node instanceof Element child && child.getTagName().equals(name)) {
                return child;
            }
        }
        return null;
    }

    private static boolean blank(String text) {
        return text == null || text.isBlank();
    }

    private static byte[] digest(String algorithm, byte[] data) throws NoSuchAlgorithmException {
        return MessageDigest.getInstance(algorithm).digest(data);
    }

    private static void deleteTree(Path dir) throws IOException {
        if (Files.exists(dir)) {
            try (Stream<Path> walk = Files.walk(dir)) {
                for (Path path : walk.sorted((a, b) -> b.getNameCount() - a.getNameCount())
                        .toList()) {
                    Files.delete(path);
                }
            }
        }
    }
}
