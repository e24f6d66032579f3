package io.camelkubeflow.trainer.kaoto;

import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.DigestInputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;
import java.util.List;
import java.util.function.Predicate;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveInputStream;
import org.apache.commons.compress.compressors.gzip.GzipCompressorInputStream;

/**
 * Kaoto's published catalog, the npm package {@code @kaoto/camel-catalog} (its built catalogs under
 * {@code dist/camel-catalog/}, what Kaoto's web app and VS Code extension ship): fetched by npm itself the first time
 * (then from npm's cache, {@code --prefer-offline}) and refused unless it has the integrity the build pins.
 */
final class KaotoPackage {
    static final String CATALOG_ROOT = "package/dist/camel-catalog/";

    final Path tarball;

    private KaotoPackage(Path tarball) {
        this.tarball = tarball;
    }

    /** The package at the given version in the given directory, fetched with npm when it is not there yet. */
    static KaotoPackage fetch(String version, String integrity, Path directory)
            throws IOException, InterruptedException {
        Path tarball = directory.resolve("kaoto-camel-catalog-" + version + ".tgz");
        if (!Files.exists(tarball)) {
            Files.createDirectories(directory);
            Process npm = new ProcessBuilder(List.of(
                            "npm",
                            "pack",
                            "@kaoto/camel-catalog@" + version,
                            "--pack-destination",
                            directory.toString(),
                            "--prefer-offline",
                            "--silent"))
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                    .redirectError(ProcessBuilder.Redirect.INHERIT)
                    .start();
            if (npm.waitFor() != 0 || !Files.exists(tarball)) {
                throw new IOException(
                        "npm pack @kaoto/camel-catalog@" + version + " failed (exit " + npm.exitValue()
                                + "): npm is needed the first time, with the npm registry reachable; later builds use npm's cache");
            }
        }
        String actual = integrity(tarball);
        if (!actual.equals(integrity)) {
            Files.delete(tarball);
            throw new IOException(tarball + " has integrity " + actual + ", not the pinned " + integrity
                    + " (kaoto.catalog.integrity); deleted");
        }
        return new KaotoPackage(tarball);
    }

    /** Opens the package already fetched (tests). */
    static KaotoPackage at(Path tarball) {
        return new KaotoPackage(tarball);
    }

    /** npm's Subresource Integrity form of the file: {@code sha512-} and the digest in Base64. */
    static String integrity(Path file) throws IOException {
        try (InputStream in = new DigestInputStream(Files.newInputStream(file), MessageDigest.getInstance("SHA-512"))) {
            in.transferTo(OutputStream.nullOutputStream());
            return "sha512-"
                    + Base64.getEncoder()
                            .encodeToString(
                                    ((DigestInputStream) in).getMessageDigest().digest());
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    interface Entry {
        /** The path under {@code dist/camel-catalog/}, e.g. {@code camel-main/4.18.4/index-fdf5af89.json}. */
        String path();

        /** The file's content; closing it leaves the package open. */
        InputStream content();
    }

    interface EntryVisitor {
        void visit(Entry entry) throws IOException;
    }

    /** Hands each file of the catalog whose path the filter takes to the visitor, in the package's order. */
    void read(Predicate<String> filter, EntryVisitor visitor) throws IOException {
        try (TarArchiveInputStream tar =
                new TarArchiveInputStream(new GzipCompressorInputStream(Files.newInputStream(tarball)))) {
            TarArchiveEntry entry;
            while ((entry = tar.getNextEntry()) != null) {
                if (!entry.isFile() || !entry.getName().startsWith(CATALOG_ROOT)) {
                    continue;
                }
                String path = entry.getName().substring(CATALOG_ROOT.length());
                if (path.contains("..") || path.startsWith("/") || !filter.test(path)) {
                    continue;
                }
                visitor.visit(new Entry() {
                    @Override
                    public String path() {
                        return path;
                    }

                    @Override
                    public InputStream content() {
                        return new FilterInputStream(tar) {
                            @Override
                            public void close() {}
                        };
                    }
                });
            }
        }
    }
}
