package io.camelkubeflow.trainer.workspace;

/**
 * Caps on what a workspace may unpack to, checked while it is read so a hostile archive is refused before it is
 * inflated: its files, their total size, and (for an archive) how many times its compressed size they may be.
 *
 * @param maxEntries files and links
 * @param maxBytes   total size of the files
 * @param maxRatio   total size over the archive's size (a zip or gzip bomb reaches thousands)
 */
public record WorkspaceLimits(int maxEntries, long maxBytes, int maxRatio) {
    /** 10,000 files, 512 MiB in all, at most 200 times the archive: far above a training project's source. */
    public static final WorkspaceLimits DEFAULT = new WorkspaceLimits(10_000, 512L << 20, 200);
    /**
     * What one entry of a tar may take beside its content: its header, a PAX header or GNU long name and link of a
     * 4096-byte path and target, and the padding of each.
     */
    static final int TAR_ENTRY_OVERHEAD = 12 << 10;

    /**
     * The most bytes an uncompressed tar may hold within these limits: the files and each entry's headers. A tar
     * reader keeps a PAX header or a GNU long name in memory whole, so a larger tar is refused before it is read on.
     */
    public long maxTarBytes() {
        return maxBytes + (maxEntries + 1L) * TAR_ENTRY_OVERHEAD;
    }
}
