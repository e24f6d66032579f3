package io.camelkubeflow.trainer.workspace;

import java.util.Set;

/**
 * A training project in canonical form: its files and links sorted by path, every timestamp, owner and mode bit that
 * does not change what runs left out, so the same project gives the same bytes wherever it came from (a directory,
 * a zip, a tar.gz).
 *
 * @param digest  SHA-256 (hex) of the canonical tar: what the pods verify and the TrainJob records
 * @param archive the canonical tar, gzip-compressed: what is staged
 * @param paths   the files and links it holds, relative to its root ({@code pkg/model.py})
 * @param bytes   the total size of its files
 */
public record Workspace(String digest, byte[] archive, Set<String> paths, long bytes) {
    /** The entry point's file, {@code requirements.txt}: installed on every node before the code runs. */
    public static final String REQUIREMENTS = "requirements.txt";

    public boolean contains(String path) {
        return paths.contains(path);
    }

    /** A short form of the digest for names and labels (80 bits: collisions are not a practical concern). */
    public String shortDigest() {
        return digest.substring(0, 20);
    }
}
